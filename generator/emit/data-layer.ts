/**
 * The types a host's data layer is checked against, per resource: the model the serializer
 * reads, the values create and update receive, what each relationship loader returns, the
 * filters and sorts it implements, and the data-layer interface that gathers them.
 */
import type { StatementStructures } from 'ts-morph';
import type { AttributeModel, Capability, RelationshipModel, ResourceModel } from '../ir.js';
import { pascalCase } from '../naming.js';
import {
  type Member,
  attributeTypeOf,
  documentedTypeLiteral,
  interfaceOf,
  literal,
  typeAliasOf,
  typeLiteral,
  union,
} from './helpers.js';

/** The runtime interface of each capability and the type arguments it takes. */
const CAPABILITY_TYPES: Record<Capability, (pascal: string, composable?: boolean) => string> = {
  Findable: () => 'Findable<M>',
  Listable: () => 'Listable<M, Q>',
  Paginatable: () => 'Paginatable<Q>',
  Countable: () => 'Countable<Q>',
  CursorPaginatable: () => 'CursorPaginatable<Q>',
  Deletable: () => 'Deletable<M>',
  Relatable: (p) => `RelatedLoaders<M, ${p}Related>`,
  Creatable: (p) => `Creatable<M, ${p}CreateValues>`,
  Updatable: (p) => `Updatable<M, ${p}UpdateValues>`,
  ToManyMutable: () => 'ToManyMutable<M>',
  RelationshipCounts: () => 'RelationshipCounts<M>',
  Filterable: (p, composable) => `Filterable<Q, ${p}WhereField, ${composable ? `${p}ComposableFilter` : 'never'}>`,
  CustomFilterable: (p) => `CustomFilterable<Q, ${p}CustomFilters>`,
  Sortable: (p) => `Sortable<Q, ${p}SortField>`,
  CustomSortable: (p) => `CustomSortable<Q, ${p}CustomSort>`,
  Authorizable: () => 'Authorizable<M>',
  Versioned: () => 'Versioned<M>',
  OptionallyVersioned: () => 'Partial<Versioned<M>>',
};

/** The runtime type names a resource's data-layer interface extends. */
export function capabilityImports(resource: ResourceModel): string[] {
  return [...new Set(resource.capabilities.map((c) => CAPABILITY_TYPES[c]('').replace(/^Partial<|<.*$/g, '')))];
}

/** The TypeScript type of an attribute's value as the model holds it. */
export function modelValueType(attribute: AttributeModel, json: string): string {
  if (attribute.kind !== 'date-time' && attribute.kind !== 'date') return json;
  return attribute.nullable ? 'Date | string | null' : 'Date | string';
}

/**
 * Whether a model may lack the attribute: a writable one that is neither required, nullable
 * nor defaulted, which a client may never have set. Such a value is left out of `attributes`.
 */
export function optionalAttribute(attribute: AttributeModel): boolean {
  return attribute.writable && !attribute.required && !attribute.nullable && !attribute.hasDefault;
}

function identifierType(relationship: RelationshipModel): string {
  return `${pascalCase(relationship.relatedType)}Identifier`;
}

/** The runtime types the hook types of `resource` name (`hookTypes`). */
export function hookImports(resource: ResourceModel): string[] {
  const { create, update } = resource.endpoints;
  return [
    'Context',
    ...(create ? ['CreateSavingHook'] : []),
    ...(update ? ['UpdateSavingHook'] : []),
    ...(create || update ? ['AfterCommitHook', 'FieldWritePolicy', 'ResourceValidator'] : []),
    ...(resource.endpoints.delete ? ['DeletingHook', 'AfterCommitHook'] : []),
  ];
}

