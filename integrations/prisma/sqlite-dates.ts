/**
 * Date-times on SQLite as `…Z` text. Prisma's SQLite adapter binds a `DateTime` as
 * `2024-01-02T03:04:05.000+00:00`; a table that other code writes with `toISOString()`
 * (`…000Z`, as the Kysely store and the demo's seed do) would then hold two spellings of
 * the same instant, which compare and sort apart as text. `zuluDateTimes` wraps the adapter
 * so that every date-time it binds is `toISOString()`'s text.
 */

/** One statement as a driver adapter receives it (`SqlQuery` of `@prisma/driver-adapter-utils`). */
export interface Statement {
  readonly sql: string;
  readonly args: unknown[];
  readonly argTypes: ReadonlyArray<{ scalarType: string; arity?: string } & Record<string, unknown>>;
}

/** What this module calls of a driver adapter, its transactions and its factory. */
export interface Queryable {
  queryRaw(statement: Statement): Promise<unknown>;
  executeRaw(statement: Statement): Promise<unknown>;
}
export interface Adapter extends Queryable {
  startTransaction(...args: unknown[]): Promise<Queryable>;
}
export interface AdapterFactory {
  connect(): Promise<Adapter>;
}

/** The statement with its date-time arguments as `…Z` text. */
function zulu(statement: Statement): Statement {
  if (!statement.argTypes.some((type) => type.scalarType === 'datetime')) return statement;
  const args = [...statement.args];
  const argTypes = statement.argTypes.map((type, i) => {
    const value = args[i];
    if (type.scalarType !== 'datetime' || value === null || value === undefined) return type;
    args[i] = (value instanceof Date ? value : new Date(value as string | number)).toISOString();
    return { ...type, scalarType: 'string' };
  });
  return { ...statement, args, argTypes };
}

/** `target`, its queries' date-times made `…Z` text from now on (its own methods replaced; the rest as it is). */
function wrap<T extends Queryable>(target: T): T {
  const queryRaw = target.queryRaw.bind(target);
  const executeRaw = target.executeRaw.bind(target);
  target.queryRaw = (statement) => queryRaw(zulu(statement));
  target.executeRaw = (statement) => executeRaw(zulu(statement));
  const adapter = target as Partial<Adapter>;
  if (typeof adapter.startTransaction === 'function') {
    const start = adapter.startTransaction.bind(target);
    adapter.startTransaction = async (...args: unknown[]) => wrap(await start(...args));
  }
  return target;
}

/**
 * Makes a SQLite driver adapter (`new PrismaBetterSqlite3(...)`) bind the `DateTime` values
 * Prisma sends (written, and compared in `where`) as `toISOString()`'s `…Z` text rather than
 * the adapter's `…+00:00`: rows a Prisma client writes then hold the same text as rows written
 * by other code with `toISOString()`, and compare with them as text. It changes the factory it
 * is given (its `connect`, and the adapters that makes) and returns it.
 *
 * @example
 * import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
 * import { PrismaClient } from './generated/sqlite/client.js';
 * const prisma = new PrismaClient({ adapter: zuluDateTimes(new PrismaBetterSqlite3({ url: 'file:blog.sqlite' })) });
 */
export function zuluDateTimes<F extends object>(factory: F): F {
  const connectable = factory as unknown as AdapterFactory;
  const connect = connectable.connect.bind(factory);
  connectable.connect = async () => wrap(await connect());
  return factory;
}
