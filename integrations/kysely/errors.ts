import { BadRequestError, JsonApiError, type MaybePromise } from 'jsonapi-gen';
import { escape, uniqueViolation, unstorable } from 'jsonapi-gen/internal';

/**
 * Runs a statement; a value the database cannot compare with its column (PostgreSQL's SQLSTATE
 * class 22, "data exception": `filter[author]=abc` against an integer column) is the client's
 * mistake, so it becomes a 400 rather than a 500; a unique violation (23505, or SQLite's
 * SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY) becomes a 409.
 *
 * `written`: the attributes an insert or update writes. A value the database refuses to store
 * (class 22, or 54000 for an index entry past PostgreSQL's btree limit) is then a 422 at the
 * attribute that holds it.
 */
export async function runStatement<T>(statement: () => MaybePromise<T>, written?: Written): Promise<T> {
  try {
    return await statement();
  } catch (thrown) {
    throw clientError(thrown, written);
  }
}

/** What `runStatement` throws for what a statement threw: a JSON:API error when the client caused it, else the same. */
function clientError(thrown: unknown, written: Written | undefined): unknown {
  const code = (thrown as { code?: unknown } | null)?.code;
  if (unavailable(thrown)) return unavailableError();
  if (typeof code !== 'string') return thrown;
  if (written && (code === '54000' || code.startsWith('22'))) return unstorable(code, written.attributes);
  if (/^22[0-9A-Z]{3}$/.test(code)) {
    return new BadRequestError({
      detail: 'A filter value is not valid for the column it is compared with',
      code: 'invalid_filter_value',
    });
  }
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return uniqueViolation(written && uniquePointer(thrown as DatabaseError, written));
  }
  return thrown;
}

/**
 * Whether the database could not serve the statement for now, through no fault of the request:
 * SQLite busy or locked by another connection past `busy_timeout`; PostgreSQL shutting down or
 * refusing connections (class 57P, 53300 too many connections), a connection lost or refused
 * (class 08, ECONNREFUSED, ECONNRESET, or node-postgres's "Connection terminated"), or a
 * client that lost it before (node-postgres's "... is not queryable": what a rollback after a
 * lost connection throws in place of the statement's error).
 */
export function unavailable(thrown: unknown): boolean {
  const { code, message } = (thrown ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true;
    if (
      /^(57P0[1-3]|08...|53300)$/.test(code) ||
      code === 'ECONNREFUSED' ||
      code === 'ECONNRESET' ||
      code === 'ETIMEDOUT'
    )
      return true;
  }
  return (
    typeof message === 'string' &&
    /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/.test(
      message,
    )
  );
}

/**
 * What to throw for `thrown`: the 503 of `unavailableError()` when the database could not serve
 * the statement for now (`unavailable`), else `thrown` itself. The one mapping of an outage,
 * for the request's transaction and the idempotency keys alike.
 *
 * @example
 * import { db } from './db.js';
 * try { await db.selectFrom('tags').selectAll().execute(); } catch (thrown) { throw whenUnavailable(thrown); }
 */
export function whenUnavailable(thrown: unknown): unknown {
  return unavailable(thrown) ? unavailableError() : thrown;
}

/** 503 with `Retry-After`: the client may send the same request again shortly. */
export function unavailableError(): JsonApiError {
  return new JsonApiError(503, {
    detail: 'The database is busy or unreachable: retry shortly',
    code: 'database_unavailable',
    headers: { 'Retry-After': '1' },
  });
}

/** What an insert or update writes: its attributes, and how they map to columns. */
export interface Written {
  attributes: Readonly<Record<string, unknown>>;
  /** The column an attribute is stored in. */
  column(attribute: string): string;
  /** The table's key column (a taken client-generated id points at `/data/id`). */
  idColumn: string;
}

type DatabaseError = { code: string; message?: string; detail?: string };

/**
 * Where a unique violation points: the written attribute whose column the constraint names
 * (SQLite: "UNIQUE constraint failed: tags.name"; PostgreSQL: detail "Key (name)=(...) already
 * exists"), or `/data/id` for the key. Undefined when the columns cannot be told.
 */
function uniquePointer(error: DatabaseError, written: Written): string | undefined {
  const sqlite = /constraint failed: (.+)$/.exec(error.message ?? '')?.[1];
  const postgres = /^Key \((.+?)\)=/.exec(error.detail ?? '')?.[1];
  const columns = (sqlite ?? postgres)?.split(',').map((c) => c.trim().split('.').pop()!.replace(/^"|"$/g, ''));
  if (!columns) return undefined;
  if (columns.includes(written.idColumn)) return '/data/id';
  const name = Object.keys(written.attributes).find((attribute) => columns.includes(written.column(attribute)));
  return name === undefined ? undefined : `/data/attributes/${escape(name)}`;
}
