/**
 * `resources/{type}.ts`: the resource's types (attributes, resource object, write payloads),
 * its data-layer interface and the factory binding the schema to a data layer.
 */
import { posix } from 'node:path';
import {
  type FunctionDeclarationStructure,
  type SourceFileStructure,
  type StatementStructures,
  StructureKind,
  VariableDeclarationKind,
} from 'ts-morph';
import type { ApiModel, AttributeModel, MetaModel, RelationshipModel, ResourceModel } from '../ir.js';
import { pascalCase, propertyAccess, quote } from '../naming.js';
import { capabilityImports, dataLayerTypes, hookImports, optionalAttribute } from './data-layer.js';
import {
  type Member,
  attributeTypeOf,
  blankLineAfterImports,
  header,
  importOf,
  interfaceOf,
  literal,
  objectLiteral,
  sortImports,
  typeAliasOf,
  typeLiteral,
  union,
} from './helpers.js';

/** The file name of a resource's module, relative to the output directory. */
export function resourceFile(resource: ResourceModel): string {
  return `resources/${resource.type}.ts`;
}

export function emitResource(model: ApiModel, resource: ResourceModel): SourceFileStructure {
  const { pascal } = resource.names;
  const related = [...new Set(resource.relationships.map((r) => r.relatedType))]
    .filter((t) => t !== resource.type)
    .sort();
  const support = [
    ...(resource.attributes.some((a) => a.kind === 'date') ? ['dateOnly'] : []),
    ...(resource.attributes.some((a) => a.kind === 'date-time') ? ['dateTime'] : []),
    ...(resource.attributes.some((a) => a.hasGetter) ? ['fieldGetter', 'toJson'] : []),
    ...(resource.relationships.some((r) => r.cardinality === 'one') ? ['type ToOneRelationship'] : []),
    ...(resource.relationships.some((r) => r.cardinality === 'many') ? ['type ToManyRelationship'] : []),
  ];
  const getters = resource.attributes.some((a) => a.hasGetter);
  const runtimeTypes = [
    ...capabilityImports(resource),
    'ResourceDefinition',
    'ResourceTypes',
    ...(getters ? ['Context', 'GetterModel'] : []),
    ...hookImports(resource),
    ...(resource.customFilters.length > 0 ? ['FilterValue'] : []),
    ...(resource.capabilities.includes('Filterable') ? ['FilterCondition'] : []),
  ];
  const imports = sortImports([
    importOf('jsonapi-gen', ['bindResource', ...runtimeTypes.map((t) => `type ${t}`)]),
    importOf(posix.join('..', model.schemaImport), [`${resource.exportName} as schema`]),
    ...(support.length > 0 ? [importOf('../support.js', support)] : []),
    ...related.map((type) => importOf(`./${type}.js`, relatedImports(resource, type), true)),
  ]);
  const statements: StatementStructures[] = [
    ...imports,
    typeAliasOf(`${pascal}Type`, literal(resource.type), `The type name \`${resource.type}\`.`),
    interfaceOf(
      `${pascal}Identifier`,
      [
        { name: 'type', type: `${pascal}Type` },
        { name: 'id', type: 'string' },
      ],
      {
        docs: `A resource identifier of type \`${resource.type}\`.`,
      },
    ),
    interfaceOf(`${pascal}Attributes`, resource.attributes.map(attributeMember), {
      docs: `The attributes of a resource of type \`${resource.type}\`, as responses carry them.`,
    }),
    ...(resource.relationships.length > 0
      ? [
          interfaceOf(`${pascal}Relationships`, resource.relationships.map(relationshipMember), {
            docs: `The relationships of a resource of type \`${resource.type}\`: \`data\` is there when included or declared \`withLinkage()\`.`,
          }),
        ]
      : []),
    ...(resource.meta.length > 0
      ? [
          interfaceOf(`${pascal}Meta`, resource.meta.map(metaMember), {
            docs: `The meta of a resource object of type \`${resource.type}\` (served whatever sparse fieldsets ask).`,
          }),
        ]
      : []),
    interfaceOf(`${pascal}Resource`, resourceObjectMembers(resource), {
      docs: `A resource object of type \`${resource.type}\` as responses carry it (without sparse fieldsets).`,
    }),
    ...payloads(resource),
    ...queryTypes(resource),
    ...dataLayerTypes(resource, attributeType),
    serializer(resource),
    ...factory(resource),
  ];
  return {
    kind: StructureKind.SourceFile,
    leadingTrivia: header(model.schemaPath) + '\n\n',
    statements: blankLineAfterImports(statements),
  };
}

