/**
 * What a Drizzle statement threw, as the runtime's JSON:API errors. Drizzle wraps a driver's
 * error in a `DrizzleQueryError` ("Failed query: ...", a query builder's statement) or a
 * `DrizzleError` ("Failed to run the query", `db.run` on SQLite) whose `cause` is what
 * better-sqlite3 or node-postgres threw; that cause is read by the rules the SQL stores share (`sqlClientError`
 * of `jsonapi-gen/internal`): 409 for a unique violation (at the member when the write says
 * which), 422 for a value a column cannot hold, 503 with `Retry-After` when the database is away.
 */
import { DrizzleError, DrizzleQueryError } from 'drizzle-orm';
import { conflictAborted, sqlClientError, unavailable, unavailableError, type Written } from 'jsonapi-gen/internal';

export type { Written } from 'jsonapi-gen/internal';

/**
 * The driver's own error behind `thrown`: the `cause` of a `DrizzleQueryError` or a
 * `DrizzleError`, else `thrown`.
 *
 * @example
 * declare const thrown: unknown;
 * const code = (driverError(thrown) as { code?: string }).code; // 'SQLITE_CONSTRAINT_UNIQUE', '23505', ...
 */
export function driverError(thrown: unknown): unknown {
  const wrapped = thrown instanceof DrizzleQueryError || thrown instanceof DrizzleError;
  return wrapped && thrown.cause !== undefined ? thrown.cause : thrown;
}

/**
 * The JSON:API error for what a Drizzle statement threw when the client caused it or the
 * database is away (see `sqlClientError`), else `thrown` itself, unchanged.
 *
 * @example
 * declare const thrown: unknown;
 * throw drizzleError(thrown, { attributes: { name: 'json' }, column: () => 'name', idColumn: 'id' });
 */
export function drizzleError(thrown: unknown, written?: Written): unknown {
  const cause = driverError(thrown);
  const mapped = sqlClientError(cause, written);
  return mapped === cause ? thrown : mapped;
}

/**
 * Runs a Drizzle statement, what it throws mapped by `drizzleError`.
 *
 * @example
 * import { db } from './db.js';
 * import { tags } from './tables.js';
 * await runDrizzle(() => db.insert(tags).values({ name: 'json' }), {
 *   attributes: { name: 'json' },
 *   column: () => 'name',
 *   idColumn: 'id',
 * }); // a taken name: 409 at /data/attributes/name
 */
export async function runDrizzle<T>(statement: () => T | PromiseLike<T>, written?: Written): Promise<T> {
  try {
    return await statement();
  } catch (thrown) {
    throw drizzleError(thrown, written);
  }
}

/**
 * The 503 with `Retry-After` when `thrown` says the database could not serve the statement
 * for now (busy past SQLite's busy_timeout, PostgreSQL unreachable or shutting down), else
 * `thrown` itself.
 *
 * @example
 * declare const thrown: unknown;
 * throw whenDrizzleUnavailable(thrown);
 */
export function whenDrizzleUnavailable(thrown: unknown): unknown {
  return unavailable(driverError(thrown)) ? unavailableError() : thrown;
}

/**
 * Whether the database aborted the transaction for a conflict with another one (PostgreSQL: a
 * serialization failure or a deadlock; MySQL and MariaDB: a deadlock, 1213, or a lock wait past
 * its timeout, 1205), which running it again resolves.
 *
 * @example
 * declare const thrown: unknown;
 * if (drizzleRetryable(thrown)) console.log('run the transaction again');
 */
export function drizzleRetryable(thrown: unknown): boolean {
  return conflictAborted(driverError(thrown));
}
