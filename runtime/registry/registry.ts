import type { Context } from '../dsl/context.js';
import type { Ability, AnyEndpoint, Delete, EndpointKind, Index, Update } from '../dsl/endpoints.js';
import { Attribute, Relationship, type ToMany, type ToOne } from '../dsl/fields.js';
import { CustomFilter, CustomSort, Filter, Sort, SortBy, Where, type FilterValue, type SortDirection } from '../dsl/filters.js';
import { plainInJson } from '../core/json-text.js';
import { assertMemberName, isMemberName } from '../core/member-name.js';
import { declarationIssues } from '../dsl/declaration-rules.js';
import { parseSort } from '../dsl/sort-terms.js';
import type { AnyField, ResourceDefinition } from '../dsl/resource.js';
import type { MaybePromise } from '../core/types.js';
import type { Condition } from '../dsl/operators.js';

const NEEDS: Record<EndpointKind, readonly string[]> = {
  show: ['find'],
  index: ['query', 'results'],
  create: ['create'],
  update: ['find', 'update'],
  delete: ['find', 'delete'],
};

/** A registered resource: its definition plus the lookups every request needs, built once. */
export class RegisteredResource {
  readonly type: string;
  /** The type as a URL path segment (percent-encoded), for every resource URL. */
  readonly typeSegment: string;
  readonly definition: ResourceDefinition;
  readonly attributes: readonly Attribute[];
  readonly relationships: ReadonlyArray<ToOne | ToMany>;
  /** Attributes with visibility callbacks: checked per model even when generated code serializes. */
  readonly conditionalAttributes: readonly Attribute[];
  readonly fields: ReadonlyMap<string, AnyField>;
  readonly endpoints: ReadonlyMap<EndpointKind, AnyEndpoint>;
  readonly filters: ReadonlyMap<string, Filter>;
  readonly sorts: ReadonlyMap<string, Sort>;
  /** The methods `/{type}` answers (405 with `Allow` for others), from the enabled endpoints. */
  readonly collectionMethods: readonly string[];
  /** The methods `/{type}/{id}` answers. */
  readonly resourceMethods: readonly string[];
  readonly getId: (model: unknown, context: Context) => string;
  /** The data layer's relationship reader: its `related` loaders by name, or its `loadRelated`. */
  readonly loadRelated: ((relationship: Relationship, models: readonly unknown[], context: Context) => MaybePromise<readonly unknown[]>) | undefined;
  /** The data layer's `can`, which the schema's `can(ability)` callbacks consult. */
  readonly policy: ((ability: Ability, model: unknown, context: Context) => MaybePromise<boolean>) | undefined;
  /**
   * Whether paginated lists of this resource are counted: `countable()` declared, or undeclared
   * with a data layer that implements `Countable` (and did not ask to count only where declared).
   */
  readonly counts: boolean;
  /** Its type segment and relationship names hold nothing JSON escapes, so its links need no look when written (see `plainInJson`). */
  readonly plainLinks: boolean;

