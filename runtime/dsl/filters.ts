import type { Context } from './context.js';
import type { MaybePromise } from '../core/types.js';
import type { Operator } from './operators.js';
import { Visibility } from './visibility.js';

/** A filter value: a string for `filter[x]=a`, an array for `filter[x][]=a&filter[x][]=b`. */
export type FilterValue = string | string[];

/** A sort direction. */
export type SortDirection = 'asc' | 'desc';

/**
 * A filter usable as `filter[name]=...` on an Index. Subclass it, or use `CustomFilter.make`.
 * The query is the data layer's own object: return it, or a new one for immutable builders.
 */
export abstract class Filter<Q = unknown> extends Visibility<[Context]> {
  readonly name: string;
  #description: string | undefined;

  constructor(name: string) {
    super();
    this.name = name;
  }

  /**
   * What the filter keeps, in a sentence: the generated OpenAPI document gives it as the
   * `filter[name]` parameter's description (followed by the rule for comma lists, which the
   * generator adds), so clients read the schema author's words rather than a generic one.
   *
   * @example
   * CustomFilter.make('search').description('Articles whose title contains the value, case-insensitively.')
   */
  description(text: string): this {
    if (typeof text !== 'string' || text.trim() === '')
      throw new TypeError(`filter "${this.name}": description() takes a non-empty text`);
    this.#description = text.trim();
    return this;
  }

  /** The text given to `description()`, if any. */
  get descriptionText(): string | undefined {
    return this.#description;
  }

  /** Narrow `query` by `value`. */
  abstract apply(query: Q, value: FilterValue, context: Context): MaybePromise<Q>;
}

/** A sort usable as `sort=name` or `sort=-name` on an Index. Subclass it, or use `CustomSort.make`. */
export abstract class Sort<Q = unknown> extends Visibility<[Context]> {
  readonly name: string;

  constructor(name: string) {
    super();
    this.name = name;
  }

  /** Order `query` by this sort in `direction`. */
  abstract apply(query: Q, direction: SortDirection, context: Context): MaybePromise<Q>;
}

/**
 * A filter of the resource's own meaning (`filter[search]=...`). In a schema it is declared by
 * name only, and the data layer implements it (`customFilters.search` of the generated data-layer
 * interface, which the Kysely store takes from its mapping's `filters`). A host without
 * generated code may pass the implementation here instead.
 *
 * @example
 * CustomFilter.make('search');                        // schema.ts: declared
 * CustomFilter.make('search').description('Articles whose title contains the value.'); // and described in the OpenAPI document
 * CustomFilter.make('status', (rows: { status: string }[], value) => rows.filter((r) => [value].flat().includes(r.status)));
 */
export class CustomFilter<Q = unknown> extends Filter<Q> {
  readonly declares = 'custom' as const;
  /** The implementation given with the declaration, if any (else the data layer's). */
  readonly implementation: ((query: Q, value: FilterValue, context: Context) => MaybePromise<Q>) | undefined;

  constructor(name: string, apply?: (query: Q, value: FilterValue, context: Context) => MaybePromise<Q>) {
    super(name);
    this.implementation = apply;
  }

  /** A filter named `name`, implemented by the data layer or by `apply`. */
  static make<Q = unknown>(
    name: string,
    apply?: (query: Q, value: FilterValue, context: Context) => MaybePromise<Q>,
  ): CustomFilter<Q> {
    return new CustomFilter(name, apply);
  }

  apply(query: Q, value: FilterValue, context: Context): MaybePromise<Q> {
    if (!this.implementation)
      throw new TypeError(
        `filter "${this.name}" is declared without an implementation: the data layer's customFilters must give it`,
      );
    return this.implementation(query, value, context);
  }
}

