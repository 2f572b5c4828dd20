import type { Context } from './context.js';
import type { MaybePromise } from './types.js';
import { Visibility } from './visibility.js';

/** A filter value: a string for `filter[x]=a`, an array for `filter[x][]=a&filter[x][]=b`. */
export type FilterValue = string | string[];

/** A sort direction. */
export type SortDirection = 'asc' | 'desc';

/**
 * A filter usable as `filter[name]=...` on an Index. Subclass it, or use `CustomFilter.make`.
 * The query is the data layer's own object: return it, or a new one for immutable builders.
 */
export abstract class Filter<Q = any> extends Visibility<[Context]> {
  readonly name: string;

  constructor(name: string) {
    super();
    this.name = name;
  }

  /** Narrow `query` by `value`. */
  abstract apply(query: Q, value: FilterValue, context: Context): MaybePromise<Q>;
}

/** A sort usable as `sort=name` or `sort=-name` on an Index. Subclass it, or use `CustomSort.make`. */
export abstract class Sort<Q = any> extends Visibility<[Context]> {
  readonly name: string;

  constructor(name: string) {
    super();
    this.name = name;
  }

  /** Order `query` by this sort in `direction`. */
  abstract apply(query: Q, direction: SortDirection, context: Context): MaybePromise<Q>;
}

/**
 * A filter from a callback.
 *
 * @example
 * CustomFilter.make('status', (rows, value) => rows.filter((r) => [value].flat().includes(r.status)));
 */
export class CustomFilter<Q = any> extends Filter<Q> {
  readonly #apply: (query: Q, value: FilterValue, context: Context) => MaybePromise<Q>;

  constructor(name: string, apply: (query: Q, value: FilterValue, context: Context) => MaybePromise<Q>) {
    super(name);
    this.#apply = apply;
  }

  /** A filter named `name` applied by `apply`. */
  static make<Q = any>(
    name: string,
    apply: (query: Q, value: FilterValue, context: Context) => MaybePromise<Q>,
  ): CustomFilter<Q> {
    return new CustomFilter(name, apply);
  }

  apply(query: Q, value: FilterValue, context: Context): MaybePromise<Q> {
    return this.#apply(query, value, context);
  }
}

/**
 * A sort from a callback.
 *
 * @example
 * CustomSort.make('title', (rows, dir) => rows.sortBy('title', dir));
 */
export class CustomSort<Q = any> extends Sort<Q> {
  readonly #apply: (query: Q, direction: SortDirection, context: Context) => MaybePromise<Q>;

  constructor(name: string, apply: (query: Q, direction: SortDirection, context: Context) => MaybePromise<Q>) {
    super(name);
    this.#apply = apply;
  }

  /** A sort named `name` applied by `apply`. */
  static make<Q = any>(
    name: string,
    apply: (query: Q, direction: SortDirection, context: Context) => MaybePromise<Q>,
  ): CustomSort<Q> {
    return new CustomSort(name, apply);
  }

  apply(query: Q, direction: SortDirection, context: Context): MaybePromise<Q> {
    return this.#apply(query, direction, context);
  }
}
