/**
 * The Kysely store's statements and their errors: what better-sqlite3 and node-postgres throw
 * becomes the runtime's JSON:API errors by the rules SQL stores share (`sqlClientError` of
 * `jsonapi-gen/internal`).
 */
import type { MaybePromise } from 'jsonapi-gen';
import { sqlClientError, type Written } from 'jsonapi-gen/internal';

export { unavailable, unavailableError, whenUnavailable, type Written } from 'jsonapi-gen/internal';

/**
 * Runs a statement; a value the database cannot compare with its column is the client's
 * mistake, so it becomes a 400 rather than a 500; a unique violation becomes a 409; a database
 * that cannot answer for now a 503 (see `sqlClientError`).
 *
 * `written`: the attributes an insert or update writes. A value the database refuses to store
 * is then a 422 at the attribute that holds it, and a unique violation points at it.
 */
export async function runStatement<T>(statement: () => MaybePromise<T>, written?: Written): Promise<T> {
  try {
    return await statement();
  } catch (thrown) {
    throw sqlClientError(thrown, written);
  }
}