/** The model, write values, related models, filters, sorts and data-layer interface of `resource`. */
export function dataLayerTypes(
  resource: ResourceModel,
  attributeType: (a: AttributeModel) => string,
): StatementStructures[] {
  const { pascal } = resource.names;
  const has = (c: Capability) => resource.capabilities.includes(c);
  // Custom filters the data layer applies may also stand in groups, if it lists them in `composableFilters`.
  const composable = resource.customFilters.length > 0;
  const plain = resource.attributes.filter((a) => !a.hasGetter);
  const getters = resource.attributes.flatMap((a, i) => (a.hasGetter ? [i] : []));
  const modelMembers: Member[] = [
    ...(resource.hasGetId ? [] : [{ name: 'id', type: 'string | number', docs: 'Served as `String(id)`.' }]),
    ...plain.map((a) => ({ name: a.name, type: modelValueType(a, attributeType(a)), optional: optionalAttribute(a) })),
  ];
  const writable = (mode: 'create' | 'update'): string => {
    const attributes = resource.attributes
      .filter((a) => a.writable)
      .map((a) => ({
        name: a.name,
        type: attributeTypeOf(pascal, a.name),
        optional: mode === 'update' || (!a.required && !a.hasDefault),
      }));
    const relationships = resource.relationships
      .filter((r) => r.writable)
      .map((r) => ({
        name: r.name,
        type:
          r.cardinality === 'many' ? `${identifierType(r)}[]` : `${identifierType(r)}${r.required ? '' : ' | null'}`,
        optional: mode === 'update' || !r.required,
      }));
    return typeLiteral([
      ...(mode === 'create' && resource.clientIds
        ? [{ name: 'id', type: 'string', optional: true, docs: 'A client-generated id.' }]
        : []),
      { name: 'attributes', type: typeLiteral(attributes) },
      { name: 'relationships', type: typeLiteral(relationships) },
    ]);
  };
  const getterIndexes = getters.map((i) => `GetterModel<typeof schema, ${i}>`);
  return [
    // A type literal, not an interface: it fits `Record<string, unknown>`, so a wrapper typed by
    // `DataLayers` may pass its models on to a data layer whose model is open to more columns
    // (the Kysely store's `StoreModel`). Set apart by blank lines, as an interface is.
    {
      ...typeAliasOf(
        `${pascal}ModelFields`,
        documentedTypeLiteral(modelMembers),
        `What the serializer of resources of type \`${resource.type}\` reads from a model: the id and every attribute (date-times as \`Date\` or RFC 3339 text).`,
      ),
      leadingTrivia: '\n',
    },
    {
      ...typeAliasOf(
        `${pascal}Model`,
        [`${pascal}ModelFields`, ...getterIndexes].join(' & '),
        `A model of a resource of type \`${resource.type}\` as the host's data layer gives it: its fields${getters.length > 0 ? " and what the schema's `.get()` getters read" : ''}.`,
      ),
      leadingTrivia: '\n',
    },
    ...(has('Creatable')
      ? [
          typeAliasOf(
            `${pascal}CreateValues`,
            writable('create'),
            `What \`create\` receives: checked attributes (defaults applied) and linkage.`,
          ),
        ]
      : []),
    ...(has('Updatable')
      ? [
          typeAliasOf(
            `${pascal}UpdateValues`,
            writable('update'),
            `What \`update\` receives: only the members the client sent.`,
          ),
        ]
      : []),
    ...(has('Relatable')
      ? [
          interfaceOf(
            `${pascal}Related`,
            resource.relationships.map((r) => {
              const related = `${pascalCase(r.relatedType)}Model`;
              return { name: r.name, type: r.cardinality === 'one' ? `${related} | null` : `readonly ${related}[]` };
            }),
            { docs: `What each relationship loader of resources of type \`${resource.type}\` gives per model.` },
          ),
        ]
      : []),
    ...(has('Filterable')
      ? [
          typeAliasOf(
            `${pascal}WhereField`,
            union([...resource.whereFilters, ...resource.countFilters].map(literal)),
            resource.countFilters.length > 0
              ? 'The fields `where` compares: `Where` filters, and `WhereCount` filters (their `condition.count` names the relationship counted).'
              : 'The fields `where` compares (`Where` filters).',
          ),
          ...(composable
            ? [
                typeAliasOf(
                  `${pascal}ComposableFilter`,
                  union(resource.customFilters.map(literal)),
                  "The custom filters `where` may receive inside `filter[or]` and `filter[not]` (`op: 'custom'`): those the data layer lists in `composableFilters`.",
                ),
              ]
            : []),
          typeAliasOf(
            `${pascal}FilterCondition`,
            `FilterCondition<${pascal}WhereField, ${composable ? `${pascal}ComposableFilter` : 'never'}>`,
            'What `where` receives, once per top-level clause: a condition, a custom filter inside a group, or an `and`, `or` or `not` group of them.',
          ),
        ]
      : []),
    ...(has('CustomFilterable')
      ? [
          interfaceOf(
            `${pascal}CustomFilters`,
            resource.customFilters.map((name) => {
              // The schema's description, where it gives one, tells the implementer what to keep (`*/` would end the comment).
              const docs = resource.filterDetails.find((f) => f.name === name)?.description?.replaceAll('*/', '*\\/');
              return { name, type: 'FilterValue', ...(docs && { docs }) };
            }),
            { docs: 'The custom filters and the value each receives.' },
          ),
        ]
      : []),
    ...(has('Sortable')
      ? [
          typeAliasOf(
            `${pascal}SortField`,
            union([...resource.sortFields, ...resource.countSorts].map(literal)),
            resource.countSorts.length > 0
              ? 'The fields `orderBy` orders by: `SortBy` sorts, and `SortWithCount` sorts (their `path` is the `CountPath` counted).'
              : 'The fields `orderBy` orders by (`SortBy` sorts).',
          ),
        ]
      : []),
    ...(has('CustomSortable')
      ? [typeAliasOf(`${pascal}CustomSort`, union(resource.customSorts.map(literal)), 'The custom sorts.')]
      : []),
    interfaceOf(
      `${pascal}Types`,
      [
        { name: 'model', type: `${pascal}Model` },
        { name: 'related', type: has('Relatable') ? `${pascal}Related` : 'Record<never, never>' },
        { name: 'customFilters', type: has('CustomFilterable') ? `${pascal}CustomFilters` : 'Record<never, never>' },
        { name: 'customSorts', type: has('CustomSortable') ? `${pascal}CustomSort` : 'never' },
        { name: 'policy', type: String(resource.usesPolicy) },
        { name: 'createValues', type: has('Creatable') ? `${pascal}CreateValues` : 'never' },
        { name: 'updateValues', type: has('Updatable') ? `${pascal}UpdateValues` : 'never' },
      ],
      {
        docs: `The types of resources of type \`${resource.type}\` in one place, for typed integrations (the Kysely store checks its mapping against them).`,
        extends: ['ResourceTypes'],
      },
    ),
    interfaceOf(`${pascal}DataLayer`, [], {
      docs:
        resource.capabilities.length > 0
          ? `What the data layer of resources of type \`${resource.type}\` implements. \`M\` is the host's model (at least \`${pascal}Model\`), \`Q\` its query.`
          : `Resources of type \`${resource.type}\` enable no endpoint that reads data: its data layer implements nothing.`,
      extends: resource.capabilities.map((c) => CAPABILITY_TYPES[c](pascal, composable)),
      typeParameters: [`M extends ${pascal}Model = ${pascal}Model`, 'Q = unknown'],
    }),
    ...hookTypes(resource),
  ];
}

