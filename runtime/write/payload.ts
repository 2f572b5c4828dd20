/** Reading request documents: their structure, identifiers, linkage and the values a write carries. */
import type { Context } from '../dsl/context.js';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  JsonApiError,
  UnprocessableEntityError,
  cappedErrors,
} from '../core/errors.js';
import { DEFAULT_LIMITS } from '../core/limits.js';
import { Attribute, Relationship, type ToMany, type ToOne } from '../dsl/fields.js';
import type { RegisteredResource } from '../registry/registry.js';
import { type ValidationResult, validateValue } from '../dsl/validation.js';
import type { Linkage, ResourceIdentifier, WriteValues } from '../core/vocabulary.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function structure(pointer: string, detail: string): BadRequestError {
  return new BadRequestError({ detail, source: { pointer }, code: 'invalid_document' });
}

/** Checks the top level of a request document and returns `data` (400 for the first wrong member). */
export function topLevelData(body: unknown): unknown {
  if (!isObject(body)) throw structure('', 'The request document must be a JSON object');
  for (const member of Object.keys(body)) {
    if (member !== 'data' && member !== 'meta' && member !== 'jsonapi' && member !== 'links') {
      throw structure(`/${escape(member)}`, `"${member}" is not a member a request document may have`);
    }
  }
  if (!('data' in body)) throw structure('', 'The request document must have a "data" member');
  return body.data;
}

