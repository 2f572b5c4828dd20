import type { Kysely } from 'kysely';
import type { SelectQuery } from './select-query.js';

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

/** The key a planned query answers its plan under (nothing else has it). */
const PLAN = Symbol('plan');

/** The target of a planned query's proxy: its plan, and the Kysely query once something needed it. */
interface Planned {
  readonly [PLAN]: Plan;
  built?: SelectQuery;
}

/** The plan behind a query, when nothing but plan-aware steps has touched it. */
export function planOf(query: unknown): Plan | undefined {
  return typeof query === 'object' && query !== null ? (query as Partial<Planned>)[PLAN] : undefined;
}

function real(target: Planned): SelectQuery {
  return (target.built ??= target[PLAN].build(target[PLAN].executor));
}

/** One handler for every planned query: a request makes a few of them, each step one. */
const PLANNED: ProxyHandler<Planned> = {
  get(target, property) {
    if (property === PLAN) return target[PLAN];
    // Not a thenable: `await query` must not build it.
    if (property === 'then') return undefined;
    const query = real(target);
    const value: unknown = Reflect.get(query, property, query);
    // Kysely's builders keep their state in private fields: call methods on the builder itself.
    return typeof value === 'function' ? value.bind(query) : value;
  },
  has: (target, property) => property in real(target),
  getPrototypeOf: (target) => Object.getPrototypeOf(real(target)) as object | null,
  ownKeys: () => [],
  getOwnPropertyDescriptor: () => undefined,
};

/**
 * A query standing for `plan`: plan-aware steps (`Where`, `SortColumn`, the store's count,
 * paginate and results) read the plan; anything else (a `CustomFilter`, host code) finds a
 * Kysely select query, built from the plan on its executor at its first use, and goes on with that.
 */
export function plannedQuery(plan: Plan): SelectQuery {
  return new Proxy<Planned>({ [PLAN]: plan }, PLANNED) as unknown as SelectQuery;
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