/** The TypeScript type of an attribute's JSON value. */
export function attributeType(attribute: AttributeModel): string {
  const base = (() => {
    switch (attribute.kind) {
      case 'string':
      case 'date-time':
      case 'date':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'enum':
        return union(attribute.enumValues.map(literal));
      case 'array':
        return 'unknown[]';
      case 'object':
        return 'Record<string, unknown>';
    }
  })();
  return attribute.nullable ? `${base} | null` : base;
}

const KIND_DOCS: Partial<Record<AttributeModel['kind'], string>> = {
  'date-time': 'An ISO 8601 date-time.',
  date: 'An ISO 8601 date (YYYY-MM-DD).',
  integer: 'An integer.',
};

function attributeMember(attribute: AttributeModel): Member {
  const docs = KIND_DOCS[attribute.kind];
  return {
    name: attribute.name,
    type: attributeType(attribute),
    optional: optionalAttribute(attribute),
    ...(docs && { docs }),
  };
}

/** What a resource module imports from a related one: its identifier, and its model when loaders return it. */
function relatedImports(resource: ResourceModel, type: string): string[] {
  const pascal = pascalCase(type);
  return [`${pascal}Identifier`, ...(resource.capabilities.includes('Relatable') ? [`${pascal}Model`] : [])];
}

function identifierType(relationship: RelationshipModel): string {
  return `${pascalCase(relationship.relatedType)}Identifier`;
}

function relationshipMember(relationship: RelationshipModel): Member {
  const wrapper = relationship.cardinality === 'one' ? 'ToOneRelationship' : 'ToManyRelationship';
  return { name: relationship.name, type: `${wrapper}<${identifierType(relationship)}>` };
}

function resourceObjectMembers(resource: ResourceModel): Member[] {
  const { pascal } = resource.names;
  return [
    { name: 'type', type: `${pascal}Type` },
    { name: 'id', type: 'string' },
    ...(resource.attributes.length > 0 ? [{ name: 'attributes', type: `${pascal}Attributes` }] : []),
    ...(resource.relationships.length > 0 ? [{ name: 'relationships', type: `${pascal}Relationships` }] : []),
    { name: 'links', type: '{ self: string }' },
    ...(resource.meta.length > 0 ? [{ name: 'meta', type: `${pascal}Meta` }] : []),
  ];
}

/** The JSON type of each meta kind. */
const META_TYPES: Record<MetaModel['kind'], string> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  'date-time': 'string',
  json: 'unknown',
};

function metaMember(meta: MetaModel): Member {
  const type = META_TYPES[meta.kind];
  const docs = KIND_DOCS[meta.kind === 'json' ? 'object' : meta.kind];
  return {
    name: meta.name,
    type: meta.nullable && type !== 'unknown' ? `${type} | null` : type,
    ...(docs && { docs }),
  };
}

/** The linkage a write payload gives for a relationship. */
function linkageType(relationship: RelationshipModel): string {
  const identifier = identifierType(relationship);
  return relationship.cardinality === 'one'
    ? `{ data: ${identifier}${relationship.required ? '' : ' | null'} }`
    : `{ data: ${identifier}[] }`;
}

/** Create and update payloads: writable fields only; create requires the required ones. */
function payloads(resource: ResourceModel): StatementStructures[] {
  const { pascal } = resource.names;
  const attributes = resource.attributes.filter((a) => a.writable);
  const relationships = resource.relationships.filter((r) => r.writable);
  const data = (mode: 'create' | 'update'): string => {
    const attributeMembers = attributes.map((a) => ({
      name: a.name,
      type: attributeTypeOf(pascal, a.name),
      optional: mode === 'update' || !a.required,
    }));
    const relationshipMembers = relationships.map((r) => ({
      name: r.name,
      type: linkageType(r),
      optional: mode === 'update' || !r.required,
    }));
    const section = (name: string, members: Member[]): Member[] =>
      members.length === 0 ? [] : [{ name, type: typeLiteral(members), optional: members.every((m) => m.optional) }];
    return typeLiteral([
      { name: 'type', type: `${pascal}Type` },
      ...(mode === 'update' ? [{ name: 'id', type: 'string' }] : []),
      ...section('attributes', attributeMembers),
      ...section('relationships', relationshipMembers),
    ]);
  };
  return [
    ...(resource.endpoints.create
      ? [
          interfaceOf(`${pascal}CreatePayload`, [{ name: 'data', type: data('create') }], {
            docs: `The body of \`POST /${resource.type}\`.`,
          }),
        ]
      : []),
    ...(resource.endpoints.update
      ? [
          interfaceOf(`${pascal}UpdatePayload`, [{ name: 'data', type: data('update') }], {
            docs: `The body of \`PATCH /${resource.type}/{id}\`.`,
          }),
        ]
      : []),
  ];
}

