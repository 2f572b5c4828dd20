import type { Context } from '../dsl/context.js';
import type { Ability, AnyEndpoint, Delete, EndpointKind, Index, Update } from '../dsl/endpoints.js';
import { Attribute, Relationship, type ToMany, type ToOne } from '../dsl/fields.js';
import {
  CustomFilter,
  CustomSort,
  Filter,
  Sort,
  SortBy,
  SortWithCount,
  Where,
  WhereCount,
  type FilterValue,
  type SortDirection,
} from '../dsl/filters.js';
import { plainInJson } from '../core/json-text.js';
import { declarationIssues } from '../dsl/declaration-rules.js';
import type { AnyField, ResourceDefinition } from '../dsl/resource.js';
import type { MaybePromise } from '../core/types.js';
import type { CountPath } from '../dsl/operators.js';
import type { AnyMeta } from '../dsl/meta.js';

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
  /** The meta members of each resource object. */
  readonly meta: readonly AnyMeta[];
  readonly endpoints: ReadonlyMap<EndpointKind, AnyEndpoint>;
  readonly filters: ReadonlyMap<string, Filter>;
  readonly sorts: ReadonlyMap<string, Sort>;
  /** The methods `/{type}` answers (405 with `Allow` for others), from the enabled endpoints. */
  readonly collectionMethods: readonly string[];
  /** The methods `/{type}/{id}` answers. */
  readonly resourceMethods: readonly string[];
  readonly getId: (model: unknown, context: Context) => string;
  /** The data layer's relationship reader: its `related` loaders by name, or its `loadRelated`. */
  readonly loadRelated:
    | ((relationship: Relationship, models: readonly unknown[], context: Context) => MaybePromise<readonly unknown[]>)
    | undefined;
  /** The data layer's `can`, which the schema's `can(ability)` callbacks consult. */
  readonly policy: ((ability: Ability, model: unknown, context: Context) => MaybePromise<boolean>) | undefined;
  /**
   * Whether paginated lists of this resource are counted: `countable()` declared, or undeclared
   * with a data layer that implements `Countable` (and did not ask to count only where declared).
   */
  readonly counts: boolean;
  /** The custom filters the data layer's `where` can take inside `filter[or]` and `filter[not]`. */
  readonly composableFilters: ReadonlySet<string>;
  /** Its type segment and relationship names hold nothing JSON escapes, so its links need no look when written (see `plainInJson`). */
  readonly plainLinks: boolean;

  constructor(definition: ResourceDefinition) {
    // The declaration's rules (names, builder arguments, what names what): the ones `jsonapi-gen build` applies too.
    const issues = declarationIssues(definition);
    if (issues.length > 0)
      throw new TypeError(
        `resource "${String(safeType(definition))}": ${issues.map((issue) => issue.message).join('; ')}`,
      );
    const type = definition.type();
    const where = `resource "${type}"`;
    this.type = type;
    this.typeSegment = encodeURIComponent(type);
    this.definition = definition;

    const fields = new Map<string, AnyField>();
    for (const field of definition.fields()) fields.set(field.name, field);
    this.fields = fields;
    this.meta = definition.meta?.() ?? [];
    this.attributes = [...fields.values()].filter((f): f is Attribute => f instanceof Attribute);
    this.relationships = [...fields.values()].filter((f): f is ToOne | ToMany => f instanceof Relationship);
    this.conditionalAttributes = this.attributes.filter((a) => a.isConditional);
    this.plainLinks = plainInJson(this.typeSegment) && this.relationships.every((r) => plainInJson(r.name));

    const endpoints = new Map<EndpointKind, AnyEndpoint>();
    for (const endpoint of definition.endpoints()) endpoints.set(endpoint.kind, endpoint);
    this.endpoints = endpoints;
    const has = (kind: EndpointKind) => endpoints.has(kind);
    this.collectionMethods = [...(has('index') ? ['GET', 'HEAD'] : []), ...(has('create') ? ['POST'] : [])];
    this.resourceMethods = [
      ...(has('show') ? ['GET', 'HEAD'] : []),
      ...(has('update') ? ['PATCH'] : []),
      ...(has('delete') ? ['DELETE'] : []),
    ];

    this.filters = new Map(
      (definition.filters?.() ?? []).map((filter) => [filter.name, boundFilter(definition, filter, where, fields)]),
    );
    this.sorts = new Map(
      (definition.sorts?.() ?? []).map((sort) => [sort.name, boundSort(definition, sort, where, this.fields)]),
    );
    this.composableFilters = new Set(definition.composableFilters ?? []);
    for (const name of this.composableFilters) {
      const filter = this.filters.get(name);
      if (!filter || filter instanceof BoundWhere)
        throw new TypeError(
          `${where}: composableFilters names "${name}", which is not a custom filter of the resource`,
        );
      if (!definition.where) throw new TypeError(`${where}: composableFilters needs the data layer's where()`);
    }
    const related = definition.related;
    const unloaded = related ? this.relationships.filter((r) => typeof related[r.name] !== 'function') : [];
    if (unloaded.length > 0)
      throw new TypeError(`${where}: the data layer's related has no loader for "${unloaded[0]!.name}"`);
    this.loadRelated = related
      ? (relationship, models, context) => {
          const load = related[relationship.name];
          if (!load) throw new TypeError(`${where}: the data layer's related has no loader for "${relationship.name}"`);
          return load.call(related, models, context, relationship);
        }
      : definition.loadRelated?.bind(definition);
    this.policy = definition.can?.bind(definition);
    const asking = [...endpoints.values()].filter((e) => e.abilities.length > 0).map((e) => e.kind);
    if (asking.length > 0 && !this.policy)
      throw new TypeError(`${where}: can() on the ${asking.join(' and ')} endpoint needs the data layer's can()`);

    const missing = (method: string) =>
      typeof (definition as unknown as Record<string, unknown>)[method] !== 'function' &&
      !(method === 'loadRelated' && definition.related);
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
      index !== undefined &&
      (declared === true ||
        (declared === undefined &&
          typeof definition.count === 'function' &&
          definition.countOnlyWhereDeclared !== true));
    if (index?.acceptsCursor) require(['paginateCursor'], 'cursor() on the index endpoint (CursorPaginatable)');
    const countable = this.relationships.filter((r) => r.cardinality === 'many' && r.isCountable);
    if (countable.length > 0)
      require(['countRelated'], `countable() on ${countable.map((r) => r.name).join(', ')} (RelationshipCounts)`);
    const countSorts = [...this.sorts.values()].filter(
      (s) => s instanceof BoundSort && s.declaration instanceof SortWithCount,
    );
    if (countSorts.length > 0 && index?.acceptsCursor)
      require([
        'countRelated',
      ], `sorting cursor pages by ${countSorts.map((s) => s.name).join(', ')} (RelationshipCounts)`);
    if (this.relationships.length > 0 && (endpoints.has('show') || endpoints.has('index'))) {
      require(['loadRelated'], `reading relationships (${this.relationships.map((r) => r.name).join(', ')})`);
    }
    const writableToMany = this.relationships.filter((r) => r.cardinality === 'many' && r.isWritable);
    if (endpoints.has('update') && writableToMany.length > 0) {
      require([
        'loadRelated',
        'addToRelationship',
        'removeFromRelationship',
      ], `changing ${writableToMany.map((r) => r.name).join(', ')}`);
    }
    for (const kind of ['update', 'delete'] as const) {
      const endpoint = endpoints.get(kind) as Update | Delete | undefined;
      if (endpoint?.requiresIfMatch) require(['versionOf'], `requireIfMatch() on the ${kind} endpoint (Versioned)`);
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
function boundFilter(
  definition: ResourceDefinition,
  filter: Filter,
  where: string,
  fields: ReadonlyMap<string, AnyField>,
): Filter {
  if (filter instanceof Where || filter instanceof WhereCount) {
    if (!definition.where)
      throw new TypeError(
        `${where}: filter "${filter.name}" (${filter instanceof Where ? 'Where' : 'WhereCount'}) needs the data layer's where()`,
      );
    return new BoundWhere(filter, countPath(filter, fields));
  }
  if (filter instanceof CustomFilter && filter.implementation && definition.customFilters?.[filter.name]) {
    throw new TypeError(
      `${where}: filter "${filter.name}" has a function in the schema and one in the data layer's customFilters: keep one`,
    );
  }
  if (filter instanceof CustomFilter && !filter.implementation) {
    const implementation = definition.customFilters?.[filter.name];
    if (!implementation)
      throw new TypeError(`${where}: filter "${filter.name}" needs the data layer's customFilters.${filter.name}`);
    return new BoundFilter(filter, (query, value, context) =>
      implementation.call(definition.customFilters, query, value, context),
    );
  }
  return filter;
}

/** A declared sort with the implementation this resource's data layer gives it. */
function boundSort(
  definition: ResourceDefinition,
  sort: Sort,
  where: string,
  fields: ReadonlyMap<string, AnyField>,
): Sort {
  if (sort instanceof SortBy) {
    // An attribute, or `toOne.attribute` (the declaration's rules made sure of it).
    const [first, attribute] = sort.name.split('.');
    const field = fields.get(first!);
    const path =
      attribute !== undefined && field instanceof Relationship
        ? { relationship: first!, type: field.relatedType, attribute, many: false }
        : undefined;
    if (!definition.orderBy)
      throw new TypeError(`${where}: sort "${sort.name}" (SortBy) needs the data layer's orderBy()`);
    return new BoundSort(sort, (query, direction, context) =>
      path
        ? definition.orderBy!(query, sort.name, direction, context, path)
        : definition.orderBy!(query, sort.name, direction, context),
    );
  }
  if (sort instanceof SortWithCount) {
    if (!definition.orderBy)
      throw new TypeError(`${where}: sort "${sort.name}" (SortWithCount) needs the data layer's orderBy()`);
    const path = countPath(sort, fields)!;
    return new BoundSort(
      sort,
      (query, direction, context) => definition.orderBy!(query, sort.name, direction, context, path),
      path,
    );
  }
  if (sort instanceof CustomSort && sort.implementation && definition.customSorts?.[sort.name]) {
    throw new TypeError(
      `${where}: sort "${sort.name}" has a function in the schema and one in the data layer's customSorts: keep one`,
    );
  }
  if (sort instanceof CustomSort && !sort.implementation) {
    const implementation = definition.customSorts?.[sort.name];
    if (!implementation)
      throw new TypeError(`${where}: sort "${sort.name}" needs the data layer's customSorts.${sort.name}`);
    return new BoundSort(sort, (query, direction, context) =>
      implementation.call(definition.customSorts, query, direction, context),
    );
  }
  return sort;
}

/** A declared filter applied by the data layer: the declaration's visibility, the data layer's implementation. */
class BoundFilter extends Filter {
  readonly declaration: Filter;
  readonly #apply: (query: unknown, value: FilterValue, context: Context) => MaybePromise<unknown>;

  constructor(
    declaration: Filter,
    apply: (query: unknown, value: FilterValue, context: Context) => MaybePromise<unknown>,
  ) {
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
 * A `Where` or `WhereCount` filter: the declaration's visibility, operators and case rule. The
 * runtime hands its conditions, and the request's groups, to the data layer's `where`.
 */
export class BoundWhere extends BoundFilter {
  declare readonly declaration: Where | WhereCount;
  /** For a `WhereCount`: the relationship it counts. */
  readonly counted: CountPath | undefined;

  constructor(declaration: Where | WhereCount, counted: CountPath | undefined) {
    super(declaration, () => {
      throw new TypeError(`filter "${declaration.name}": a Where filter is applied one condition at a time (where())`);
    });
    this.counted = counted;
  }

  /** Whether its text operators ignore letter case. */
  get isCaseInsensitive(): boolean {
    return this.declaration instanceof Where && this.declaration.isCaseInsensitive;
  }
}

/** The relationship a `WhereCount` or `SortWithCount` counts (the declaration's rules made sure it is a to-many one). */
function countPath(declaration: Filter | Sort, fields: ReadonlyMap<string, AnyField>): CountPath | undefined {
  if (!(declaration instanceof WhereCount || declaration instanceof SortWithCount)) return undefined;
  const relationship = fields.get(declaration.countedRelationship!) as ToMany;
  return { relationship: relationship.name, type: relationship.relatedType };
}

/** A declared sort applied by the data layer: the declaration's visibility, the data layer's implementation. */
export class BoundSort extends Sort {
  /** What the schema declared (a `SortBy` is a field the data layer can page by keyset). */
  readonly declaration: Sort;
  /** For a `SortWithCount`: the relationship it counts. */
  readonly counted: CountPath | undefined;
  readonly #apply: (query: unknown, direction: SortDirection, context: Context) => MaybePromise<unknown>;

  constructor(
    declaration: Sort,
    apply: (query: unknown, direction: SortDirection, context: Context) => MaybePromise<unknown>,
    counted?: CountPath,
  ) {
    super(declaration.name);
    this.declaration = declaration;
    this.counted = counted;
    this.#apply = apply;
  }

  override permits(context: Context): MaybePromise<boolean> {
    return this.declaration.permits(context);
  }

  apply(query: unknown, direction: SortDirection, context: Context): MaybePromise<unknown> {
    return this.#apply(query, direction, context);
  }
}

/** The type for a message, when `type()` gives one. */
function safeType(definition: ResourceDefinition): unknown {
  try {
    return definition.type();
  } catch {
    return undefined;
  }
}

/** The resources the API knows, by type: what a document needs to follow relationships. */
export type ResourceLookup = (type: string) => RegisteredResource | undefined;
