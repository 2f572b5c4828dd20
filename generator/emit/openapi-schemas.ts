/**
 * `components.schemas` of the OpenAPI document: the shared JSON:API members (errors, links,
 * meta), then per resource its identifier, attributes, relationships, resource object,
 * documents and the request bodies of Create and Update. Each is defined once and referenced.
 */
import type { ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';
import type { ApiModel, AttributeModel, RelationshipModel, ResourceModel } from '../ir.js';
import { pascalCase } from '../naming.js';
import { oneLine } from './helpers.js';
import { ref } from './openapi-vocabulary.js';

/** The JSON Schema of a value of an attribute's kind, without constraints or null. */
export function kindSchema(attribute: Pick<AttributeModel, 'kind' | 'enumValues'>): SchemaObject {
  return oneLine(kindSchemaOf(attribute));
}

function kindSchemaOf(attribute: Pick<AttributeModel, 'kind' | 'enumValues'>): SchemaObject {
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
}

/** The JSON Schema of an attribute's value, with the constraints the schema declares (`maxLength`, `minimum`, ...). */
export function attributeSchema(attribute: AttributeModel): SchemaObject {
  const base = kindSchema(attribute);
  const constrained: SchemaObject = { ...base, ...attribute.constraints };
  if (!attribute.nullable) return oneLine(constrained);
  return oneLine({
    ...constrained,
    type: [base.type as string, 'null'],
    ...(base.enum && { enum: [...(base.enum as unknown[]), null] }),
  } as SchemaObject);
}

/** The members every document shares, and `Resource`: any resource object of the API. */
export function commonSchemas(model: ApiModel): Array<[string, SchemaObject]> {
  return [
    ['JsonApi', { type: 'object', properties: { version: { type: 'string' } } }],
    ['Meta', { type: 'object', additionalProperties: true }],
    ['Links', { type: 'object', additionalProperties: { type: ['string', 'null'] } }],
    [
      'RelationshipLinks',
      {
        type: 'object',
        required: ['self', 'related'],
        properties: { self: { type: 'string' }, related: { type: 'string' } },
      },
    ],
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
    [
      'ErrorDocument',
      {
        type: 'object',
        required: ['errors'],
        properties: { jsonapi: ref('JsonApi'), errors: { type: 'array', items: ref('Error') }, meta: ref('Meta') },
      },
    ],
    ['Resource', { oneOf: model.resources.map((r) => ref(`${r.names.pascal}Resource`)) }],
  ];
}

function identifierSchema(resource: ResourceModel): SchemaObject {
  return {
    type: 'object',
    required: ['type', 'id'],
    properties: { type: { const: resource.type }, id: { type: 'string' } },
  };
}

/** A relationship's `data`: identifiers of the related type (to-one: or null, unless `nullable` is false). */
export function linkageSchema(relationship: RelationshipModel, nullable = true): SchemaObject | ReferenceObject {
  const identifier = ref(`${pascalCase(relationship.relatedType)}Identifier`);
  if (relationship.cardinality === 'many') return { type: 'array', items: identifier };
  return nullable ? { oneOf: [identifier, { type: 'null' }] } : identifier;
}

/** A countable relationship's `meta`: its `count` when `withCount` names it. */
const COUNT_META: SchemaObject = {
  type: 'object',
  properties: {
    count: {
      type: 'integer',
      minimum: 0,
      description:
        'How many related resources there are (those the request may see), when `withCount` names the relationship.',
    },
  },
};

/** The schemas of one resource, named after it (`ArticlesResource`, `ArticlesDocument`, ...). */
export function resourceSchemas(resource: ResourceModel): Array<[string, SchemaObject]> {
  const { pascal } = resource.names;
  const schemas: Array<[string, SchemaObject]> = [
    [`${pascal}Identifier`, identifierSchema(resource)],
    [
      `${pascal}Attributes`,
      { type: 'object', properties: Object.fromEntries(resource.attributes.map((a) => [a.name, attributeSchema(a)])) },
    ],
    [
      `${pascal}Relationships`,
      {
        type: 'object',
        properties: Object.fromEntries(
          resource.relationships.map((r) => [
            r.name,
            {
              type: 'object',
              properties: {
                links: ref('RelationshipLinks'),
                data: linkageSchema(r),
                ...(r.countable && { meta: COUNT_META }),
              },
            },
          ]),
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
          ...(resource.meta.length > 0 && { meta: ref(`${pascal}Meta`) }),
        },
        // Meta is served whatever sparse fieldsets ask: required where declared.
        ...(resource.meta.length > 0 && { required: ['type', 'id', 'meta'] }),
      },
    ],
    ...(resource.meta.length > 0 ? ([[`${pascal}Meta`, metaSchema(resource)]] as Array<[string, SchemaObject]>) : []),
    [`${pascal}Document`, documentSchema(ref(`${pascal}Resource`))],
    [`${pascal}CollectionDocument`, documentSchema({ type: 'array', items: ref(`${pascal}Resource`) })],
  ];
  if (resource.endpoints.create) schemas.push([`${pascal}CreateRequest`, writeSchema(resource, 'create')]);
  if (resource.endpoints.update) schemas.push([`${pascal}UpdateRequest`, writeSchema(resource, 'update')]);
  return schemas;
}

/** The declared meta members of a resource object, each always there. */
function metaSchema(resource: ResourceModel): SchemaObject {
  const types: Record<string, SchemaObject> = {
    string: { type: 'string' },
    integer: { type: 'integer' },
    number: { type: 'number' },
    boolean: { type: 'boolean' },
    'date-time': { type: 'string', format: 'date-time' },
    json: {},
  };
  return {
    type: 'object',
    required: resource.meta.map((m) => m.name),
    properties: Object.fromEntries(
      resource.meta.map((m) => {
        const schema = types[m.kind]!;
        const nullable: SchemaObject = { ...schema, type: [schema.type as 'string', 'null'] };
        return [m.name, m.nullable && m.kind !== 'json' ? nullable : schema];
      }),
    ),
  };
}

/** A top-level document whose primary data is `data`. */
export function documentSchema(data: SchemaObject | ReferenceObject): SchemaObject {
  return {
    type: 'object',
    required: ['data'],
    properties: {
      jsonapi: ref('JsonApi'),
      links: ref('Links'),
      data,
      included: { type: 'array', items: ref('Resource') },
      meta: ref('Meta'),
    },
  };
}

/** What the write body says of a field with a write policy (`writable(policy)`). */
const POLICY_NOTE = {
  create: 'Writable as a write policy of the API decides; refused with 403 (code read_only) otherwise.',
  update:
    'Writable as a write policy of the API decides for the resource being updated; refused with 403 (code read_only) otherwise.',
} as const;

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
  // A field with a write policy may be refused for the resource at hand: say so where a client reads the body's shape.
  const policy = (field: { hasWritePolicy: boolean }) =>
    field.hasWritePolicy ? { description: POLICY_NOTE[mode] } : {};
  const attributeSection = section(
    Object.fromEntries(
      attributes.map((a) => [a.name, a.hasWritePolicy ? { ...attributeSchema(a), ...policy(a) } : attributeSchema(a)]),
    ),
    required(attributes),
  );
  const relationshipSection = section(
    Object.fromEntries(
      relationships.map((r) => [
        r.name,
        {
          type: 'object',
          required: ['data'],
          properties: { data: linkageSchema(r, !r.required) },
          ...policy(r),
        } satisfies SchemaObject,
      ]),
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
