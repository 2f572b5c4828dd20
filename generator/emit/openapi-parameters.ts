/**
 * `components.parameters` of the OpenAPI document: each query parameter a resource's GETs take
 * (`include`, `fields[type]`, `sort`, each filter, `page[...]`) defined once, and the lists of
 * references each GET carries. A GET lists `fields[...]` only for the types its response can
 * hold: its own and those an `include` can reach within the runtime's include depth.
 */
import { DEFAULT_LIMITS, type Operator, defaultOperators } from 'jsonapi-gen';
import type { ParameterObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';
import type { AttributeModel, FilterModel, ResourceModel } from '../ir.js';
import { pascalCase } from '../naming.js';
import { kindSchema } from './openapi-schemas.js';
import { parameterRef, ref } from './openapi-vocabulary.js';

/** How deep `include` paths are listed; the server accepts deeper ones too (to its `includeDepth` limit). */
export const INCLUDE_DEPTH = 3;

type ByType = ReadonlyMap<string, ResourceModel>;

/** Every `include` path from `resource`, to `INCLUDE_DEPTH`, never taking the same relationship twice. */
export function includePaths(resource: ResourceModel, byType: ByType): string[] {
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

/**
 * The types whose resources a response of `resource` may carry: itself and every type an
 * include path of at most `depth` relationships reaches (the runtime refuses longer paths).
 */
export function reachableTypes(
  resource: ResourceModel,
  byType: ByType,
  depth: number = DEFAULT_LIMITS.includeDepth,
): string[] {
  const seen = new Set([resource.type]);
  let frontier = [resource];
  for (let level = 0; level < depth && frontier.length > 0; level++) {
    const next: ResourceModel[] = [];
    for (const from of frontier) {
      for (const r of from.relationships) {
        const related = byType.get(r.relatedType);
        if (r.includable && related && !seen.has(related.type)) {
          seen.add(related.type);
          next.push(related);
        }
      }
    }
    frontier = next;
  }
  return [...seen].sort();
}

const list = (values: readonly string[]): SchemaObject => ({
  type: 'array',
  items: { type: 'string', enum: [...values] },
  uniqueItems: true,
});

/** The component names of a resource's parameters. */
const names = {
  include: (r: ResourceModel) => `${r.names.pascal}Include`,
  fields: (r: ResourceModel) => `${r.names.pascal}Fields`,
  sort: (r: ResourceModel) => `${r.names.pascal}Sort`,
  filter: (r: ResourceModel, filter: string) => `${r.names.pascal}Filter${pascalCase(filter)}`,
  filterList: (r: ResourceModel, filter: string) => `${r.names.pascal}Filter${pascalCase(filter)}List`,
  filterOperator: (r: ResourceModel, filter: string, op: Operator) =>
    `${r.names.pascal}Filter${pascalCase(filter)}${pascalCase(op)}`,
  pageLimit: (r: ResourceModel) => `${r.names.pascal}PageLimit`,
  /** The schema (in `components.schemas`) of one value a filter on this attribute compares. */
  value: (r: ResourceModel, attribute: AttributeModel) => `${r.names.pascal}${pascalCase(attribute.name)}Value`,
  pageSize: (r: ResourceModel) => `${r.names.pascal}PageSize`,
  withCount: (r: ResourceModel) => `${r.names.pascal}WithCount`,
};

/** The operators a `WhereCount` filter takes unless declared: the runtime's `COUNT_OPERATORS` (equality and ordering of integers). */
export const COUNT_OPERATORS: readonly Operator[] = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'];

/** The schema of a count a `WhereCount` filter compares. */
const COUNT_SCHEMA: SchemaObject = { type: 'integer' };

/**
 * The names `withCount` may give on a GET returning `resource`: the countable to-many
 * relationships of its type and of every type its includes reach (the runtime checks them
 * against the types the request's `include` reaches).
 */
export function withCountNames(resource: ResourceModel, byType: ByType): string[] {
  const names = reachableTypes(resource, byType).flatMap((type) =>
    (byType.get(type)?.relationships ?? []).filter((r) => r.countable).map((r) => r.name),
  );
  return [...new Set(names)].sort();
}

/** The parameters resources share: the path's `id`, `page[offset]`, and the cursors when an Index pages by cursor. */
export function sharedParameters(cursors: boolean): Array<[string, ParameterObject]> {
  const shared: Array<[string, ParameterObject]> = [
    ['id', { name: 'id', in: 'path', required: true, description: 'The resource id.', schema: { type: 'string' } }],
    [
      'PageOffset',
      {
        name: 'page[offset]',
        in: 'query',
        description: 'How many resources to skip.',
        schema: { type: 'integer', minimum: 0, default: 0 },
      },
    ],
    [
      'PageAfter',
      {
        name: 'page[after]',
        in: 'query',
        description:
          'Cursor pagination (the JSON:API cursor pagination profile): the page after this cursor, from `links.next`. Not together with `page[before]` or the offset parameters.',
        schema: { type: 'string' },
      },
    ],
    [
      'PageBefore',
      {
        name: 'page[before]',
        in: 'query',
        description:
          'Cursor pagination: the page before this cursor, from `links.prev`. Not together with `page[after]` or the offset parameters.',
        schema: { type: 'string' },
      },
    ],
  ];
  return cursors ? shared : shared.slice(0, 2);
}

/** The parameter components of one resource: what its GETs (and GETs that return it) reference. */
export function resourceParameters(resource: ResourceModel, byType: ByType): Array<[string, ParameterObject]> {
  const { type } = resource;
  const parameters: Array<[string, ParameterObject]> = [];
  const paths = includePaths(resource, byType);
  if (paths.length > 0) {
    parameters.push([
      names.include(resource),
      {
        name: 'include',
        in: 'query',
        description: `Related resources to include, comma-separated (paths listed to depth ${INCLUDE_DEPTH}).`,
        style: 'form',
        explode: false,
        schema: list(paths),
      },
    ]);
  }
  const counted = withCountNames(resource, byType);
  if (counted.length > 0) {
    parameters.push([
      names.withCount(resource),
      {
        name: 'withCount',
        in: 'query',
        description: `Countable relationships, comma-separated, whose number of related resources (those the request may see) each resource object of these types carries as \`relationships.<name>.meta.count\`: of ${resource.type}, or of a type \`include\` brings in. Another name is a 400.`,
        style: 'form',
        explode: false,
        schema: list(counted),
      },
    ]);
  }
  const fields = [...resource.attributes.map((a) => a.name), ...resource.relationships.map((r) => r.name)];
  parameters.push([
    names.fields(resource),
    {
      name: `fields[${type}]`,
      in: 'query',
      description: `The fields of ${type} to return, comma-separated.`,
      style: 'form',
      explode: false,
      schema: list(fields),
    },
  ]);
  const index = resource.endpoints.index;
  if (!index) return parameters;
  if (resource.sorts.length > 0) {
    parameters.push([
      names.sort(resource),
      {
        name: 'sort',
        in: 'query',
        description: `Sort terms, comma-separated; a leading - sorts descending.${index.defaultSort ? ` Default: ${index.defaultSort}.` : ''}`,
        style: 'form',
        explode: false,
        schema: list(resource.sorts.flatMap((s) => [s, `-${s}`])),
      },
    ]);
  }
  for (const filter of resource.filterDetails)
    parameters.push(...filterParameters(resource, filter), ...operatorParameters(resource, filter, byType));
  if (index.pagination) {
    parameters.push([
      names.pageLimit(resource),
      {
        name: 'page[limit]',
        in: 'query',
        description: `How many resources per page (at most ${index.pagination.maxLimit}).`,
        schema: {
          type: 'integer',
          minimum: 1,
          maximum: index.pagination.maxLimit,
          default: index.pagination.defaultLimit,
        },
      },
    ]);
    if (index.cursor) {
      parameters.push([
        names.pageSize(resource),
        {
          name: 'page[size]',
          in: 'query',
          description: `Cursor pagination: how many resources per page (at most ${index.pagination.maxLimit}; more is a 400 whose error has the profile's \`max-size-exceeded\` type).`,
          schema: {
            type: 'integer',
            minimum: 1,
            maximum: index.pagination.maxLimit,
            default: index.pagination.defaultLimit,
          },
        },
      ]);
    }
  }
  return parameters;
}

/**
 * The two parameters of one filter: `filter[name]` and its list form `filter[name][]`. Both
 * open with what the filter keeps (the schema's `.description(text)`, else a sentence from its
 * declaration) and state how the value is read, as the runtime reads it (runtime/query/filter-lists.ts):
 * a filter on `id`, a relationship or an enum attribute splits `filter[name]` on commas (a
 * comma list: `style: form, explode: false`), any other takes it verbatim; the list form is
 * never split.
 */
export function filterParameters(resource: ResourceModel, filter: FilterModel): Array<[string, ParameterObject]> {
  const { name } = filter;
  const what = sentence(filter.description ?? keeps(resource, filter));
  // A count compares one integer; the runtime refuses a list of them (it is no `in`).
  if (filter.declares === 'count')
    return [
      [names.filter(resource, name), { name: `filter[${name}]`, in: 'query', description: what, schema: COUNT_SCHEMA }],
    ];
  const item = filterItem(resource, filter);
  const single: ParameterObject = filter.commaList
    ? {
        name: `filter[${name}]`,
        in: 'query',
        description: `${what} A comma-separated list matches any of its values: \`filter[${name}]=a,b\`.`,
        style: 'form',
        explode: false,
        // An enum's members: one is the enum itself, so that a typed client offers exactly them.
        schema:
          '$ref' in item
            ? { anyOf: [item, { type: 'array', items: item, minItems: 1 }] }
            : { type: 'array', items: item },
      }
    : {
        name: `filter[${name}]`,
        in: 'query',
        description: `${what} The value is taken verbatim, commas included (\`filter[${name}]=a,b\` is the one value \`a,b\`); for any of several values use \`filter[${name}][]\`.`,
        schema: { type: 'string' },
      };
  const list: ParameterObject = {
    name: `filter[${name}][]`,
    in: 'query',
    description: `${what} Several values, \`filter[${name}][]=a&filter[${name}][]=b\`, match any of them; each is taken as it is, never split on commas. Not together with \`filter[${name}]\`.`,
    style: 'form',
    explode: true,
    schema: { type: 'array', items: item, maxItems: DEFAULT_LIMITS.filterValues },
  };
  return [
    [names.filter(resource, name), single],
    [names.filterList(resource, name), list],
  ];
}

/**
 * The schema of one value of `filter[name]`: the members of the enum attribute a `Where` filter
 * compares (the runtime refuses any other with a 400), else any text (a custom filter's value
 * is its data layer's to read).
 */
function filterItem(resource: ResourceModel, filter: FilterModel): SchemaObject | ReferenceObject {
  const attribute = filter.declares === 'where' ? resource.attributes.find((a) => a.name === filter.name) : undefined;
  return attribute?.kind === 'enum' ? ref(names.value(resource, attribute)) : { type: 'string' };
}

/** What a `Where` filter compares: the attribute and the resource it belongs to (this one, or the one at the end of a path), or a to-one's id (undefined). */
function comparedAttribute(
  resource: ResourceModel,
  name: string,
  byType: ByType,
): { owner: ResourceModel; attribute: AttributeModel } | undefined {
  const [first, path] = name.split('.') as [string, string | undefined];
  const owner =
    path === undefined ? resource : byType.get(resource.relationships.find((r) => r.name === first)?.relatedType ?? '');
  const attribute = owner?.attributes.find((a) => a.name === (path ?? first));
  return owner && attribute && { owner, attribute };
}

/** The operators a `Where` or `WhereCount` filter takes, as the runtime decides them (declared, else by the field's kind, or every count operator). */
export function filterOperators(resource: ResourceModel, filter: FilterModel, byType: ByType): readonly Operator[] {
  if (filter.declares === 'count') return filter.operators ?? COUNT_OPERATORS;
  if (filter.declares !== 'where') return [];
  if (filter.operators) return filter.operators;
  const compared = comparedAttribute(resource, filter.name, byType);
  if (compared) return defaultOperators(compared.attribute.kind, compared.attribute.nullable);
  return defaultOperators('id', !resource.relationships.find((r) => r.name === filter.name)?.required);
}

/**
 * The value schemas filters refer to (`ArticlesStatusValue`), one per compared attribute, in
 * name order: each filter parameter refers to its attribute's, so that a change of the
 * attribute's kind or enum values changes one line of the document, not one per operator.
 */
export function valueSchemas(resources: readonly ResourceModel[], byType: ByType): Array<[string, SchemaObject]> {
  const schemas = new Map<string, SchemaObject>();
  for (const resource of resources) {
    for (const filter of resource.filterDetails) {
      if (filter.declares !== 'where') continue;
      const compared = comparedAttribute(resource, filter.name, byType);
      if (compared) schemas.set(names.value(compared.owner, compared.attribute), kindSchema(compared.attribute));
    }
  }
  return [...schemas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The JSON Schema of one value a condition takes: its attribute's value schema, an integer (a count), or text (an id). */
function valueSchema(resource: ResourceModel, filter: FilterModel, byType: ByType): SchemaObject | ReferenceObject {
  if (filter.declares === 'count') return COUNT_SCHEMA;
  const compared = comparedAttribute(resource, filter.name, byType);
  return compared ? ref(names.value(compared.owner, compared.attribute)) : { type: 'string' };
}

const OPERATOR_WORDS: Record<Operator, string> = {
  eq: 'equal to the value',
  ne: 'not equal to the value (a null matches neither)',
  in: 'equal to one of the comma-separated values',
  nin: 'equal to none of the comma-separated values (a null matches neither)',
  lt: 'less than the value',
  lte: 'at most the value',
  gt: 'greater than the value',
  gte: 'at least the value',
  contains: 'containing the value literally (`%` and `_` are plain characters)',
  startsWith: 'starting with the value literally',
  endsWith: 'ending with the value literally',
  null: 'null (`true`) or not null (`false`)',
};

/** The schema of the value of `filter[name][op]`: a list for `in` and `nin`, a boolean for `null`, else one value. */
export function operatorSchema(
  resource: ResourceModel,
  filter: FilterModel,
  byType: ByType,
  op: Operator,
): SchemaObject | ReferenceObject {
  const one = valueSchema(resource, filter, byType);
  if (op === 'null') return { type: 'boolean' };
  if (op === 'in' || op === 'nin') return { type: 'array', items: one, maxItems: DEFAULT_LIMITS.filterValues };
  return one;
}

/**
 * The `filter[name][op]` parameters of a `Where` or `WhereCount` filter, one per operator it takes, each with
 * the schema of its value (by the compared attribute's kind: `format: date-time`, enum members,
 * integers), so that a generated client offers exactly what the server accepts.
 */
export function operatorParameters(
  resource: ResourceModel,
  filter: FilterModel,
  byType: ByType,
): Array<[string, ParameterObject]> {
  const [first, path] = filter.name.split('.');
  const subject = filter.counts
    ? `number of related \`${filter.counts.relationship}\` (\`${filter.name}\`, counting those the request may see)`
    : path === undefined
      ? `\`${filter.name}\``
      : `\`${filter.name}\` (the \`${path}\` of the related \`${first}\`, any of them for a to-many relationship)`;
  return filterOperators(resource, filter, byType).map((op): [string, ParameterObject] => {
    const schema = operatorSchema(resource, filter, byType, op);
    const caseRule =
      op === 'contains' || op === 'startsWith' || op === 'endsWith'
        ? filter.caseInsensitive
          ? ', ignoring letter case'
          : ', letter case counting'
        : '';
    return [
      names.filterOperator(resource, filter.name, op),
      {
        name: `filter[${filter.name}][${op}]`,
        in: 'query',
        description: `Keeps the ${resource.type} whose ${subject} is ${OPERATOR_WORDS[op]}${caseRule}.`,
        ...(op === 'in' || op === 'nin' ? { style: 'form', explode: false } : {}),
        schema,
      },
    ];
  });
}

/** What a filter without a description keeps, from its declaration. */
function keeps(resource: ResourceModel, filter: FilterModel): string {
  const code = (text: string) => `\`${text}\``;
  const the = `Keeps the ${resource.type}`;
  if (filter.counts)
    return `${the} whose number of related ${code(filter.counts.relationship)} (those the request may see) equals the value, an integer`;
  if (filter.declares === 'where') {
    const relationship = resource.relationships.find((r) => r.name === filter.name);
    if (relationship)
      return `${the} whose ${code(filter.name)} is the ${relationship.relatedType} resource with this id`;
    const attribute = resource.attributes.find((a) => a.name === filter.name);
    // An enum's values are in the parameter's schema, not repeated here.
    if (attribute?.kind === 'enum') return `${the} whose ${code(filter.name)} is the value`;
    return `${the} whose ${code(filter.name)} equals the value`;
  }
  return `${the} that the server's ${code(filter.name)} filter selects`;
}

/** `text` as a sentence: ending with a full stop unless it ends with other punctuation. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** What a GET returning `resource` takes: its `include`, `withCount`, and `fields[...]` of each type the response can hold. */
export function readParameters(resource: ResourceModel, byType: ByType): ReferenceObject[] {
  const refs: ReferenceObject[] = [];
  if (includePaths(resource, byType).length > 0) refs.push(parameterRef(names.include(resource)));
  if (withCountNames(resource, byType).length > 0) refs.push(parameterRef(names.withCount(resource)));
  for (const type of reachableTypes(resource, byType)) refs.push(parameterRef(names.fields(byType.get(type)!)));
  return refs;
}

/** What the Index of `resource` takes besides `readParameters`: sort, filters, pagination. */
export function collectionParameters(resource: ResourceModel, byType: ByType): ReferenceObject[] {
  const index = resource.endpoints.index!;
  const refs: ReferenceObject[] = [];
  if (resource.sorts.length > 0) refs.push(parameterRef(names.sort(resource)));
  for (const filter of resource.filterDetails) {
    refs.push(parameterRef(names.filter(resource, filter.name)));
    if (filter.declares !== 'count') refs.push(parameterRef(names.filterList(resource, filter.name)));
    for (const op of filterOperators(resource, filter, byType))
      refs.push(parameterRef(names.filterOperator(resource, filter.name, op)));
  }
  if (index.pagination) refs.push(parameterRef('PageOffset'), parameterRef(names.pageLimit(resource)));
  if (index.pagination && index.cursor)
    refs.push(parameterRef(names.pageSize(resource)), parameterRef('PageAfter'), parameterRef('PageBefore'));
  return refs;
}
