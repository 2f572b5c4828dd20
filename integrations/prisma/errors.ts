/**
 * Prisma's errors as the runtime's JSON:API errors. With driver adapters, Prisma Client 7 throws
 * a `PrismaClientKnownRequestError` whose `code` is Prisma's (P2002 unique, P2003 foreign key,
 * P2025 a `connect` that found nothing, P1001 unreachable) and whose
 * `meta.driverAdapterError.cause` is the adapter's (`kind`, `originalCode`: the database's own
 * code, and the constraint: column names on SQLite, the index name on PostgreSQL). Inside an
 * interactive transaction, a failure at the commit comes as the adapter's `DriverAdapterError`
 * itself (its `cause` the same), and a pool that gives no connection in time as the `pg`
 * pool's plain `Error`.
 */
import { ConflictError, JsonApiError, NotFoundError } from 'jsonapi-gen';
import {
  conflictCode,
  connectionLost,
  escape,
  unavailableCode,
  unavailableError,
  uniquePointerAt,
  uniqueViolation,
  unstorable,
} from 'jsonapi-gen/internal';

export { unavailableError } from 'jsonapi-gen/internal';

/** What the adapter says of a failure: `meta.driverAdapterError.cause`, or a `DriverAdapterError`'s `cause`. */
interface AdapterCause {
  kind?: string;
  originalCode?: string;
  code?: string;
  constraint?: { fields?: string[]; index?: string };
  table?: string;
}