/**
 * The types of the schema's callbacks for `resource`, for `typedResources` to check: `M` is the
 * model a callback reads (the generated one, or the data layer's richer one).
 */
function hookTypes(resource: ResourceModel): StatementStructures[] {
  const { pascal } = resource.names;
  const model = `M extends ${pascal}Model = ${pascal}Model`;
  const { create, update } = resource.endpoints;
  const alias = (name: string, type: string, docs: string, generic = true): StatementStructures => ({
    ...typeAliasOf(`${pascal}${name}`, type, docs),
    ...(generic && { typeParameters: [model] }),
  });
  const values = [create && `${pascal}CreateValues`, update && `${pascal}UpdateValues`].filter(Boolean).join(' | ');
  return [
    ...(create
      ? [
          alias(
            'SavingHook',
            `CreateSavingHook<${pascal}CreateValues>`,
            `A \`saving\` hook of \`POST /${resource.type}\`: \`Create.make().saving(hook)\`.`,
            false,
          ),
        ]
      : []),
    ...(update
      ? [
          alias(
            'UpdateSavingHook',
            `UpdateSavingHook<${pascal}UpdateValues, M>`,
            `A \`saving\` hook of \`PATCH /${resource.type}/{id}\`: \`Update.make().saving(hook)\`.`,
          ),
        ]
      : []),
    ...(create || update
      ? [
          alias('SavedHook', 'AfterCommitHook<M>', 'A `saved` hook of Create or Update, run once the write committed.'),
          alias('WritePolicy', 'FieldWritePolicy<M>', "A writable field's policy: `writable(policy)`."),
          alias(
            'Validator',
            `ResourceValidator<${values}, M>`,
            'The cross-field validation of every create and update: `validate`.',
          ),
        ]
      : []),
    ...(resource.endpoints.delete
      ? [
          alias('DeletingHook', 'DeletingHook<M>', `A \`deleting\` hook of \`DELETE /${resource.type}/{id}\`.`),
          alias('DeletedHook', 'AfterCommitHook<M>', 'A `deleted` hook, run once the delete committed.'),
        ]
      : []),
    {
      ...typeAliasOf(
        `${pascal}MetaGetter`,
        '(model: M, context: Context) => V',
        "A meta member's getter: `Meta.make(name).type(kind).get(getter)`, giving `V`.",
      ),
      typeParameters: ['V', model],
    },
  ];
}
