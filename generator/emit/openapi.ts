/**
 * `openapi.json`: an OpenAPI 3.1 document of every enabled endpoint, in JSON:API shape, built
 * with openapi3-ts. Resources and paths come in type order; nothing depends on the machine.
 */
import { OpenApiBuilder, type OpenAPIObject, type OperationObject, type ParameterObject, type PathItemObject, type ReferenceObject, type ResponsesObject, type SchemaObject } from 'openapi3-ts/oas31';
import type { ApiModel, AttributeModel, RelationshipModel, ResourceModel } from '../ir.js';
import { pascalCase } from '../naming.js';
import { jsonHeader } from './helpers.js';

export const MEDIA_TYPE = 'application/vnd.api+json';
/** How deep `include` paths are listed; the server accepts deeper ones too. */
export const INCLUDE_DEPTH = 3;

/** The Atomic Operations extension's URI, and the media type its documents travel under. */
export const ATOMIC_URI = 'https://jsonapi.org/ext/atomic';
export const ATOMIC_MEDIA_TYPE = `${MEDIA_TYPE}; ext="${ATOMIC_URI}"`;

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const content = (schema: SchemaObject | ReferenceObject, mediaType = MEDIA_TYPE) => ({ [mediaType]: { schema } });

/** The error statuses a JSON:API endpoint may answer, each a named response of an errors document. */
const ERROR_RESPONSES = {
  '400': ['BadRequest', 'Bad Request: a malformed document or query parameter (`source.pointer` or `source.parameter` names it).'],
  '403': ['Forbidden', 'Forbidden: the request is not allowed (an endpoint callback, a read-only field, a client-generated id).'],
  '404': ['NotFound', 'Not Found: the resource, or a related resource the document names (`source.pointer`), does not exist.'],
  '406': ['NotAcceptable', 'Not Acceptable: the Accept header allows no media type the server answers.'],
  '409': ['Conflict', 'Conflict: a type or id that does not match the endpoint, or a value that must be unique.'],
  '413': ['ContentTooLarge', 'Content Too Large: the request body is larger than the server accepts.'],
  '415': ['UnsupportedMediaType', 'Unsupported Media Type: the body is not sent as the JSON:API media type (with only supported extensions).'],
  '422': ['UnprocessableContent', 'Unprocessable Content: field values that fail validation, each error pointing at its member.'],
  '500': ['Error', 'An unexpected error; the errors document says nothing of it.'],
} as const;
type ErrorStatus = keyof typeof ERROR_RESPONSES;
const errorRef = (status: ErrorStatus): ReferenceObject => ({ $ref: `#/components/responses/${ERROR_RESPONSES[status][0]}` });

export interface OpenApiOptions {
  readonly title?: string;
  readonly version?: string;
}

export function emitOpenApi(model: ApiModel, options: OpenApiOptions = {}): OpenAPIObject {
  const builder = new OpenApiBuilder({
    openapi: '3.1.0',
    info: { title: options.title ?? 'JSON:API', version: options.version ?? '1.0.0' },
    paths: {},
  });
  for (const [name, schema] of commonSchemas(model)) builder.addSchema(name, schema);
  for (const resource of model.resources) {
    for (const [name, schema] of resourceSchemas(resource)) builder.addSchema(name, schema);
  }
  for (const [name, description] of Object.values(ERROR_RESPONSES)) {
    builder.addResponse(name, { description, content: content(ref('ErrorDocument')) });
  }
  builder.addParameter('id', { name: 'id', in: 'path', required: true, description: 'The resource id.', schema: { type: 'string' } });
  const byType = new Map(model.resources.map((r) => [r.type, r]));
  for (const resource of model.resources) {
    for (const [path, item] of pathItems(resource, byType)) builder.addPath(path, item);
    builder.addTag({ name: resource.type });
  }
  const atomic = model.extensions.atomic;
  if (atomic) {
    for (const [name, schema] of atomicSchemas()) builder.addSchema(name, schema);
    builder.addPath(atomic.path, { post: atomicOperation() });
    builder.addTag({ name: 'operations', description: 'Atomic Operations (https://jsonapi.org/ext/atomic): several writes in order, in one transaction.' });
  }
  const spec = builder.getSpec();
  return {
    'x-generated': jsonHeader(model.schemaPath),
    openapi: spec.openapi,
    info: spec.info,
    tags: spec.tags,
    paths: spec.paths,
    components: { schemas: spec.components!.schemas!, responses: spec.components!.responses!, parameters: spec.components!.parameters! },
  } as OpenAPIObject;
}

