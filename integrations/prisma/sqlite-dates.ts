/**
 * Date-times on SQLite as `…Z` text. Prisma's SQLite adapter binds a `DateTime` as
 * `2024-01-02T03:04:05.000+00:00`; a table that other code writes with `toISOString()`
 * (`…000Z`, as the Kysely store and the demo's seed do) would then hold two spellings of
 * the same instant, which compare and sort apart as text. `zuluDateTimes` wraps the adapter
 * so that every date-time it binds is `toISOString()`'s text.
 */

/** One statement as a driver adapter receives it (`SqlQuery` of `@prisma/driver-adapter-utils`). */
interface Statement {
  readonly sql: string;
  readonly args: unknown[];
  readonly argTypes: ReadonlyArray<{ scalarType: string; arity?: string } & Record<string, unknown>>;
}

/** What this module calls of a driver adapter, its transactions and its factory. */
interface Queryable {
  queryRaw(statement: Statement): Promise<unknown>;
  executeRaw(statement: Statement): Promise<unknown>;
}
interface Adapter extends Queryable {
  startTransaction(...args: unknown[]): Promise<Queryable>;
}
interface AdapterFactory {
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

/** `target` with its queries' date-times as `…Z` text; everything else as it is. */
function wrap<T extends Queryable>(target: T): T {
  return new Proxy(target, {
    get(object, name) {
      const value: unknown = Reflect.get(object, name, object);
      if (name === 'queryRaw' || name === 'executeRaw')
        return (statement: Statement) => (value as Queryable['queryRaw']).call(object, zulu(statement));
      if (name === 'startTransaction')
        return async (...args: unknown[]) => wrap(await (value as Adapter['startTransaction']).apply(object, args));
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}

/**
 * Wraps a SQLite driver adapter (`new PrismaBetterSqlite3(...)`) so that the `DateTime` values
 * Prisma binds (written, and compared in `where`) are `toISOString()`'s `…Z` text rather than
 * the adapter's `…+00:00`: rows a Prisma client writes then hold the same text as rows written
 * by other code with `toISOString()`, and compare with them as text.
 *
 * @example
 * import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
 * import { PrismaClient } from './generated/sqlite/client.js';
 * const prisma = new PrismaClient({ adapter: zuluDateTimes(new PrismaBetterSqlite3({ url: 'file:blog.sqlite' })) });
 */
export function zuluDateTimes<F extends object>(factory: F): F {
  return new Proxy(factory, {
    get(object, name) {
      const value: unknown = Reflect.get(object, name, object);
      if (name === 'connect') return async () => wrap(await (value as AdapterFactory['connect']).call(object));
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}