/**
 * A sort of the resource's own meaning. In a schema it is declared by name only, and the data
 * layer implements it (`customSorts.<name>` of the generated data-layer interface); a host
 * without generated code may pass the implementation here instead.
 *
 * @example
 * CustomSort.make('popularity');                       // schema.ts: declared
 * CustomSort.make('title', (rows: { title: string }[], dir) => rows.toSorted((a, b) => (dir === 'asc' ? 1 : -1) * a.title.localeCompare(b.title)));
 */
export class CustomSort<Q = unknown> extends Sort<Q> {
  readonly declares = 'custom' as const;
  /** The implementation given with the declaration, if any (else the data layer's). */
  readonly implementation: ((query: Q, direction: SortDirection, context: Context) => MaybePromise<Q>) | undefined;

  constructor(name: string, apply?: (query: Q, direction: SortDirection, context: Context) => MaybePromise<Q>) {
    super(name);
    this.implementation = apply;
  }

  /** A sort named `name`, implemented by the data layer or by `apply`. */
  static make<Q = unknown>(
    name: string,
    apply?: (query: Q, direction: SortDirection, context: Context) => MaybePromise<Q>,
  ): CustomSort<Q> {
    return new CustomSort(name, apply);
  }

  apply(query: Q, direction: SortDirection, context: Context): MaybePromise<Q> {
    if (!this.implementation)
      throw new TypeError(
        `sort "${this.name}" is declared without an implementation: the data layer's customSorts must give it`,
      );
    return this.implementation(query, direction, context);
  }
}

/**
 * A filter on a field, with operators: `filter[createdAt][gte]=2024-01-01T00:00:00Z`,
 * `filter[title][contains]=ts`, `filter[status]=draft` (`eq`), `filter[author][]=1&filter[author][]=2`
 * or `filter[author]=1,2` (`in`). The field is an attribute, a to-one relationship (compared by
 * the related id), or a path through a relationship to an attribute of the related resource:
 * `author.name` (to-one), `tags.name` (to-many: resources with any related match). The
 * operators default by the kind of the attribute (see `defaultOperators`); `operators(...)`
 * narrows or widens them. Values are read by that kind (400 for a bad one). Declared in the
 * schema; the data layer's `where` receives each condition as a plain `Condition`.
 *
 * @example
 * filters: [Where.make('title').caseInsensitive(), Where.make('createdAt'), Where.make('status').operators('eq', 'in'), Where.make('author.name')]
 */
export class Where extends Filter<unknown> {
  readonly declares = 'where' as const;
  #operators: readonly Operator[] | undefined;
  #caseInsensitive = false;

  /** A filter on the field (or path) `name`. */
  static make(name: string): Where {
    return new Where(name);
  }

  /**
   * The operators `filter[name][op]` takes, instead of the defaults for the field's kind: one
   * or more, each applying to that kind (text operators to strings, ordering to strings,
   * numbers and dates), checked at registration.
   *
   * @example
   * Where.make('createdAt').operators('gte', 'lte')
   */
  operators(...operators: Operator[]): this {
    this.#operators = Object.freeze([...new Set(operators)]);
    return this;
  }

  /**
   * `contains`, `startsWith` and `endsWith` ignore letter case.
   *
   * @example
   * Where.make('title').caseInsensitive()
   */
  caseInsensitive(): this {
    this.#caseInsensitive = true;
    return this;
  }

  /** The operators declared with `operators()`, if any (else the defaults of the field's kind). */
  get declaredOperators(): readonly Operator[] | undefined {
    return this.#operators;
  }

  /** Whether text operators ignore letter case. */
  get isCaseInsensitive(): boolean {
    return this.#caseInsensitive;
  }

  apply(): never {
    throw new TypeError(`filter "${this.name}": a Where filter is applied by the data layer's where()`);
  }
}

/**
 * A sort on a field: `sort=title` ascending, `sort=-title` descending; also on an attribute of a
 * to-one relationship, `sort=author.name`. Declared in the schema; the data layer's `orderBy`
 * implements it (the Kysely store from its mapping).
 *
 * @example
 * sorts: [SortBy.make('title'), SortBy.make('createdAt'), SortBy.make('author.name')]
 */
