import type { Context } from './context.js';
import type { HttpRequest } from './http/request.js';
import type { ResourceLookup } from './document.js';
import { BadRequestError, ConflictError, ForbiddenError, JsonApiError, JsonApiErrors, NotFoundError, UnprocessableEntityError } from './errors.js';
import { DEFAULT_LIMITS, type Limits } from './limits.js';
import { Attribute, Relationship, type ToMany, type ToOne } from './fields.js';
import type { RegisteredResource } from './registry.js';
import { andThen, flow, isPromise, type MaybePromise, type Steps } from './types.js';
import { type ValidationResult, validateValue } from './validation.js';
import type { Linkage, ResourceIdentifier, WriteValues } from './vocabulary.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function structure(pointer: string, detail: string): BadRequestError {
  return new BadRequestError({ detail, source: { pointer }, code: 'invalid_document' });
}

/** 413: the body passes `limit` bytes. */
export function tooLarge(limit: number): JsonApiError {
  return new JsonApiError(413, {
    detail: `The request body may be at most ${limit} bytes`,
    source: { header: 'Content-Length' },
    code: 'limit_exceeded',
    meta: { limit },
  });
}

/**
 * Reads a request body as JSON: 413 past `limits.bodyBytes` (from `Content-Length` before
 * reading, else while streaming), 400 when it is empty, not UTF-8, malformed or nested deeper
 * than `limits.jsonDepth`.
 */
export async function readJson(request: HttpRequest, limits: Limits = DEFAULT_LIMITS): Promise<unknown> {
  const declared = request.header('content-length');
  if (declared !== null && Number(declared) > limits.bodyBytes) throw tooLarge(limits.bodyBytes);
  const bytes = await request.body(limits.bodyBytes);
  if (bytes === undefined) throw tooLarge(limits.bodyBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new BadRequestError({ detail: 'The request body is not valid UTF-8', code: 'invalid_json' });
  }
  if (text.trim() === '') throw new BadRequestError({ detail: 'The request body is empty; a JSON:API document is required', code: 'invalid_json' });
  if (nestingDepth(text) > limits.jsonDepth) {
    throw new BadRequestError({ detail: `The request body nests deeper than ${limits.jsonDepth} levels`, code: 'limit_exceeded', meta: { limit: limits.jsonDepth } });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError({ detail: `The request body is not valid JSON: ${(error as Error).message}`, code: 'invalid_json' });
  }
}

/** One decoder for every body: making one costs more than decoding a typical document (each `decode` starts afresh). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The deepest nesting of arrays and objects in JSON text, counted without parsing (strings skipped). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
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
  if (typeof value.type !== 'string') throw structure('type' in value ? `${pointer}/type` : pointer, 'A resource identifier needs a string "type"');
  if (typeof value.id !== 'string') throw structure('id' in value ? `${pointer}/id` : pointer, 'A resource identifier needs a string "id"');
  return { type: value.type, id: value.id };
}

/** Reads relationship linkage (`data` of a relationship) for `relationship` at `pointer`. */
export function readLinkage(relationship: ToOne | ToMany, value: unknown, pointer: string): Linkage {
  if (relationship.cardinality === 'one') {
    if (value === null) return null;
    if (Array.isArray(value)) throw structure(pointer, `${relationship.name} is a to-one relationship: data must be a resource identifier or null`);
    return readIdentifier(value, pointer);
  }
  if (!Array.isArray(value)) throw structure(pointer, `${relationship.name} is a to-many relationship: data must be an array of resource identifiers`);
  return value.map((item, i) => readIdentifier(item, `${pointer}/${i}`));
}

/** 409 for identifiers of another type than the relationship's. */
export function linkageTypeErrors(relationship: ToOne | ToMany, linkage: Linkage, pointer: string): JsonApiError[] {
  const list = linkage === null ? [] : Array.isArray(linkage) ? linkage : [linkage];
  return list.flatMap((identifier, i) =>
    identifier.type === relationship.relatedType
      ? []
      : [
          new ConflictError({
            detail: `${relationship.name} relates to ${relationship.relatedType}, not ${identifier.type}`,
            source: { pointer: Array.isArray(linkage) ? `${pointer}/${i}/type` : `${pointer}/type` },
            code: 'type_mismatch',
          }),
        ],
  );
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
}

/**
 * Reads the resource document of a create or update. Structure problems are answered at once
 * (400, first wrong member); every field problem is gathered and answered together. A promise
 * only when a validator answers with one.
 */
export function readResourceDocument(body: unknown, options: ResourceDocumentOptions): MaybePromise<WriteValues> {
  return flow(readDocument(body, options));
}