/** The JSON Schema of an attribute's value. */
export function attributeSchema(attribute: AttributeModel): SchemaObject {
  const base: SchemaObject = (() => {
    switch (attribute.kind) {
      case 'string':
        return { type: 'string' };
      case 'integer':
        return { type: 'integer' };
      case 'number':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'date-time':
        return { type: 'string', format: 'date-time' };
      case 'date':
        return { type: 'string', format: 'date' };
      case 'enum':
        return { type: 'string', enum: [...attribute.enumValues] };
      case 'array':
        return { type: 'array', items: {} };
      case 'object':
        return { type: 'object' };
    }
  })();
  if (!attribute.nullable) return base;
  return { ...base, type: [base.type as string, 'null'], ...(base.enum && { enum: [...base.enum, null] }) } as SchemaObject;
}

function commonSchemas(model: ApiModel): Array<[string, SchemaObject]> {
  return [
    ['JsonApi', { type: 'object', properties: { version: { type: 'string' } } }],
    ['Meta', { type: 'object', additionalProperties: true }],
    ['Links', { type: 'object', additionalProperties: { type: ['string', 'null'] } }],
    ['RelationshipLinks', { type: 'object', required: ['self', 'related'], properties: { self: { type: 'string' }, related: { type: 'string' } } }],
    [
      'Error',
      {
        type: 'object',
        properties: {
          id: { type: 'string' },
          status: { type: 'string' },
          code: { type: 'string' },
          title: { type: 'string' },
          detail: { type: 'string' },
          source: {
            type: 'object',
            properties: { pointer: { type: 'string' }, parameter: { type: 'string' }, header: { type: 'string' } },
          },
          meta: ref('Meta'),
        },
      },
    ],
    ['ErrorDocument', { type: 'object', required: ['errors'], properties: { jsonapi: ref('JsonApi'), errors: { type: 'array', items: ref('Error') }, meta: ref('Meta') } }],
    ['Resource', { oneOf: model.resources.map((r) => ref(`${r.names.pascal}Resource`)) }],
  ];
}

function identifierSchema(resource: ResourceModel): SchemaObject {
  return { type: 'object', required: ['type', 'id'], properties: { type: { const: resource.type }, id: { type: 'string' } } };
}

function linkageSchema(relationship: RelationshipModel, nullable = true): SchemaObject | ReferenceObject {
  const identifier = ref(`${pascalCase(relationship.relatedType)}Identifier`);
  if (relationship.cardinality === 'many') return { type: 'array', items: identifier };
  return nullable ? { oneOf: [identifier, { type: 'null' }] } : identifier;
}