  constructor(definition: ResourceDefinition) {
    const type = definition.type();
    assertMemberName(type, 'Resource type');
    const where = `resource "${type}"`;
    this.type = type;
    this.typeSegment = encodeURIComponent(type);
    this.definition = definition;
    // What the builders were given (and names declared twice): the rules `jsonapi-gen build` applies too.
    const issues = declarationIssues(definition);
    if (issues.length > 0) throw new TypeError(`${where}: ${issues.map((issue) => issue.message).join('; ')}`);

    const fields = new Map<string, AnyField>();
    for (const field of definition.fields()) {
      assertMemberName(field.name, `Field of ${where}`);
      if (field.name === 'id' || field.name === 'type') throw new TypeError(`${where}: "${field.name}" cannot be a field name`);
      if (field instanceof Relationship && !field.hasRelatedType) throw new TypeError(`${where}: relationship "${field.name}" has no .type(...)`);
      fields.set(field.name, field);
    }
    this.fields = fields;
    this.attributes = [...fields.values()].filter((f): f is Attribute => f instanceof Attribute);
    this.relationships = [...fields.values()].filter((f): f is ToOne | ToMany => f instanceof Relationship);
    this.conditionalAttributes = this.attributes.filter((a) => a.isConditional);
    this.plainLinks = plainInJson(this.typeSegment) && this.relationships.every((r) => plainInJson(r.name));

    const endpoints = new Map<EndpointKind, AnyEndpoint>();
    for (const endpoint of definition.endpoints()) {
      if (endpoints.has(endpoint.kind)) throw new TypeError(`${where}: the ${endpoint.kind} endpoint is declared twice`);
      endpoints.set(endpoint.kind, endpoint);
    }
    this.endpoints = endpoints;
    const has = (kind: EndpointKind) => endpoints.has(kind);
    this.collectionMethods = [...(has('index') ? ['GET', 'HEAD'] : []), ...(has('create') ? ['POST'] : [])];
    this.resourceMethods = [...(has('show') ? ['GET', 'HEAD'] : []), ...(has('update') ? ['PATCH'] : []), ...(has('delete') ? ['DELETE'] : [])];

    this.filters = new Map([...byName(definition.filters?.() ?? [], `${where}: filter`)].map(([name, filter]) => [name, boundFilter(definition, filter, where, this.fields)]));
    this.sorts = new Map([...byName(definition.sorts?.() ?? [], `${where}: sort`)].map(([name, sort]) => [name, boundSort(definition, sort, where, this.fields)]));
    const related = definition.related;
    const unloaded = related ? this.relationships.filter((r) => typeof related[r.name] !== 'function') : [];
    if (unloaded.length > 0) throw new TypeError(`${where}: the data layer's related has no loader for "${unloaded[0]!.name}"`);
    this.loadRelated = related
      ? (relationship, models, context) => {
          const load = related[relationship.name];
          if (!load) throw new TypeError(`${where}: the data layer's related has no loader for "${relationship.name}"`);
          return load.call(related, models, context, relationship);
        }
      : definition.loadRelated?.bind(definition);
    this.policy = definition.can?.bind(definition);
    const asking = [...endpoints.values()].filter((e) => e.abilities.length > 0).map((e) => e.kind);
    if (asking.length > 0 && !this.policy) throw new TypeError(`${where}: can() on the ${asking.join(' and ')} endpoint needs the data layer's can()`);

    const missing = (method: string) =>
      typeof (definition as unknown as Record<string, unknown>)[method] !== 'function' && !(method === 'loadRelated' && definition.related);
    const require = (methods: readonly string[], why: string) => {
      const absent = methods.filter(missing);
      if (absent.length > 0) throw new TypeError(`${where}: ${why} needs ${absent.map((m) => `${m}()`).join(' and ')}`);
    };
    for (const [kind, endpoint] of endpoints) require(NEEDS[endpoint.kind], `the ${kind} endpoint`);
    const index = endpoints.get('index') as Index | undefined;
    if (index?.pagination) require(['paginate'], 'paginate() on the index endpoint (Paginatable)');
    if (index?.isCountable) require(['count'], 'countable() on the index endpoint (Countable)');
    const declared = index?.countableDeclaration;
    this.counts =
      index !== undefined && (declared === true || (declared === undefined && typeof definition.count === 'function' && definition.countOnlyWhereDeclared !== true));
    if (index?.acceptsCursor) {
      if (!index.pagination) throw new TypeError(`${where}: cursor() on the index endpoint needs paginate() (its page sizes)`);
      require(['paginateCursor'], 'cursor() on the index endpoint (CursorPaginatable)');
    }
    if (this.relationships.length > 0 && (endpoints.has('show') || endpoints.has('index'))) {
      require(['loadRelated'], `reading relationships (${this.relationships.map((r) => r.name).join(', ')})`);
    }
    const writableToMany = this.relationships.filter((r) => r.cardinality === 'many' && r.isWritable);
    if (endpoints.has('update') && writableToMany.length > 0) {
      require(['loadRelated', 'addToRelationship', 'removeFromRelationship'], `changing ${writableToMany.map((r) => r.name).join(', ')}`);
    }
    for (const kind of ['update', 'delete'] as const) {
      const endpoint = endpoints.get(kind) as Update | Delete | undefined;
      if (endpoint?.requiresIfMatch) require(['versionOf'], `requireIfMatch() on the ${kind} endpoint (Versioned)`);
    }
    for (const term of index?.defaultSortValue ? parseSort(index.defaultSortValue) : []) {
      if (!this.sorts.has(term.name)) throw new TypeError(`${where}: the default sort names "${term.name}", which is not a declared sort`);
    }

    const getId = definition.getId?.bind(definition);
    this.getId = getId ?? ((model) => String((model as { id: unknown }).id));
  }

  /** The endpoint of `kind`, if enabled. */
  endpoint<K extends EndpointKind>(kind: K): Extract<AnyEndpoint, { kind: K }> | undefined {
    return this.endpoints.get(kind) as Extract<AnyEndpoint, { kind: K }> | undefined;
  }
}

/** A declared filter with the implementation this resource's data layer gives it. */
function boundFilter(definition: ResourceDefinition, filter: Filter, where: string, fields: ReadonlyMap<string, AnyField>): Filter {
  if (filter instanceof Where) {
    const [first, attribute, ...rest] = filter.name.split('.');
    const field = fields.get(first!);
    const path = attribute !== undefined;
    if (rest.length > 0 || (path ? !(field instanceof Relationship) : !(field instanceof Attribute) && !(field instanceof Relationship && field.cardinality === 'one'))) {
      throw new TypeError(
        `${where}: Where.make('${filter.name}') names no ${path ? 'relationship.attribute path' : 'attribute or to-one relationship'} of the resource`,
      );
    }
    if (!definition.where) throw new TypeError(`${where}: filter "${filter.name}" (Where) needs the data layer's where()`);
    return new BoundWhere(filter, (query, condition, context) => definition.where!(query, condition, context));
  }
  if (filter instanceof CustomFilter && filter.implementation && definition.customFilters?.[filter.name]) {
    throw new TypeError(`${where}: filter "${filter.name}" has a function in the schema and one in the data layer's customFilters: keep one`);
  }
  if (filter instanceof CustomFilter && !filter.implementation) {
    const implementation = definition.customFilters?.[filter.name];
    if (!implementation) throw new TypeError(`${where}: filter "${filter.name}" needs the data layer's customFilters.${filter.name}`);
    return new BoundFilter(filter, (query, value, context) => implementation.call(definition.customFilters, query, value, context));
  }
  return filter;
}

