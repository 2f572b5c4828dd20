/**
 * What SQL data layers on better-sqlite3, node-postgres and mysql2 make of their drivers' errors,
 * shared by the Kysely and Drizzle stores (both run on those drivers): a unique violation is 409 at the
 * member holding the value, a value a column cannot hold 422 (or 400 in a filter), a database
 * that cannot answer for now 503 with `Retry-After`, and a conflict PostgreSQL aborted a
 * transaction for is worth running it again. The Prisma store, whose client wraps the drivers'
 * errors, uses the parts that take the database's code, message or columns (`unavailableCode`,
 * `connectionLost`, `conflictCode`, `uniquePointerAt`).
 */
import { BadRequestError, JsonApiError } from '../core/errors.js';
import { uniqueViolation } from './unique-violation.js';
import { escape } from './payload.js';
import { unstorable } from './unstorable.js';

/** What an insert or update writes: its attributes, and how they map to columns. */
export interface Written {
  attributes: Readonly<Record<string, unknown>>;
  /** The column an attribute is stored in. */
  column(attribute: string): string;
  /** The table's key column (a taken client-generated id points at `/data/id`). */
  idColumn: string;
}

/**
 * The JSON:API error for what a driver threw, when the client caused it (or the database is
 * away), else `thrown` itself: a value the database cannot compare with its column
 * (PostgreSQL's SQLSTATE class 22, "data exception": `filter[author]=abc` against an integer
 * column) is 400; a unique violation (23505, or SQLite's SQLITE_CONSTRAINT_UNIQUE /
 * _PRIMARYKEY) is 409; with `written` (the attributes an insert or update writes), a value the
 * database refuses to store (class 22, or 54000 for an index entry past PostgreSQL's btree
 * limit) is a 422 at the attribute that holds it, and the 409 points at the member.
 *
 * @example
 * declare const thrown: unknown;
 * throw sqlClientError(thrown, { attributes: { name: 'json' }, column: (name) => name, idColumn: 'id' });
 */
export function sqlClientError(thrown: unknown, written?: Written): unknown {
  const code = mysqlState(thrown) ?? (thrown as { code?: unknown } | null)?.code;
  if (unavailable(thrown)) return unavailableError();
  if (typeof code !== 'string') return thrown;
  if (written && (code === '54000' || code.startsWith('22'))) return unstorable(code, written.attributes);
  if (/^22[0-9A-Z]{3}$/.test(code)) return invalidFilterValue();
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return uniqueViolation(written && uniquePointer(thrown as DatabaseError, written));
  }
  return thrown;
}

/**
 * 400: a filter value the column it is compared with cannot hold (`filter[author]=abc` against
 * an integer key), as PostgreSQL tells it (class 22) and as a store tells it itself where the
 * database would not (MySQL compares `'1 OR 1=1'` with an integer as 1).
 *
 * @example
 * throw invalidFilterValue();
 */
export function invalidFilterValue(): BadRequestError {
  return new BadRequestError({
    detail: 'A filter value is not valid for the column it is compared with',
    code: 'invalid_filter_value',
  });
}

/**
 * mysql2's names for a connection lost or refused, a server shutting down (1053), out of
 * connections (1040), or a connection killed (MariaDB's 1927).
 */
const MYSQL_UNAVAILABLE = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_CONNECTION_KILLED',
]);

/**
 * Whether the database could not serve the statement for now, through no fault of the request:
 * by its code (`unavailableCode`; MySQL's and MariaDB's SQLSTATE class 08 too) or its message
 * (`connectionLost`).
 *
 * @example
 * declare const thrown: unknown;
 * if (unavailable(thrown)) console.log('answer 503 and let the client retry');
 */
export function unavailable(thrown: unknown): boolean {
  const { code, message } = (thrown ?? {}) as { code?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && unavailableCode(code)) ||
    (isMysqlError(thrown) && thrown.sqlState.startsWith('08')) ||
    connectionLost(message)
  );
}

/**
 * Whether a database's or a socket's error code says it could not serve the statement for now:
 * SQLite busy or locked by another connection past `busy_timeout`; PostgreSQL shutting down or
 * refusing connections (class 57P, 53300 too many connections), a connection lost or refused
 * (class 08, ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE); MySQL and MariaDB likewise
 * (`MYSQL_UNAVAILABLE`: mysql2's names). For stores whose client wraps the driver's
 * error (Prisma's adapters carry the database's code apart from their own).
 *
 * @example
 * unavailableCode('SQLITE_BUSY'); // true
 * unavailableCode('23505'); // false
 */
export function unavailableCode(code: string): boolean {
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true;
  return /^(57P0[1-3]|08...|53300|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)$/.test(code) || MYSQL_UNAVAILABLE.has(code);
}

/**
 * Whether an error's message says node-postgres lost its connection or could not get one:
 * "Connection terminated", a client that lost it before ("... is not queryable": what a
 * rollback after a lost connection throws in place of the statement's error), its pool's
 * "timeout exceeded when trying to connect" (no connection within `connectionTimeoutMillis`),
 * or mysql2's "Can't add new command when connection is in closed state".
 *
 * @example
 * connectionLost('Connection terminated unexpectedly'); // true
 */