function resourceSchemas(resource: ResourceModel): Array<[string, SchemaObject]> {
  const { pascal } = resource.names;
  const schemas: Array<[string, SchemaObject]> = [
    [`${pascal}Identifier`, identifierSchema(resource)],
    [`${pascal}Attributes`, { type: 'object', properties: Object.fromEntries(resource.attributes.map((a) => [a.name, attributeSchema(a)])) }],
    [
      `${pascal}Relationships`,
      {
        type: 'object',
        properties: Object.fromEntries(
          resource.relationships.map((r) => [r.name, { type: 'object', properties: { links: ref('RelationshipLinks'), data: linkageSchema(r) } }]),
        ),
      },
    ],
    [
      `${pascal}Resource`,
      {
        type: 'object',
        required: ['type', 'id'],
        properties: {
          type: { const: resource.type },
          id: { type: 'string' },
          attributes: ref(`${pascal}Attributes`),
          relationships: ref(`${pascal}Relationships`),
          links: ref('Links'),
        },
      },
    ],
    [`${pascal}Document`, documentSchema(ref(`${pascal}Resource`))],
    [`${pascal}CollectionDocument`, documentSchema({ type: 'array', items: ref(`${pascal}Resource`) })],
  ];
  if (resource.endpoints.create) schemas.push([`${pascal}CreateRequest`, writeSchema(resource, 'create')]);
  if (resource.endpoints.update) schemas.push([`${pascal}UpdateRequest`, writeSchema(resource, 'update')]);
  return schemas;
}

function documentSchema(data: SchemaObject | ReferenceObject): SchemaObject {
  return {
    type: 'object',
    required: ['data'],
    properties: { jsonapi: ref('JsonApi'), links: ref('Links'), data, included: { type: 'array', items: ref('Resource') }, meta: ref('Meta') },
  };
}

/** The request body of Create or Update: writable fields only; Create requires the required ones. */
function writeSchema(resource: ResourceModel, mode: 'create' | 'update'): SchemaObject {
  const attributes = resource.attributes.filter((a) => a.writable);
  const relationships = resource.relationships.filter((r) => r.writable);
  const required = (list: ReadonlyArray<{ name: string; required: boolean }>) =>
    mode === 'create' ? list.filter((f) => f.required).map((f) => f.name) : [];
  const section = (properties: Record<string, SchemaObject | ReferenceObject>, names: string[]): SchemaObject => ({
    type: 'object',
    ...(names.length > 0 && { required: names }),
    properties,
    additionalProperties: false,
  });
  const attributeSection = section(Object.fromEntries(attributes.map((a) => [a.name, attributeSchema(a)])), required(attributes));
  const relationshipSection = section(
    Object.fromEntries(
      relationships.map((r) => [r.name, { type: 'object', required: ['data'], properties: { data: linkageSchema(r, !r.required) } } satisfies SchemaObject]),
    ),
    required(relationships),
  );
  const dataRequired = ['type', ...(mode === 'update' ? ['id'] : [])];
  if (attributeSection.required) dataRequired.push('attributes');
  if (relationshipSection.required) dataRequired.push('relationships');
  return {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: dataRequired,
        properties: {
          type: { const: resource.type },
          ...(mode === 'update' && { id: { type: 'string' } }),
          ...(attributes.length > 0 && { attributes: attributeSection }),
          ...(relationships.length > 0 && { relationships: relationshipSection }),
        },
      },
    },
  };
}

/** Every `include` path from `resource`, to `INCLUDE_DEPTH`, never taking the same relationship twice. */
export function includePaths(resource: ResourceModel, byType: ReadonlyMap<string, ResourceModel>): string[] {
  const paths: string[] = [];
  const walk = (from: ResourceModel, prefix: string, used: ReadonlySet<string>, depth: number) => {
    if (depth > INCLUDE_DEPTH) return;
    for (const r of from.relationships) {
      const edge = `${from.type}.${r.name}`;
      if (!r.includable || used.has(edge)) continue;
      const path = prefix ? `${prefix}.${r.name}` : r.name;
      paths.push(path);
      const next = byType.get(r.relatedType);
      if (next) walk(next, path, new Set([...used, edge]), depth + 1);
    }
  };
  walk(resource, '', new Set(), 1);
  return paths.sort();
}

/** The types whose resources a response of `resource` may carry (itself and everything includable). */
function reachableTypes(resource: ResourceModel, byType: ReadonlyMap<string, ResourceModel>): string[] {
  const seen = new Set([resource.type]);
  const queue = [resource];
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const r of next.relationships) {
      const related = byType.get(r.relatedType);
      if (r.includable && related && !seen.has(related.type)) {
        seen.add(related.type);
        queue.push(related);
      }
    }
  }
  return [...seen].sort();
}