/** Escapes a member name for a JSON Pointer (RFC 6901). */
export function escape(member: string): string {
  return member.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Reads a resource identifier object at `pointer` (400 when malformed). */
export function readIdentifier(value: unknown, pointer: string): ResourceIdentifier {
  if (!isObject(value)) throw structure(pointer, 'A resource identifier object must be a JSON object');
  for (const member of Object.keys(value)) {
    if (member !== 'type' && member !== 'id' && member !== 'meta') {
      throw structure(`${pointer}/${escape(member)}`, `"${member}" is not a member of a resource identifier object`);
    }
  }
  if (typeof value.type !== 'string')
    throw structure('type' in value ? `${pointer}/type` : pointer, 'A resource identifier needs a string "type"');
  if (typeof value.id !== 'string')
    throw structure('id' in value ? `${pointer}/id` : pointer, 'A resource identifier needs a string "id"');
  return { type: value.type, id: value.id };
}

/** Reads relationship linkage (`data` of a relationship) for `relationship` at `pointer`. */
export function readLinkage(relationship: ToOne | ToMany, value: unknown, pointer: string): Linkage {
  if (relationship.cardinality === 'one') {
    if (value === null) return null;
    if (Array.isArray(value))
      throw structure(
        pointer,
        `${relationship.name} is a to-one relationship: data must be a resource identifier or null`,
      );
    return readIdentifier(value, pointer);
  }
  if (!Array.isArray(value))
    throw structure(
      pointer,
      `${relationship.name} is a to-many relationship: data must be an array of resource identifiers`,
    );
  return value.map((item, i) => readIdentifier(item, `${pointer}/${i}`));
}

/** 409 for identifiers of another type than the relationship's; the first `limit` + 1 of them at most (then the caller stops). */
export function linkageTypeErrors(
  relationship: ToOne | ToMany,
  linkage: Linkage,
  pointer: string,
  limit = DEFAULT_LIMITS.errors,
): JsonApiError[] {
  const list = linkage === null ? [] : Array.isArray(linkage) ? linkage : [linkage];
  const errors: JsonApiError[] = [];
  for (let i = 0; i < list.length && errors.length <= limit; i++) {
    const identifier = list[i]!;
    if (identifier.type === relationship.relatedType) continue;
    errors.push(
      new ConflictError({
        detail: `${relationship.name} relates to ${relationship.relatedType}, not ${identifier.type}`,
        source: { pointer: Array.isArray(linkage) ? `${pointer}/${i}/type` : `${pointer}/type` },
        code: 'type_mismatch',
      }),
    );
  }
  return errors;
}

/** 422 `required` for `field`, left out of a create: at the object that lacks it, or at `/data`. */
function missing(field: Attribute | Relationship, data: Json): JsonApiError {
  const where =
    field instanceof Attribute
      ? 'attributes' in data
        ? '/data/attributes'
        : '/data'
      : 'relationships' in data
        ? '/data/relationships'
        : '/data';
  return new UnprocessableEntityError({
    detail: `${field.name} is required`,
    source: { pointer: where },
    code: 'required',
  });
}

/**
 * A create's required members, checked on the values its `saving` hooks gave (which may fill in
 * what the client left out): 422 `required` for each still missing.
 */
export function checkRequired(body: unknown, values: WriteValues, options: ResourceDocumentOptions): void {
  const data = (body as { data: Json }).data;
  const errors: JsonApiError[] = [];
  for (const field of options.resource.fields.values()) {
    if (!field.isRequired || !field.isVisibleFor(undefined, options.context)) continue;
    const given = field instanceof Attribute ? values.attributes[field.name] : values.relationships[field.name];
    if (given === undefined) errors.push(missing(field, data));
  }
  if (errors.length > 0) throw cappedErrors(errors, options.maxErrors ?? DEFAULT_LIMITS.errors);
}

/** What the resource document of a create or update is checked against. */
export interface ResourceDocumentOptions {
  resource: RegisteredResource;
  context: Context;
  mode: 'create' | 'update';
  /** Update: the id in the URL. */
  id?: string;
  /** Create: whether client-generated ids are accepted. */
  clientIds?: boolean;
  /** Update: the model being changed (field visibility callbacks see it). */
  model?: unknown;
  /** Errors listed at most (`limits.errors`); checking stops once more are found. */
  maxErrors?: number;
  /** Create: leave required members to `checkRequired`, after the endpoint's `saving` hooks. */
  deferRequired?: boolean;
}

/**
 * Reads the resource document of a create or update. Structure problems are answered at once
 * (400, first wrong member); field problems are gathered and answered together, up to
 * `maxErrors`: once more are found, checking stops (a body of 90,000 unknown attributes costs
 * as much as one of 101) and the answer ends with an error saying there are more.
 */
export async function readResourceDocument(body: unknown, options: ResourceDocumentOptions): Promise<WriteValues> {
  const { resource, mode, context } = options;
  const data = topLevelData(body);
  if (!isObject(data)) throw structure('/data', 'data must be a resource object');
  for (const member of Object.keys(data)) {
    if (!['type', 'id', 'lid', 'attributes', 'relationships', 'meta', 'links'].includes(member)) {
      throw structure(`/data/${escape(member)}`, `"${member}" is not a member of a resource object`);
    }
  }
  if (typeof data.type !== 'string')
    throw structure('type' in data ? '/data/type' : '/data', 'data needs a string "type"');
  if ('id' in data && typeof data.id !== 'string') throw structure('/data/id', '"id" must be a string');
  if ('attributes' in data && !isObject(data.attributes))
    throw structure('/data/attributes', 'attributes must be an object');
  if ('relationships' in data && !isObject(data.relationships))
    throw structure('/data/relationships', 'relationships must be an object');

  if (data.type !== resource.type) {
    throw new ConflictError({
      detail: `This endpoint takes ${resource.type}, not ${data.type}`,
      source: { pointer: '/data/type' },
      code: 'type_mismatch',
    });
  }
  const values: WriteValues = {
    attributes: Object.create(null) as WriteValues['attributes'],
    relationships: Object.create(null) as WriteValues['relationships'],
  };
  if (mode === 'update') {
    if (typeof data.id !== 'string') throw structure('/data', 'data needs the "id" of the resource being updated');
    if (data.id !== options.id) {
      throw new ConflictError({
        detail: `The id ${data.id} does not match the URL's ${options.id}`,
        source: { pointer: '/data/id' },
        code: 'id_mismatch',
      });
    }
  } else if (typeof data.id === 'string') {
    if (!options.clientIds)
      throw new ForbiddenError({
        detail: `${resource.type} does not accept client-generated ids`,
        source: { pointer: '/data/id' },
        code: 'client_id',
      });
    values.id = data.id;
  }

  const limit = options.maxErrors ?? DEFAULT_LIMITS.errors;
  const errors: JsonApiError[] = [];
  const invalid = (pointer: string, detail: string, code = 'invalid_value') =>
    errors.push(new UnprocessableEntityError({ detail, source: { pointer }, code }));
  // Writing a read-only field is an unsupported update: 403 (JSON:API 1.1, "Updating a
  // Resource's Attributes/Relationships"). It outranks the 422s: the request is refused as such.
  const refused: JsonApiError[] = [];
  const readOnly = (pointer: string, name: string) =>
    refused.push(new ForbiddenError({ detail: `${name} is read-only`, source: { pointer }, code: 'read_only' }));
  // Past the limit, what is left of the document is not looked at.
  const full = () => errors.length + refused.length > limit;

  // A field the request may not see is, to it, a field that does not exist.
  const known = (name: string) => {
    const field = resource.fields.get(name);
    return field && field.isVisibleFor(options.model, context) ? field : undefined;
  };
  const attributes = (data.attributes ?? {}) as Json;
  for (const name of Object.keys(attributes)) {
    if (full()) break;
    const pointer = `/data/attributes/${escape(name)}`;
    const field = known(name);
    if (!(field instanceof Attribute)) {
      invalid(
        pointer,
        field
          ? `${name} is a relationship; send it under relationships`
          : `${resource.type} has no attribute "${name}"`,
        'unknown_field',
      );
    } else if (!field.isWritable || (field.hasWritePolicy && !(await field.mayWrite(options.model, context)))) {
      readOnly(pointer, name);
    } else {
      const result: ValidationResult = await validateValue(field, attributes[name], context);
      if (result.ok) values.attributes[name] = result.value;
      else for (const problem of result.problems) invalid(pointer, `${name} ${problem}`);
    }
  }

  const relationships = (data.relationships ?? {}) as Json;
  for (const name of Object.keys(relationships)) {
    if (full()) break;
    const pointer = `/data/relationships/${escape(name)}`;
    const field = known(name);
    if (!(field instanceof Relationship)) {
      invalid(
        pointer,
        field ? `${name} is an attribute; send it under attributes` : `${resource.type} has no relationship "${name}"`,
        'unknown_field',
      );
      continue;
    }
    const member = relationships[name];
    if (!isObject(member) || !('data' in member))
      throw structure(pointer, `relationship ${name} must be an object with a "data" member`);
    const linkage = readLinkage(field, member.data, `${pointer}/data`);
    if (!field.isWritable || (field.hasWritePolicy && !(await field.mayWrite(options.model, context)))) {
      readOnly(pointer, name);
      continue;
    }
    if (linkage === null && field.isRequired) {
      invalid(`${pointer}/data`, `${name} is required and cannot be cleared`, 'required');
      continue;
    }
    const conflicts = linkageTypeErrors(field, linkage, `${pointer}/data`, limit);
    errors.push(...conflicts);
    if (conflicts.length === 0) values.relationships[name] = linkage;
  }

  if (mode === 'create') {
    for (const field of resource.fields.values()) {
      if (full()) break;
      if (field.name in values.attributes || field.name in values.relationships || !known(field.name)) continue;
      if (field instanceof Attribute && field.hasDefault) {
        values.attributes[field.name] = field.defaultValue(context);
      } else if (
        !options.deferRequired &&
        field.isRequired &&
        !(field.name in attributes) &&
        !(field.name in relationships)
      ) {
        errors.push(missing(field, data));
      }
    }
  }
  const stopped = full();
  if (refused.length > 0) throw cappedErrors(refused, limit, stopped);
  if (errors.length > 0) throw cappedErrors(errors, limit, stopped);
  return values;
}