function* readDocument(body: unknown, options: ResourceDocumentOptions): Steps<WriteValues> {
  const { resource, mode, context } = options;
  const data = topLevelData(body);
  if (!isObject(data)) throw structure('/data', 'data must be a resource object');
  for (const member of Object.keys(data)) {
    if (!['type', 'id', 'lid', 'attributes', 'relationships', 'meta', 'links'].includes(member)) {
      throw structure(`/data/${escape(member)}`, `"${member}" is not a member of a resource object`);
    }
  }
  if (typeof data.type !== 'string') throw structure('type' in data ? '/data/type' : '/data', 'data needs a string "type"');
  if ('id' in data && typeof data.id !== 'string') throw structure('/data/id', '"id" must be a string');
  if ('attributes' in data && !isObject(data.attributes)) throw structure('/data/attributes', 'attributes must be an object');
  if ('relationships' in data && !isObject(data.relationships)) throw structure('/data/relationships', 'relationships must be an object');

  if (data.type !== resource.type) {
    throw new ConflictError({ detail: `This endpoint takes ${resource.type}, not ${data.type}`, source: { pointer: '/data/type' }, code: 'type_mismatch' });
  }
  const values: WriteValues = { attributes: Object.create(null), relationships: Object.create(null) };
  if (mode === 'update') {
    if (typeof data.id !== 'string') throw structure('/data', 'data needs the "id" of the resource being updated');
    if (data.id !== options.id) {
      throw new ConflictError({ detail: `The id ${data.id} does not match the URL's ${options.id}`, source: { pointer: '/data/id' }, code: 'id_mismatch' });
    }
  } else if (typeof data.id === 'string') {
    if (!options.clientIds) throw new ForbiddenError({ detail: `${resource.type} does not accept client-generated ids`, source: { pointer: '/data/id' }, code: 'client_id' });
    values.id = data.id;
  }

  const errors: JsonApiError[] = [];
  const invalid = (pointer: string, detail: string, code = 'invalid_value') =>
    errors.push(new UnprocessableEntityError({ detail, source: { pointer }, code }));
  // Writing a read-only field is an unsupported update: 403 (JSON:API 1.1, "Updating a
  // Resource's Attributes/Relationships"). It outranks the 422s: the request is refused as such.
  const refused: JsonApiError[] = [];
  const readOnly = (pointer: string, name: string) =>
    refused.push(new ForbiddenError({ detail: `${name} is read-only`, source: { pointer }, code: 'read_only' }));

  // A field the request may not see is, to it, a field that does not exist.
  const known = (name: string) => {
    const field = resource.fields.get(name);
    return field && field.isVisibleFor(options.model, context) ? field : undefined;
  };
  const attributes = (data.attributes ?? {}) as Json;
  for (const name of Object.keys(attributes)) {
    const pointer = `/data/attributes/${escape(name)}`;
    const field = known(name);
    if (!(field instanceof Attribute)) {
      invalid(pointer, field ? `${name} is a relationship; send it under relationships` : `${resource.type} has no attribute "${name}"`, 'unknown_field');
    } else if (!field.isWritable) {
      readOnly(pointer, name);
    } else {
      const result: ValidationResult = yield validateValue(field, attributes[name], context);
      if (result.ok) values.attributes[name] = result.value;
      else for (const problem of result.problems) invalid(pointer, `${name} ${problem}`);
    }
  }

  const relationships = (data.relationships ?? {}) as Json;
  for (const name of Object.keys(relationships)) {
    const pointer = `/data/relationships/${escape(name)}`;
    const field = known(name);
    if (!(field instanceof Relationship)) {
      invalid(pointer, field ? `${name} is an attribute; send it under attributes` : `${resource.type} has no relationship "${name}"`, 'unknown_field');
      continue;
    }
    const member = relationships[name];
    if (!isObject(member) || !('data' in member)) throw structure(pointer, `relationship ${name} must be an object with a "data" member`);
    const linkage = readLinkage(field as ToOne | ToMany, member.data, `${pointer}/data`);
    if (!field.isWritable) {
      readOnly(pointer, name);
      continue;
    }
    if (linkage === null && field.isRequired) {
      invalid(`${pointer}/data`, `${name} is required and cannot be cleared`, 'required');
      continue;
    }
    const conflicts = linkageTypeErrors(field as ToOne | ToMany, linkage, `${pointer}/data`);
    errors.push(...conflicts);
    if (conflicts.length === 0) values.relationships[name] = linkage;
  }

  if (mode === 'create') {
    for (const field of resource.fields.values()) {
      if (field.name in values.attributes || field.name in values.relationships || !known(field.name)) continue;
      if (field instanceof Attribute && field.hasDefault) {
        values.attributes[field.name] = field.defaultValue(context);
      } else if (field.isRequired && !(field.name in attributes) && !(field.name in relationships)) {
        const where = field instanceof Attribute ? ('attributes' in data ? '/data/attributes' : '/data') : 'relationships' in data ? '/data/relationships' : '/data';
        invalid(where, `${field.name} is required`, 'required');
      }
    }
  }
  if (refused.length > 0) throw new JsonApiErrors(refused);
  if (errors.length > 0) throw new JsonApiErrors(errors);
  return values;
}