const list = (values: readonly string[]): SchemaObject => ({ type: 'array', items: { type: 'string', enum: [...values] }, uniqueItems: true });

function readParameters(resource: ResourceModel, byType: ReadonlyMap<string, ResourceModel>): ParameterObject[] {
  const parameters: ParameterObject[] = [];
  const paths = includePaths(resource, byType);
  if (paths.length > 0) {
    parameters.push({
      name: 'include',
      in: 'query',
      description: `Related resources to include, comma-separated (paths listed to depth ${INCLUDE_DEPTH}).`,
      style: 'form',
      explode: false,
      schema: list(paths),
    });
  }
  for (const type of reachableTypes(resource, byType)) {
    const fields = byType.get(type)!;
    const names = [...fields.attributes.map((a) => a.name), ...fields.relationships.map((r) => r.name)];
    parameters.push({ name: `fields[${type}]`, in: 'query', description: `The fields of ${type} to return, comma-separated.`, style: 'form', explode: false, schema: list(names) });
  }
  return parameters;
}

function collectionParameters(resource: ResourceModel): ParameterObject[] {
  const index = resource.endpoints.index!;
  const parameters: ParameterObject[] = [];
  if (resource.sorts.length > 0) {
    parameters.push({
      name: 'sort',
      in: 'query',
      description: `Sort terms, comma-separated; a leading - sorts descending.${index.defaultSort ? ` Default: ${index.defaultSort}.` : ''}`,
      style: 'form',
      explode: false,
      schema: list(resource.sorts.flatMap((s) => [s, `-${s}`])),
    });
  }
  for (const filter of resource.filters) {
    parameters.push({ name: `filter[${filter}]`, in: 'query', description: `Filter by ${filter}.`, schema: { type: 'string' } });
  }
  if (index.pagination) {
    parameters.push(
      { name: 'page[offset]', in: 'query', description: 'How many resources to skip.', schema: { type: 'integer', minimum: 0, default: 0 } },
      {
        name: 'page[limit]',
        in: 'query',
        description: `How many resources per page (at most ${index.pagination.maxLimit}).`,
        schema: { type: 'integer', minimum: 1, maximum: index.pagination.maxLimit, default: index.pagination.defaultLimit },
      },
    );
  }
  return parameters;
}

const READ_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406'];
/** Create, Update: a document is read (400, 413, 415), checked (409, 422) and its relationships looked up (404). */
const WRITE_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406', '409', '413', '415', '422'];
/** Relationship PATCH / POST / DELETE: linkage is read and checked; 422 for clearing a required to-one. */
const LINKAGE_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406', '409', '413', '415', '422'];
const DELETE_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406'];

function responses(success: ResponsesObject, errors: readonly ErrorStatus[]): ResponsesObject {
  return { ...success, ...Object.fromEntries(errors.map((status) => [status, errorRef(status)])), '500': errorRef('500') };
}

const noContent = (description: string): ResponsesObject => ({ '204': { description } });

function ok(description: string, schema: SchemaObject | ReferenceObject, status = '200'): ResponsesObject {
  return { [status]: { description, content: content(schema) } };
}

