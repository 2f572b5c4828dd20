/**
 * `resources/{type}.ts`: the resource's types (attributes, resource object, write payloads),
 * its data-layer interface and the factory binding the schema to a data layer.
 */
import { posix } from 'node:path';
import { type FunctionDeclarationStructure, type SourceFileStructure, type StatementStructures, StructureKind } from 'ts-morph';
import type { ApiModel, AttributeModel, Capability, RelationshipModel, ResourceModel } from '../ir.js';
import { pascalCase, propertyAccess, quote } from '../naming.js';
import { type Member, blankLineAfterImports, header, importOf, interfaceOf, literal, objectLiteral, sortImports, typeAliasOf, typeLiteral, union } from './helpers.js';

/** The data-layer methods each capability brings, and the type parameters its interface takes. */
export const CAPABILITIES: Record<Capability, { methods: readonly string[]; model: boolean; query: boolean }> = {
  Findable: { methods: ['find'], model: true, query: false },
  Listable: { methods: ['query', 'results'], model: true, query: true },
  Paginatable: { methods: ['paginate'], model: false, query: true },
  Countable: { methods: ['count'], model: false, query: true },
  Deletable: { methods: ['delete'], model: true, query: false },
  Relatable: { methods: ['loadRelated'], model: true, query: false },
  Creatable: { methods: ['create'], model: true, query: false },
  Updatable: { methods: ['update'], model: true, query: false },
  ToManyMutable: { methods: ['addToRelationship', 'removeFromRelationship'], model: true, query: false },
};

/** The file name of a resource's module, relative to the output directory. */
export function resourceFile(resource: ResourceModel): string {
  return `resources/${resource.type}.ts`;
}

/** The type parameters a resource's data layer and factory take (`M` model, `Q` query). */
export function typeParameters(resource: ResourceModel): string[] {
  const used = resource.capabilities.map((c) => CAPABILITIES[c]);
  return [...(used.some((c) => c.model) ? ['M'] : []), ...(used.some((c) => c.query) ? ['Q'] : [])];
}

export function emitResource(model: ApiModel, resource: ResourceModel): SourceFileStructure {
  const { pascal } = resource.names;
  const related = [...new Set(resource.relationships.map((r) => r.relatedType))].filter((t) => t !== resource.type).sort();
  const support = [
    ...(resource.attributes.some((a) => a.hasGetter) ? ['fieldGetter'] : []),
    ...(resource.attributes.some((a) => a.kind === 'date') ? ['dateOnly'] : []),
    ...(resource.attributes.some((a) => a.kind === 'date-time' || (a.hasGetter && a.kind !== 'date')) ? ['toJson'] : []),
    ...(resource.relationships.some((r) => r.cardinality === 'one') ? ['type ToOneRelationship'] : []),
    ...(resource.relationships.some((r) => r.cardinality === 'many') ? ['type ToManyRelationship'] : []),
  ];
  const imports = sortImports([
    importOf('jsonapi-gen', [...resource.capabilities, 'ResourceDefinition'], true),
    importOf(posix.join('..', model.schemaImport), [`${resource.exportName} as schema`]),
    ...(support.length > 0 ? [importOf('../support.js', support)] : []),
    ...related.map((type) => importOf(`./${type}.js`, [`${pascalCase(type)}Identifier`], true)),
  ]);
  const statements: StatementStructures[] = [
    ...imports,
    typeAliasOf(`${pascal}Type`, literal(resource.type), `The type of ${resource.type} resources.`),
    interfaceOf(`${pascal}Identifier`, [{ name: 'type', type: `${pascal}Type` }, { name: 'id', type: 'string' }], {
      docs: `A resource identifier of ${resource.type}.`,
    }),
    interfaceOf(`${pascal}Attributes`, resource.attributes.map(attributeMember), { docs: `The attributes of ${resource.type}, as responses carry them.` }),
    ...(resource.relationships.length > 0
      ? [
          interfaceOf(`${pascal}Relationships`, resource.relationships.map(relationshipMember), {
            docs: `The relationships of ${resource.type}: \`data\` is there when included or declared \`withLinkage()\`.`,
          }),
        ]
      : []),
    interfaceOf(`${pascal}Resource`, resourceObjectMembers(resource), {
      docs: `A ${resource.type} resource object as responses carry it (without sparse fieldsets).`,
    }),
    ...payloads(resource),
    ...queryTypes(resource),
    dataLayer(resource),
    factory(resource),
  ];
  return { kind: StructureKind.SourceFile, leadingTrivia: header(model.schemaPath) + '\n\n', statements: blankLineAfterImports(statements) };
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
  return { name: attribute.name, type: attributeType(attribute), ...(docs && { docs }) };
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
  ];
}

/** The linkage a write payload gives for a relationship. */
function linkageType(relationship: RelationshipModel): string {
  const identifier = identifierType(relationship);
  return relationship.cardinality === 'one' ? `{ data: ${identifier}${relationship.required ? '' : ' | null'} }` : `{ data: ${identifier}[] }`;
}

/** Create and update payloads: writable fields only; create requires the required ones. */
function payloads(resource: ResourceModel): StatementStructures[] {
  const { pascal } = resource.names;
  const attributes = resource.attributes.filter((a) => a.writable);
  const relationships = resource.relationships.filter((r) => r.writable);
  const data = (mode: 'create' | 'update'): string => {
    const attributeMembers = attributes.map((a) => ({ name: a.name, type: attributeType(a), optional: mode === 'update' || !a.required }));
    const relationshipMembers = relationships.map((r) => ({ name: r.name, type: linkageType(r), optional: mode === 'update' || !r.required }));
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
      ? [interfaceOf(`${pascal}CreatePayload`, [{ name: 'data', type: data('create') }], { docs: `The body of \`POST /${resource.type}\`.` })]
      : []),
    ...(resource.endpoints.update
      ? [interfaceOf(`${pascal}UpdatePayload`, [{ name: 'data', type: data('update') }], { docs: `The body of \`PATCH /${resource.type}/{id}\`.` })]
      : []),
  ];
}