/** Lookups `checkLinkageExists` runs at once (inside a transaction they queue on one connection anyway). */
const LINKAGE_LOOKUPS = 8;
/** The most ids one `findMany` call is given. */
const FIND_MANY_BATCH = 100;

/**
 * 404 for every identifier whose resource does not exist (through the related type's
 * `findMany`, else its `find`). Gathers all misses; one lookup per distinct identifier (or per
 * batch of them), a few at a time: a body naming the same or many resources thousands of times
 * costs a linear number of lookups, not a flood of concurrent ones (which a transaction's single
 * connection serves in quadratic time).
 */
export function checkLinkageExists(
  values: Pick<WriteValues, 'relationships'>,
  resource: RegisteredResource,
  lookup: ResourceLookup,
  context: Context,
  base = '/data/relationships',
): MaybePromise<void> {
  const lookups = new Map<string, { related: RegisteredResource; id: string }>();
  // Where each identifier was written; its pointer is built only if it turns out missing.
  const uses: Array<{ key: string; identifier: ResourceIdentifier; name: string; index: number | undefined }> = [];
  for (const name of Object.keys(values.relationships)) {
    const linkage = values.relationships[name]!;
    const relationship = resource.fields.get(name) as ToOne | ToMany;
    const related = lookup(relationship.relatedType)!;
    const list = linkage === null ? [] : Array.isArray(linkage) ? linkage : [linkage];
    list.forEach((identifier, i) => {
      const key = `${related.type}\u0000${identifier.id}`;
      if (!lookups.has(key)) lookups.set(key, { related, id: identifier.id });
      uses.push({ key, identifier, name, index: Array.isArray(linkage) ? i : undefined });
    });
  }
  const exists = new Map<string, boolean>();
  // One task per id, or per batch of ids (key and id) of a type whose data layer has findMany.
  const tasks: Array<() => MaybePromise<void>> = [];
  const filling = new Map<RegisteredResource, Array<[key: string, id: string]>>();
  for (const [key, { related, id }] of lookups) {
    const { find, findMany } = related.definition;
    if (!findMany) {
      tasks.push(() =>
        andThen(find ? find.call(related.definition, id, context) : null, (model) => {
          exists.set(key, model !== null && model !== undefined);
        }),
      );
      continue;
    }
    let batch = filling.get(related);
    if (!batch || batch.length === FIND_MANY_BATCH) {
      const chunk: Array<[string, string]> = (batch = []);
      filling.set(related, chunk);
      tasks.push(() =>
        andThen(findMany.call(related.definition, chunk.map(([, one]) => one), context), (models) => {
          if (!Array.isArray(models) || models.length !== chunk.length) {
            throw new TypeError(`${related.type}.findMany returned ${Array.isArray(models) ? models.length : typeof models} models for ${chunk.length} ids`);
          }
          chunk.forEach(([one], i) => exists.set(one, models[i] !== null && models[i] !== undefined));
        }),
      );
    }
    batch.push([key, id]);
  }
  return andThen(runLookups(tasks), () => {
    const errors = uses
      .filter((use) => !exists.get(use.key))
      .map(({ identifier, name, index }) => {
        const pointer = `${base}${base.endsWith('/data') ? '' : `/${escape(name)}/data`}${index === undefined ? '' : `/${index}`}`;
        return new NotFoundError({ detail: `There is no ${identifier.type} with id "${identifier.id}"`, source: { pointer }, code: 'related_not_found' });
      });
    if (errors.length > 0) throw new JsonApiErrors(errors);
  });
}

/**
 * Runs lookups in order, synchronously while they answer at once; from the first one that
 * waits, up to `LINKAGE_LOOKUPS` at a time.
 */
function runLookups(tasks: ReadonlyArray<() => MaybePromise<void>>): MaybePromise<void> {
  let taken = 0;
  while (taken < tasks.length) {
    const running = tasks[taken++]!();
    if (isPromise(running)) {
      const worker = async (): Promise<void> => {
        while (taken < tasks.length) await tasks[taken++]!();
      };
      const workers = Array.from({ length: Math.min(LINKAGE_LOOKUPS - 1, tasks.length - taken) }, worker);
      return Promise.all([running, ...workers]).then(() => undefined);
    }
  }
  return undefined;
}