function pathItems(resource: ResourceModel, byType: ReadonlyMap<string, ResourceModel>): Array<[string, PathItemObject]> {
  const { type, names, endpoints } = resource;
  const { pascal } = names;
  const tags = [type];
  const items: Array<[string, PathItemObject]> = [];
  const idParameter: ReferenceObject = { $ref: '#/components/parameters/id' };
  const body = (name: string) => ({ required: true, content: content(ref(name)) });

  const collection: PathItemObject = {};
  if (endpoints.index) {
    collection.get = {
      operationId: `list${pascal}`,
      summary: `List ${type}`,
      tags,
      parameters: [...readParameters(resource, byType), ...collectionParameters(resource)],
      responses: responses(ok(`A page of ${type}.`, ref(`${pascal}CollectionDocument`)), ['400', '403', '406']),
    };
  }
  if (endpoints.create) {
    collection.post = {
      operationId: `create${pascal}`,
      summary: `Create a ${type} resource`,
      tags,
      requestBody: body(`${pascal}CreateRequest`),
      responses: responses(
        {
          '201': {
            description: `The created ${type} resource.`,
            headers: { Location: { description: 'The URL of the created resource.', schema: { type: 'string', format: 'uri' } } },
            content: content(ref(`${pascal}Document`)),
          },
        },
        WRITE_ERRORS,
      ),
    };
  }
  if (Object.keys(collection).length > 0) items.push([`/${type}`, collection]);

  const single: PathItemObject = {};
  if (endpoints.show) {
    single.get = {
      operationId: `get${pascal}`,
      summary: `Fetch a ${type} resource`,
      tags,
      parameters: readParameters(resource, byType),
      responses: responses(ok(`The ${type} resource.`, ref(`${pascal}Document`)), READ_ERRORS),
    };
  }
  if (endpoints.update) {
    single.patch = {
      operationId: `update${pascal}`,
      summary: `Update a ${type} resource`,
      tags,
      requestBody: body(`${pascal}UpdateRequest`),
      responses: responses(ok(`The updated ${type} resource.`, ref(`${pascal}Document`)), WRITE_ERRORS),
    };
  }
  if (endpoints.delete) {
    single.delete = {
      operationId: `delete${pascal}`,
      summary: `Delete a ${type} resource`,
      tags,
      responses: responses(noContent('Deleted.'), DELETE_ERRORS),
    };
  }
  if (Object.keys(single).length > 0) items.push([`/${type}/{id}`, { parameters: [idParameter], ...single }]);

  for (const relationship of resource.relationships) {
    const related = byType.get(relationship.relatedType)!;
    const relatedPascal = related.names.pascal;
    const relName = pascalCase(relationship.name);
    const many = relationship.cardinality === 'many';
    const linkagePath: PathItemObject = { parameters: [idParameter] };
    if (endpoints.show) {
      const data: SchemaObject | ReferenceObject = many ? { type: 'array', items: ref(`${relatedPascal}Resource`) } : { oneOf: [ref(`${relatedPascal}Resource`), { type: 'null' }] };
      const relatedGet: OperationObject = {
        operationId: `get${pascal}${relName}`,
        summary: `Fetch the ${relationship.name} of a ${type} resource`,
        tags,
        parameters: readParameters(related, byType),
        responses: responses(ok(`The related ${related.type}.`, documentSchema(data)), READ_ERRORS),
      };
      items.push([`/${type}/{id}/${relationship.name}`, { parameters: [idParameter], get: relatedGet }]);
      linkagePath.get = {
        operationId: `get${pascal}${relName}Relationship`,
        summary: `Fetch the ${relationship.name} linkage of a ${type} resource`,
        tags,
        responses: responses(
          ok(`The ${relationship.name} linkage.`, {
            type: 'object',
            required: ['data'],
            properties: { jsonapi: ref('JsonApi'), links: ref('Links'), data: linkageSchema(relationship), meta: ref('Meta') },
          }),
          READ_ERRORS,
        ),
      };
    }
    // The runtime serves writes on a relationship of a resource with Update when it is writable
    // (others: 403); POST and DELETE only on to-many.
    if (endpoints.update && relationship.writable) {
      const linkageBody = (description: string) => ({
        required: true,
        description,
        content: content({ type: 'object', required: ['data'], properties: { data: linkageSchema(relationship, !relationship.required), meta: ref('Meta') } }),
      });
      linkagePath.patch = {
        operationId: `update${pascal}${relName}Relationship`,
        summary: many ? `Replace every member of the ${relationship.name} of a ${type} resource` : `Replace the ${relationship.name} of a ${type} resource`,
        tags,
        requestBody: linkageBody(many ? 'The new members (an empty array clears the relationship).' : relationship.required ? `The new ${relationship.name} (required: it cannot be cleared).` : `The new ${relationship.name}, or null to clear it.`),
        responses: responses(noContent('Replaced.'), LINKAGE_ERRORS),
      };
      if (many) {
        linkagePath.post = {
          operationId: `add${pascal}${relName}Relationship`,
          summary: `Add members to the ${relationship.name} of a ${type} resource`,
          tags,
          requestBody: linkageBody('Members to add; those already present are left as they are.'),
          responses: responses(noContent('Added.'), LINKAGE_ERRORS),
        };
        linkagePath.delete = {
          operationId: `remove${pascal}${relName}Relationship`,
          summary: `Remove members from the ${relationship.name} of a ${type} resource`,
          tags,
          requestBody: linkageBody('Members to remove; those not present are ignored.'),
          responses: responses(noContent('Removed.'), LINKAGE_ERRORS),
        };
      }
    }
    if (Object.keys(linkagePath).length > 1) items.push([`/${type}/{id}/relationships/${relationship.name}`, linkagePath]);
  }
  return items;
}