/** The filter names and `sort` terms the Index accepts. */
function queryTypes(resource: ResourceModel): StatementStructures[] {
  if (!resource.endpoints.index) return [];
  const { pascal } = resource.names;
  return [
    typeAliasOf(
      `${pascal}Filter`,
      union(resource.filters.map(literal)),
      `The filters of \`GET /${resource.type}\`: \`filter[name]=...\`.`,
    ),
    typeAliasOf(
      `${pascal}Sort`,
      union(resource.sorts.flatMap((s) => [literal(s), literal(`-${s}`)])),
      `The terms of \`sort\` on \`GET /${resource.type}\`.`,
    ),
  ];
}

/** How one attribute is read and converted by the serializer. */
export function serializeExpression(attribute: AttributeModel): string {
  if (attribute.hasGetter)
    return `toJson(${getterName(attribute)}(model, context)${attribute.kind === 'date' ? ", 'date'" : ''})`;
  const value = propertyAccess('model', attribute.name);
  if (attribute.kind === 'date') return `dateOnly(${value})`;
  if (attribute.kind === 'date-time') return `dateTime(${value})`;
  return value;
}

function getterName(attribute: AttributeModel): string {
  return `get${pascalCase(attribute.name)}`;
}

/**
 * `serializeX(model)`: the attributes of a model, straight-line. An optional attribute the model
 * lacks is left out, so output agrees with the types and the OpenAPI document.
 */
function serializer(resource: ResourceModel): FunctionDeclarationStructure {
  const { pascal } = resource.names;
  const getters = resource.attributes.filter((a) => a.hasGetter);
  const entries = resource.attributes.map((a): readonly [string | null, string] =>
    optionalAttribute(a)
      ? [null, `(${propertyAccess('model', a.name)} !== undefined && { ${a.name}: ${serializeExpression(a)} })`]
      : [a.name, serializeExpression(a)],
  );
  return {
    kind: StructureKind.Function,
    name: `serialize${pascal}`,
    docs: [`Serializes a model of a resource of type \`${resource.type}\`: its attributes as responses carry them.`],
    parameters: [
      { name: 'model', type: `${pascal}Model` },
      ...(getters.length > 0 ? [{ name: 'context', type: 'Context' }] : []),
    ],
    // With getters the values are the getters' own, checked by the runtime's document tests.
    ...(getters.length === 0 && {
      returnType: resource.attributes.length > 0 ? `${pascal}Attributes` : 'Record<string, never>',
    }),
    statements: [`return ${objectLiteral(entries)};`],
  };
}

function factory(resource: ResourceModel): StatementStructures[] {
  const { pascal, camel } = resource.names;
  const getters = resource.attributes.filter((a) => a.hasGetter);
  return [
    ...getters.map((a): StatementStructures => ({
      kind: StructureKind.VariableStatement,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name: getterName(a), initializer: `fieldGetter(schema, ${quote(a.name)})` }],
    })),
    {
      kind: StructureKind.Function,
      name: `${camel}Resource`,
      isExported: true,
      docs: [
        `The resource of type \`${resource.type}\` for \`api.resource()\`: the schema's declaration bound to \`dataLayer\`.`,
      ],
      typeParameters: [`M extends ${pascal}Model`, 'Q'],
      parameters: [
        {
          name: 'dataLayer',
          type: `${pascal}DataLayer<M, Q>`,
          ...(resource.capabilities.length === 0 && { initializer: '{}' }),
        },
      ],
      returnType: 'ResourceDefinition<M, Q>',
      statements: [`return bindResource<M, Q>(schema, dataLayer, serialize${pascal});`],
    },
  ];
}