export function connectionLost(message: unknown): boolean {
  return (
    typeof message === 'string' &&
    /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Can't add new command when connection is in closed state)/.test(
      message,
    )
  );
}

/**
 * What to throw for `thrown`: the 503 of `unavailableError()` when the database could not serve
 * the statement for now (`unavailable`), else `thrown` itself.
 *
 * @example
 * declare const thrown: unknown;
 * throw whenUnavailable(thrown);
 */
export function whenUnavailable(thrown: unknown): unknown {
  return unavailable(thrown) ? unavailableError() : thrown;
}

/**
 * 503 with `Retry-After`: the client may send the same request again shortly.
 *
 * @example
 * throw unavailableError();
 */
export function unavailableError(): JsonApiError {
  return new JsonApiError(503, {
    detail: 'The database is busy or unreachable: retry shortly',
    code: 'database_unavailable',
    headers: { 'Retry-After': '1' },
  });
}

/**
 * Whether the database aborted the transaction (or its statement) for a conflict with another
 * one, which running it again resolves: on PostgreSQL a serialization failure (40001) or a
 * deadlock (40P01); on MySQL and MariaDB a deadlock (1213) or a lock wait past
 * `innodb_lock_wait_timeout` (1205).
 *
 * @example
 * declare const thrown: unknown;
 * if (conflictAborted(thrown)) console.log('run the transaction again');
 */
export function conflictAborted(thrown: unknown): boolean {
  return conflictCode((thrown as { code?: unknown } | null)?.code);
}

/**
 * Whether a code says the database aborted the transaction for a conflict (see
 * `conflictAborted`), for stores whose client carries the database's code apart from its own.
 *
 * @example
 * conflictCode('40P01'); // true
 */
export function conflictCode(code: unknown): boolean {
  return code === '40001' || code === '40P01' || code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
}

type DatabaseError = { code: string; message?: string; detail?: string };

/** What mysql2 throws for an error the server reported: its number and SQLSTATE besides its name (`code`). */
type MysqlError = { errno: number; sqlState: string; sqlMessage?: string };

function isMysqlError(thrown: unknown): thrown is MysqlError {
  const { errno, sqlState } = (thrown ?? {}) as Partial<MysqlError>;
  return typeof errno === 'number' && typeof sqlState === 'string';
}

/**
 * The PostgreSQL SQLSTATE that means what a MySQL or MariaDB error means, for the rules above:
 * 23505 for a duplicate key (1062, 1586), class 22 for a value the column cannot hold (its
 * own SQLSTATE, or 22000 for those MySQL files under HY000 or 01000: 1265 truncated, 1366
 * incorrect value); undefined for anything else, or an error not from mysql2.
 */
function mysqlState(thrown: unknown): string | undefined {
  if (!isMysqlError(thrown)) return undefined;
  if (thrown.errno === 1062 || thrown.errno === 1586) return '23505';
  if (thrown.sqlState.startsWith('22')) return thrown.sqlState;
  if (thrown.errno === 1265 || thrown.errno === 1366) return '22000';
  return undefined;
}

/**
 * Where a unique violation points: the written attribute whose column the constraint names
 * (SQLite: "UNIQUE constraint failed: tags.name"; PostgreSQL: detail "Key (name)=(...) already
 * exists"), or `/data/id` for the key. Undefined when the columns cannot be told.
 */
function uniquePointer(error: DatabaseError, written: Written): string | undefined {
  const sqlite = /constraint failed: (.+)$/.exec(error.message ?? '')?.[1];
  const postgres = /^Key \((.+?)\)=/.exec(error.detail ?? '')?.[1];
  // MySQL names the index ("for key 'tags.name'", MariaDB "for key 'name'"): a one-column
  // unique index is named after its column unless given a name; the key's is PRIMARY.
  const mysql = isMysqlError(error)
    ? /for key '(.+)'$/
        .exec(error.sqlMessage ?? '')?.[1]
        ?.split('.')
        .pop()
    : undefined;
  if (mysql === 'PRIMARY') return '/data/id';
  const columns = (sqlite ?? postgres ?? mysql)
    ?.split(',')
    .map((c) => c.trim().split('.').pop()!.replace(/^"|"$/g, ''));
  return columns && uniquePointerAt(columns, written);
}

/**
 * Where a unique violation over `columns` points: `/data/id` when they hold the key, else the
 * first written attribute stored in one of them; undefined when none is.
 *
 * @example
 * uniquePointerAt(['name'], { attributes: { name: 'json' }, column: (a) => a, idColumn: 'id' }); // '/data/attributes/name'
 */
export function uniquePointerAt(columns: readonly string[], written: Written): string | undefined {
  if (columns.includes(written.idColumn)) return '/data/id';
  const name = Object.keys(written.attributes).find((attribute) => columns.includes(written.column(attribute)));
  return name === undefined ? undefined : `/data/attributes/${escape(name)}`;
}