/** A declared sort with the implementation this resource's data layer gives it. */
function boundSort(definition: ResourceDefinition, sort: Sort, where: string, fields: ReadonlyMap<string, AnyField>): Sort {
  if (sort instanceof SortBy) {
    const [first, attribute, ...rest] = sort.name.split('.');
    const field = fields.get(first!);
    // An attribute, or `toOne.attribute` (the related resource's attribute is checked when the API has every resource).
    const path = attribute !== undefined && rest.length === 0 && field instanceof Relationship && field.cardinality === 'one'
      ? { relationship: first!, type: field.relatedType, attribute, many: false }
      : undefined;
    if (!(attribute === undefined ? field instanceof Attribute : path)) {
      throw new TypeError(`${where}: SortBy.make('${sort.name}') names no attribute of the resource, nor a to-one relationship's attribute`);
    }
    if (!definition.orderBy) throw new TypeError(`${where}: sort "${sort.name}" (SortBy) needs the data layer's orderBy()`);
    return new BoundSort(sort, (query, direction, context) =>
      path ? definition.orderBy!(query, sort.name, direction, context, path) : definition.orderBy!(query, sort.name, direction, context),
    );
  }
  if (sort instanceof CustomSort && sort.implementation && definition.customSorts?.[sort.name]) {
    throw new TypeError(`${where}: sort "${sort.name}" has a function in the schema and one in the data layer's customSorts: keep one`);
  }
  if (sort instanceof CustomSort && !sort.implementation) {
    const implementation = definition.customSorts?.[sort.name];
    if (!implementation) throw new TypeError(`${where}: sort "${sort.name}" needs the data layer's customSorts.${sort.name}`);
    return new BoundSort(sort, (query, direction, context) => implementation.call(definition.customSorts, query, direction, context));
  }
  return sort;
}

/** A declared filter applied by the data layer: the declaration's visibility, the data layer's implementation. */
class BoundFilter extends Filter {
  readonly declaration: Filter;
  readonly #apply: (query: unknown, value: FilterValue, context: Context) => MaybePromise<unknown>;

  constructor(declaration: Filter, apply: (query: unknown, value: FilterValue, context: Context) => MaybePromise<unknown>) {
    super(declaration.name);
    this.declaration = declaration;
    this.#apply = apply;
  }

  override permits(context: Context): MaybePromise<boolean> {
    return this.declaration.permits(context);
  }

  apply(query: unknown, value: FilterValue, context: Context): MaybePromise<unknown> {
    return this.#apply(query, value, context);
  }
}

/**
 * A `Where` filter with the data layer's `where`: the declaration's visibility, operators and
 * case rule; the runtime hands it one `Condition` at a time.
 */
export class BoundWhere extends BoundFilter {
  declare readonly declaration: Where;
  readonly #where: (query: unknown, condition: Condition, context: Context) => MaybePromise<unknown>;

  constructor(declaration: Where, where: (query: unknown, condition: Condition, context: Context) => MaybePromise<unknown>) {
    super(declaration, () => {
      throw new TypeError(`filter "${declaration.name}": a Where filter is applied one condition at a time (where())`);
    });
    this.#where = where;
  }

  /** Narrows `query` by one condition. */
  where(query: unknown, condition: Condition, context: Context): MaybePromise<unknown> {
    return this.#where(query, condition, context);
  }
}

/** A declared sort applied by the data layer: the declaration's visibility, the data layer's implementation. */
export class BoundSort extends Sort {
  /** What the schema declared (a `SortBy` is a field the data layer can page by keyset). */
  readonly declaration: Sort;
  readonly #apply: (query: unknown, direction: SortDirection, context: Context) => MaybePromise<unknown>;

  constructor(declaration: Sort, apply: (query: unknown, direction: SortDirection, context: Context) => MaybePromise<unknown>) {
    super(declaration.name);
    this.declaration = declaration;
    this.#apply = apply;
  }

  override permits(context: Context): MaybePromise<boolean> {
    return this.declaration.permits(context);
  }

  apply(query: unknown, direction: SortDirection, context: Context): MaybePromise<unknown> {
    return this.#apply(query, direction, context);
  }
}

function byName<T extends { name: string }>(items: readonly T[], what: string): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    if (!item.name.split('.').every(isMemberName)) throw new TypeError(`${what} "${item.name}" is not a legal member name`);
    map.set(item.name, item);
  }
  return map;
}

/** The resources the API knows, by type: what a document needs to follow relationships. */
export type ResourceLookup = (type: string) => RegisteredResource | undefined;