/** The filter names and `sort` terms the Index accepts. */
function queryTypes(resource: ResourceModel): StatementStructures[] {
  if (!resource.endpoints.index) return [];
  const { pascal } = resource.names;
  return [
    typeAliasOf(`${pascal}Filter`, union(resource.filters.map(literal)), `The filters of \`GET /${resource.type}\`: \`filter[name]=...\`.`),
    typeAliasOf(
      `${pascal}Sort`,
      union(resource.sorts.flatMap((s) => [literal(s), literal(`-${s}`)])),
      `The terms of \`sort\` on \`GET /${resource.type}\`.`,
    ),
  ];
}

function dataLayer(resource: ResourceModel): StatementStructures {
  const { pascal } = resource.names;
  const extendsList = resource.capabilities.map((c) => {
    const { model, query } = CAPABILITIES[c];
    return `${c}<${[...(model ? ['M'] : []), ...(query ? ['Q'] : [])].join(', ')}>`;
  });
  const methods = resource.capabilities.flatMap((c) => CAPABILITIES[c].methods);
  return interfaceOf(`${pascal}DataLayer`, [], {
    docs:
      methods.length > 0
        ? `What the data layer of ${resource.type} implements: ${methods.map((m) => `\`${m}\``).join(', ')}. \`M\` is the host's model, \`Q\` its query.`
        : `${resource.type} enables no endpoint that reads data: its data layer implements nothing.`,
    extends: extendsList,
    typeParameters: typeParameters(resource).map((p) => `${p} = any`),
  });
}

/** How one attribute is read and converted in `serializeAttributes`. */
export function serializeExpression(attribute: AttributeModel): string {
  const value = attribute.hasGetter ? `${getterName(attribute)}(model, context)` : propertyAccess('row', attribute.name);
  if (attribute.kind === 'date') return `dateOnly(${value})`;
  return attribute.hasGetter || attribute.kind === 'date-time' ? `toJson(${value})` : `${value} ?? null`;
}

function getterName(attribute: AttributeModel): string {
  return `get${pascalCase(attribute.name)}`;
}

function factory(resource: ResourceModel): FunctionDeclarationStructure {
  const { pascal, camel } = resource.names;
  const params = typeParameters(resource);
  const generics = params.length > 0 ? `<${params.join(', ')}>` : '';
  const model = params.includes('M') ? 'M' : 'any';
  const query = params.includes('Q') ? 'Q' : 'any';
  const getters = resource.attributes.filter((a) => a.hasGetter);
  const readsRow = resource.attributes.some((a) => !a.hasGetter);
  const usesContext = getters.length > 0;
  const serialize =
    `(model: ${model}${usesContext ? ', context' : ''}) => {\n` +
    (readsRow ? 'const row = model as Record<string, unknown>;\n' : '') +
    `return ${objectLiteral(resource.attributes.map((a) => [a.name, serializeExpression(a)]))};\n}`;
  const methods = resource.capabilities.flatMap((c) => CAPABILITIES[c].methods);
  const delegate = (method: string): string => {
    const args = DELEGATE_ARGS[method]!;
    return `(${args}) => dataLayer.${method}(${args})`;
  };
  const relatable = resource.capabilities.includes('Relatable');
  const findable = resource.capabilities.includes('Findable');
  const entries: Array<readonly [string | null, string]> = [
    ['type', '() => schema.type()'],
    ['fields', '() => schema.fields()'],
    ['endpoints', '() => schema.endpoints()'],
    ['filters', '() => schema.filters?.() ?? []'],
    ['sorts', '() => schema.sorts?.() ?? []'],
    [null, '(schema.newModel && { newModel: (context) => schema.newModel!(context) })'],
    [null, '(schema.getId && { getId: (model, context) => schema.getId!(model, context) })'],
    ['serializeAttributes', serialize],
    ...methods.map((m) => [m, delegate(m)] as const),
    ...(findable ? [[null, '(dataLayer.findMany && { findMany: (ids, context) => dataLayer.findMany!(ids, context) })'] as const] : []),
    ...(relatable
      ? [[null, '(dataLayer.queryRelated && { queryRelated: (relationship, model, context) => dataLayer.queryRelated!(relationship, model, context) })'] as const]
      : []),
  ];
  return {
    kind: StructureKind.Function,
    name: `${camel}Resource`,
    isExported: true,
    docs: [`The ${resource.type} resource for \`api.resource()\`: the schema's declaration bound to \`dataLayer\`.`],
    typeParameters: params.map((p) => `${p} = any`),
    parameters: [{ name: 'dataLayer', type: `${pascal}DataLayer${generics}`, ...(methods.length === 0 && { initializer: '{}' }) }],
    returnType: `ResourceDefinition<${model}, ${query}>`,
    statements: [
      ...getters.map((a) => `const ${getterName(a)} = fieldGetter(schema, ${quote(a.name)});`),
      ...(methods.length === 0 ? ['void dataLayer;'] : []),
      `return ${objectLiteral(entries)};`,
    ],
  };
}

const DELEGATE_ARGS: Record<string, string> = {
  find: 'id, context',
  query: 'context',
  results: 'query, context',
  paginate: 'query, pagination, context',
  count: 'query, context',
  delete: 'model, context',
  loadRelated: 'relationship, models, context',
  create: 'values, context',
  update: 'model, values, context',
  addToRelationship: 'model, relationship, identifiers, context',
  removeFromRelationship: 'model, relationship, identifiers, context',
};
