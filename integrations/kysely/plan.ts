import type { Kysely } from 'kysely';
import type { SelectQuery } from './filters.js';

/**
 * A collection read described rather than built: its shape (which table, which `Where`
 * filters with how many values, which `SortColumn` sorts, whether paginated), its bound values
 * in order, and the steps that build it with Kysely. The store compiles a shape once and then
 * runs it with each request's values: Kysely would otherwise build and compile every Index
 * query anew, which costs more than the runtime's own work on a page of 20.
 */
export interface Plan {
  /** The resource's table, which qualifies the columns of filters and sorts. */
  readonly table: string;
  /** Everything the SQL text depends on. */
  readonly shape: string;
  /** The values the SQL binds, in the order Kysely compiles them. */
  readonly values: readonly unknown[];
  /** Builds the query on `db` (the first time a shape is run, or when something needs the builder). */
  build(db: Kysely<any>): SelectQuery;
  /** What the query was started on (the request's transaction, or the database). */
  readonly executor: Kysely<any>;
}

const plans = new WeakMap<object, Plan>();

/** The plan behind a query, when nothing but plan-aware steps has touched it. */
export function planOf(query: unknown): Plan | undefined {
  return typeof query === 'object' && query !== null ? plans.get(query) : undefined;
}

/**
 * A query standing for `plan`: plan-aware steps (`Where`, `SortColumn`, the store's count,
 * paginate and results) read the plan; anything else (a `CustomFilter`, host code) finds a
 * Kysely select query, built from the plan on its executor at its first use, and goes on with that.
 */
export function plannedQuery(plan: Plan): SelectQuery {
  let built: SelectQuery | undefined;
  const real = (): SelectQuery => (built ??= plan.build(plan.executor));
  const proxy = new Proxy(Object.create(null) as object, {
    get(_target, property) {
      // Not a thenable: `await query` must not build it.
      if (property === 'then') return undefined;
      const query = real();
      const value: unknown = Reflect.get(query, property, query);
      // Kysely's builders keep their state in private fields: call methods on the builder itself.
      return typeof value === 'function' ? value.bind(query) : value;
    },
    has: (_target, property) => property in real(),
    getPrototypeOf: () => Object.getPrototypeOf(real()) as object | null,
  });
  plans.set(proxy, plan);
  return proxy as SelectQuery;
}

/** `plan` narrowed or ordered by one more step, whose SQL depends only on `shape`. */
export function extendPlan(plan: Plan, shape: string, values: readonly unknown[], step: (query: SelectQuery) => SelectQuery): SelectQuery {
  return plannedQuery({
    table: plan.table,
    shape: `${plan.shape} ${shape}`,
    values: values.length === 0 ? plan.values : [...plan.values, ...values],
    build: (on) => step(plan.build(on)),
    executor: plan.executor,
  });
}