/** Prisma's code (P2002...) of a thrown value, if it has one. */
function prismaCode(thrown: unknown): string | undefined {
  const code = (thrown as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The adapter's account of a thrown value, wherever Prisma put it. */
function adapterCause(thrown: unknown): AdapterCause | undefined {
  const error = thrown as {
    name?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: { cause?: unknown } };
  } | null;
  const cause =
    error?.meta?.driverAdapterError?.cause ?? (error?.name === 'DriverAdapterError' ? error.cause : undefined);
  return typeof cause === 'object' && cause !== null ? cause : undefined;
}

/** The database's own code (SQLSTATE, SQLITE_...) behind a thrown value, if known. */
function databaseCode(thrown: unknown): string | undefined {
  const cause = adapterCause(thrown);
  const code = cause?.originalCode ?? cause?.code ?? prismaCode(thrown);
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether running the transaction again may succeed: the database aborted it for a conflict
 * with another one (PostgreSQL's serialization failure, 40001, or deadlock, 40P01; MySQL's
 * deadlock, 1213, or lock wait past `innodb_lock_wait_timeout`, 1205; Prisma's P2034, the
 * adapter's `TransactionWriteConflict`).
 *
 * @example
 * declare const thrown: unknown;
 * if (retryable(thrown)) console.log('run the transaction again');
 */
export function retryable(thrown: unknown): boolean {
  return (
    prismaCode(thrown) === 'P2034' ||
    adapterCause(thrown)?.kind === 'TransactionWriteConflict' ||
    conflictCode(databaseCode(thrown)) ||
    MYSQL_CONFLICTS.has(adapterCause(thrown)?.originalCode ?? '')
  );
}

/**
 * MySQL's and MariaDB's numbers of a value a column cannot hold, as PostgreSQL's SQLSTATE:
 * too long (1406), out of range (1264), truncated (1265), an incorrect value (1366).
 */
const MYSQL_UNSTORABLE: Readonly<Record<string, string>> = {
  '1406': '22001',
  '1264': '22003',
  '1265': '22000',
  '1366': '22000',
};

/** MySQL's and MariaDB's numbers of a deadlock and of a lock wait past its timeout. */
const MYSQL_CONFLICTS = new Set(['1213', '1205']);

/** Prisma's codes of a database it cannot reach or that stopped answering. */
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** The adapter's kinds of the same. */
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * Whether the database could not serve the statement for now, through no fault of the request:
 * unreachable or gone (P1001, P1002, P1017, the adapter's `DatabaseNotReachable`,
 * `ConnectionClosed`), no connection from the pool in time (P2024, `pg`'s "timeout exceeded when
 * trying to connect"), too many connections, PostgreSQL shutting down (57P01-03) or a lost
 * connection (class 08), SQLite busy or locked past its busy timeout.
 *
 * @example
 * declare const thrown: unknown;
 * if (unavailable(thrown)) console.log('answer 503 and let the client retry');
 */
export function unavailable(thrown: unknown): boolean {
  const prisma = prismaCode(thrown);
  if (prisma !== undefined && UNAVAILABLE_CODES.has(prisma)) return true;
  const kind = adapterCause(thrown)?.kind;
  if (kind !== undefined && UNAVAILABLE_KINDS.has(kind)) return true;
  const code = databaseCode(thrown);
  if (code !== undefined && unavailableCode(code)) return true;
  const message = (thrown as { message?: unknown } | null)?.message;
  return connectionLost(message);
}

/**
 * What to throw for `thrown`: the 503 of `unavailableError()` when the database could not serve
 * the statement for now (`unavailable`), else `thrown` itself.
 *
 * @example
 * import { prisma } from './db.js';
 * try { await prisma.tag.count(); } catch (thrown) { throw whenUnavailable(thrown); }
 */
export function whenUnavailable(thrown: unknown): unknown {
  return unavailable(thrown) ? unavailableError() : thrown;
}

/**
 * What a create or update writes, so that a constraint it broke points at the member that
 * holds the value: by the column (SQLite names columns), by the index or constraint name
 * (PostgreSQL names those: `tags_name_key`, `articles_author_id_fkey`, `tags_pkey`, which
 * Prisma's defaults and `@unique`'s follow), or by `constraints` for other names.
 */
export interface Written {
  /** The table written (`@@map`'s name). */
  table: string;
  /** The attributes written -> their columns (`@map`'s names). */
  attributes: Readonly<Record<string, string>>;
  /** The to-one relationships written -> their foreign-key columns. */
  relationships?: Readonly<Record<string, string>>;
  /** The table's key column (a taken client-generated id points at `/data/id`). Default `id`. */
  idColumn?: string;
  /** Unique indexes and foreign keys by name -> the attribute or relationship they are about. */
  constraints?: Readonly<Record<string, string>>;
  /** The attributes' values written, so that a value the database cannot store is a 422 at its attribute. */
  values?: Readonly<Record<string, unknown>>;
}

/**
 * Runs a Prisma call and maps what it throws (`prismaError`).
 *
 * @example
 * import { prisma } from './db.js';
 * await runPrisma(() => prisma.tag.create({ data: { name: 'json' } }), {
 *   table: 'tags',
 *   attributes: { name: 'name' },
 * }); // a taken name: 409 at /data/attributes/name
 */
export async function runPrisma<T>(call: () => PromiseLike<T>, written?: Written): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    throw prismaError(thrown, written);
  }
}

/**
 * The JSON:API error for what a Prisma call threw, or `thrown` itself when it is not the
 * client's doing: a unique violation is 409 `unique_violation` (at the member when `written`
 * tells it); a foreign key that names no row, or a `connect` that found none, is 404
 * `related_not_found` at the relationship (the related resource went away after the runtime
 * checked it); a delete that other rows still refer to is 409 `still_referenced`; an
 * unreachable database is 503 with `Retry-After`.
 *
 * @example
 * declare const thrown: unknown;
 * throw prismaError(thrown, { table: 'tags', attributes: { name: 'name' } });
 */
export function prismaError(thrown: unknown, written?: Written): unknown {
  if (thrown instanceof JsonApiError) return thrown;
  if (unavailable(thrown)) return unavailableError();
  const cause = adapterCause(thrown);
  const code = prismaCode(thrown);
  if (code === 'P2002' || cause?.kind === 'UniqueConstraintViolation') {
    return uniqueViolation(written && uniquePointer(cause, written));
  }
  // PostgreSQL refusing a value (class 22: NUL in text, too long; 54000: past the btree's
  // index-entry limit) is the client's: a 422 at the attribute holding it. MySQL's numbers of
  // the same are read as the SQLSTATE PostgreSQL would give.
  const original = MYSQL_UNSTORABLE[cause?.originalCode ?? ''] ?? cause?.originalCode;
  if (written?.values && original !== undefined && (original === '54000' || original.startsWith('22')))
    return unstorable(original, written.values);
  const nestedConnect =
    code === 'P2025' && /connect/.test(String((thrown as { meta?: { operation?: unknown } }).meta?.operation));
  if (code === 'P2003' || cause?.kind === 'ForeignKeyConstraintViolation' || nestedConnect) {
    if (!written) {
      return new ConflictError({
        detail: 'Other resources still refer to this one',
        code: 'still_referenced',
      });
    }
    const name = relationshipOf(cause, written);
    return new NotFoundError({
      detail: 'A related resource this write links to does not exist',
      ...(name !== undefined && { source: { pointer: `/data/relationships/${escape(name)}/data` } }),
      code: 'related_not_found',
    });
  }
  return thrown;
}

/** The columns or constraint name a constraint violation names. */
function constraintOf(cause: AdapterCause | undefined): { columns: string[]; index?: string } {
  return { columns: cause?.constraint?.fields ?? [], index: cause?.constraint?.index };
}

/**
 * Where a unique violation points: `/data/id` for the key, the written attribute whose column
 * (or index, or named constraint) it is about, else undefined.
 */
function uniquePointer(cause: AdapterCause | undefined, written: Written): string | undefined {
  const { columns, index } = constraintOf(cause);
  const idColumn = written.idColumn ?? 'id';
  const named = index === undefined ? undefined : written.constraints?.[index];
  if (named !== undefined && named in written.attributes) return `/data/attributes/${escape(named)}`;
  // PostgreSQL names the index, not its columns: Prisma's default names say which they are.
  const held = [...columns];
  // MySQL calls every key PRIMARY, and names its table (MySQL 8 does, MariaDB does not).
  if (index === `${written.table}_pkey` || (index === 'PRIMARY' && cause?.table === written.table)) held.push(idColumn);
  for (const column of Object.values(written.attributes))
    // MySQL names a one-column unique index after its column unless given a name.
    if (index === `${written.table}_${column}_key` || index === column) held.push(column);
  const { attributes } = written;
  return uniquePointerAt(held, { attributes, column: (name) => attributes[name]!, idColumn });
}

/**
 * The written relationship a foreign-key violation is about: by the constraint's name on
 * PostgreSQL (`articles_author_id_fkey`, or `constraints`); SQLite does not say which, so
 * only when one relationship was written.
 */
function relationshipOf(cause: AdapterCause | undefined, written: Written): string | undefined {
  const relationships = written.relationships ?? {};
  const names = Object.keys(relationships);
  const { columns, index } = constraintOf(cause);
  const named = index === undefined ? undefined : written.constraints?.[index];
  if (named !== undefined && named in relationships) return named;
  const found = names.find((name) => {
    const column = relationships[name]!;
    return columns.includes(column) || index === `${written.table}_${column}_fkey`;
  });
  return found ?? (names.length === 1 ? names[0] : undefined);
}