export class SortBy extends Sort<unknown> {
  readonly declares = 'field' as const;
  /** A sort on the field `name`. */
  static make(name: string): SortBy {
    return new SortBy(name);
  }

  apply(): never {
    throw new TypeError(`sort "${this.name}": a SortBy sort is applied by the data layer's orderBy()`);
  }
}

/**
 * A filter on the number of a to-many relationship's related resources (those the request may
 * see): `filter[commentCount][gte]=2`, `filter[commentCount]=0` (`eq`). Values are integers;
 * the operators are `eq`, `ne`, `lt`, `lte`, `gt`, `gte` (or those `operators(...)` keeps). The
 * data layer's `where` receives a `Condition` whose `count` names the relationship.
 *
 * @example
 * filters: [WhereCount.make('commentCount').relationship('comments')]
 */
export class WhereCount extends Filter<unknown> {
  readonly declares = 'count' as const;
  #relationship: string | undefined;
  #operators: readonly Operator[] | undefined;

  /** A count filter named `name` (not a field's name). */
  static make(name: string): WhereCount {
    return new WhereCount(name);
  }

  /** The to-many relationship counted. */
  relationship(name: string): this {
    this.#relationship = name;
    return this;
  }

  /**
   * The operators it takes, among `eq`, `ne`, `lt`, `lte`, `gt`, `gte` (all six by default).
   *
   * @example
   * WhereCount.make('commentCount').relationship('comments').operators('gte', 'lte')
   */
  operators(...operators: Operator[]): this {
    this.#operators = Object.freeze([...new Set(operators)]);
    return this;
  }

  /** The relationship given to `relationship()`, if any. */
  get countedRelationship(): string | undefined {
    return this.#relationship;
  }

  /** The operators declared with `operators()`, if any. */
  get declaredOperators(): readonly Operator[] | undefined {
    return this.#operators;
  }

  apply(): never {
    throw new TypeError(`filter "${this.name}": a WhereCount filter is applied by the data layer's where()`);
  }
}

/**
 * A sort by the number of a to-many relationship's related resources (those the request may
 * see): `sort=-commentCount,title`. The data layer's `orderBy` receives the relationship as its
 * `path` (a `CountPath`); cursor pages follow it too.
 *
 * @example
 * sorts: [SortWithCount.make('commentCount').relationship('comments')]
 */
export class SortWithCount extends Sort<unknown> {
  readonly declares = 'count' as const;
  #relationship: string | undefined;

  /** A count sort named `name` (not a field's name). */
  static make(name: string): SortWithCount {
    return new SortWithCount(name);
  }

  /** The to-many relationship counted. */
  relationship(name: string): this {
    this.#relationship = name;
    return this;
  }

  /** The relationship given to `relationship()`, if any. */
  get countedRelationship(): string | undefined {
    return this.#relationship;
  }

  apply(): never {
    throw new TypeError(`sort "${this.name}": a SortWithCount sort is applied by the data layer's orderBy()`);
  }
}

/**
 * `takesCommaList` on a declaration: `field` is the resource's field named `name`, if any. Read
 * by property (never `instanceof`), so that a tool may ask of a schema built by another copy of
 * the runtime (`describeSchema` carries the answer to the generator).
 *
 * @example
 * isCommaListFilter('status', Attribute.make('status').type('enum', ['draft', 'published'])); // true
 */
export function isCommaListFilter(
  name: string,
  field: { readonly cardinality?: unknown; readonly kind?: unknown } | undefined,
): boolean {
  if (name === 'id') return true;
  return (
    field !== undefined &&
    (field.cardinality === 'one' ||
      field.cardinality === 'many' ||
      (field.cardinality === undefined && field.kind === 'enum'))
  );
}