/** The documents of Atomic Operations: what `POST /operations` takes and answers. */
function atomicSchemas(): Array<[string, SchemaObject]> {
  const ref_: SchemaObject = {
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string' }, id: { type: 'string' }, lid: { type: 'string' }, relationship: { type: 'string' } },
    additionalProperties: false,
    description: 'The target: `type` with `id` or `lid`, and `relationship` to target a relationship.',
  };
  return [
    [
      'AtomicOperation',
      {
        type: 'object',
        required: ['op'],
        properties: {
          op: { type: 'string', enum: ['add', 'update', 'remove'] },
          ref: ref_,
          href: { type: 'string', description: 'The target as a URI-reference: a collection, a resource or a relationship.' },
          data: {
            description: 'A resource object (add, update; `lid` assigns a local identity), or relationship linkage (operations on a relationship).',
            oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }, { type: 'null' }],
          },
          meta: ref('Meta'),
        },
        not: { required: ['ref', 'href'] },
        additionalProperties: false,
      },
    ],
    [
      'AtomicOperationsDocument',
      {
        type: 'object',
        required: ['atomic:operations'],
        properties: { 'atomic:operations': { type: 'array', minItems: 1, items: ref('AtomicOperation') }, jsonapi: ref('JsonApi'), meta: ref('Meta'), links: ref('Links') },
        additionalProperties: false,
      },
    ],
    [
      'AtomicResult',
      {
        type: 'object',
        description: 'The result of the operation at the same position: the resource it created or updated as `data`, or `{}`.',
        properties: { data: ref('Resource'), meta: ref('Meta') },
      },
    ],
    [
      'AtomicResultsDocument',
      {
        type: 'object',
        required: ['atomic:results'],
        properties: { jsonapi: ref('JsonApi'), 'atomic:results': { type: 'array', items: ref('AtomicResult') }, meta: ref('Meta') },
      },
    ],
  ];
}

function atomicOperation(): OperationObject {
  return {
    operationId: 'operations',
    summary: 'Run Atomic Operations',
    description:
      'Runs the operations in order, in one transaction: all succeed, or nothing is written. Each runs through the same ' +
      'endpoint as its REST twin (same checks, same errors, pointers prefixed with `/atomic:operations/{i}`). ' +
      'Send and accept the media type with `ext="https://jsonapi.org/ext/atomic"`.',
    tags: ['operations'],
    requestBody: { required: true, content: content(ref('AtomicOperationsDocument'), ATOMIC_MEDIA_TYPE) },
    responses: responses(
      {
        '200': { description: 'Every operation succeeded; one result per operation, in order.', content: content(ref('AtomicResultsDocument'), ATOMIC_MEDIA_TYPE) },
        '204': { description: 'Every operation succeeded and none returns data.' },
      },
      ['400', '403', '404', '406', '409', '413', '415', '422'],
    ),
  };
}
