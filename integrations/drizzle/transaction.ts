/**
 * One transaction per write request and per Atomic Operations batch, bound to the request's
 * unit of work (`ctx.unitOfWork`), where the write functions find it (`databaseFor`): no async
 * context needed. On PostgreSQL and MySQL it is Drizzle's `db.transaction()`, run again (a
 * bounded number of times) when the database aborted it for a serialization failure, a
 * deadlock or (MySQL) a lock wait past its timeout. On SQLite,
 * Drizzle's better-sqlite3 transactions are synchronous while a request's work is async, so
 * the transaction is `BEGIN IMMEDIATE` ... `COMMIT` on the database's one connection, a group
 * at a time (`sqliteTurn`), those that wait for each other committed together, each in its own
 * savepoint (`SqliteGroupCommit`, as the Kysely store's): `IMMEDIATE` takes the write lock
 * first, so a write waits for another process's (better-sqlite3's `timeout`, its busy_timeout,
 * 5 s by default) rather than failing later; past it, the request is 503 with `Retry-After`.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { type SQL, is, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PgTransactionConfig } from 'drizzle-orm/pg-core';
import { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { Context } from 'jsonapi-gen';
import { SqliteGroupCommit, heldKeyOf, markHeldKey, retryConflicts } from 'jsonapi-gen/internal';
import { drizzleRetryable, whenDrizzleUnavailable } from './errors.js';

/** A Drizzle database the store writes through: better-sqlite3's, node-postgres's or mysql2's, with any schema. */
export type DrizzleDatabase<S extends Record<string, unknown> = Record<string, never>> =
  BetterSQLite3Database<S> | NodePgDatabase<S> | MySql2Database<S>;

/** Options of a request's transaction. */
export interface DrizzleTransactionOptions {
  /** PostgreSQL and MySQL: e.g. `'serializable'`; the database's default when left out. Ignored on SQLite. */
  isolationLevel?: PgTransactionConfig['isolationLevel'];
  /**
   * SQLite: write transactions that wait for each other commit together, each in its own
   * savepoint (one disk sync for many writes; see `withDrizzleTransaction`). `false` commits
   * each on its own, for transactions that rely on a deferred constraint, whose failure at the
   * commit fails every transaction of that commit. Ignored elsewhere. Default: true.
   */
  groupCommit?: boolean;
}

/** Transactions bound to a request's unit of work, per database. */
const open = new WeakMap<object, Map<object, object>>();

/** An open transaction of `db` that `withDrizzleTransaction` runs without a context. */
interface Binding {
  readonly db: object;
  readonly transaction: object;
}

/**
 * Transactions of `withDrizzleTransaction` without a context, carried through the async call
 * chain, so that one nested in it joins it (on SQLite, waiting for a turn of its own would
 * wait for itself). Enabled only while such a transaction runs: an enabled AsyncLocalStorage
 * hooks every promise of the process.
 */
const contextless = new AsyncLocalStorage<Binding>();
/** Transactions without a context running at the moment, in this process. */
let running = 0;

/** The transaction of `db` that `context`'s request, or the async call chain, runs in; undefined outside one. */
export function openTransaction(db: object, context?: Context): object | undefined {
  const bound = context === undefined ? undefined : open.get(context.unitOfWork)?.get(db);
  if (bound !== undefined) return bound;
  const outer = running > 0 ? contextless.getStore() : undefined;
  return outer?.db === db ? outer.transaction : undefined;
}

/** Whether `db` is a SQLite database (better-sqlite3's). */
export function isSqliteDatabase(db: object): db is BetterSQLite3Database<Record<string, unknown>> {
  return is(db, BaseSQLiteDatabase);
}

/**
 * What to run a statement on: the transaction of `db` bound to the request of `context` (by
 * `drizzleTransaction`, or `withDrizzleTransaction` with that context), otherwise `db`. Once
 * the client of `context` has gone, it throws an `AbortError` (`ctx.throwIfAborted()`) so
 * that no statement follows. Custom data-layer code should use it too.
 *
 * @example
 * import { eq } from 'drizzle-orm';
 * import { db } from './db.js';
 * import { articles } from './tables.js';
 * declare const ctx: Context;
 * await databaseFor(db, ctx).delete(articles).where(eq(articles.id, 1));
 */
export function databaseFor<D extends object>(db: D, context?: Context): D {
  if (context?.http) context.throwIfAborted();
  return (openTransaction(db, context) as D | undefined) ?? db;
}

/** Per SQLite database: the end of the last turn taken. */
const turns = new WeakMap<object, Promise<unknown>>();

/**
 * Runs `fn` when the turns taken on the SQLite database `db` before it have ended: its one
 * connection runs one group of transactions (or statement outside transactions, such as an
 * idempotency key's) at a time, so that none lands inside another request's open transaction.
 *
 * @example
 * import { db } from './db.js';
 * import { tags } from './tables.js';
 * const rows = await sqliteTurn(db, () => db.select().from(tags));
 */
export function sqliteTurn<T>(db: object, fn: () => Promise<T>): Promise<T> {
  const previous = turns.get(db) ?? Promise.resolve();
  const mine = previous.then(fn);
  turns.set(
    db,
    mine.catch(() => undefined),
  );
  return mine;
}

/** Per SQLite database: its write transactions, committed a group at a time. */
const groups = new WeakMap<object, SqliteGroupCommit<object>>();

/** Transaction control (`begin immediate`, `savepoint jsonapi_gen`, ...) as Drizzle runs it, each text built once. */
const controls = new Map<string, SQL>();

/**
 * The group commits of the SQLite database `db` (`SqliteGroupCommit`): each group is one turn
 * (`sqliteTurn`) on the database's one connection, its control statements run through Drizzle
 * (so that its logger hears them).
 */
function groupsOf(db: BetterSQLite3Database<Record<string, unknown>>): SqliteGroupCommit<object> {
  let own = groups.get(db);
  if (own === undefined) {
    const control = (text: string) => {
      let statement = controls.get(text);
      if (statement === undefined) controls.set(text, (statement = sql.raw(text)));
      db.run(statement);
      return undefined;
    };
    groups.set(db, (own = new SqliteGroupCommit<object>((run) => sqliteTurn(db, () => run(db, control)))));
  }
  return own;
}

/**
 * Runs `fn` with `transaction` bound to request unit `unit` as the transaction of `db`, or,
 * without a unit, to the async call chain.
 */
async function bound<T>(unit: object | undefined, db: object, transaction: object, fn: () => Promise<T>): Promise<T> {
  if (unit === undefined) {
    running++;
    try {
      return await contextless.run({ db, transaction }, fn);
    } finally {
      if (--running === 0) contextless.disable();
    }
  }
  let transactions = open.get(unit);
  if (transactions === undefined) open.set(unit, (transactions = new Map<object, object>()));
  transactions.set(db, transaction);
  try {
    return await fn();
  } finally {
    transactions.delete(db);
  }
}

/**
 * Runs `fn` in one transaction of `db`, bound to the request of `context` when given: every
 * statement the write functions run through `databaseFor(db, ctx)` inside `fn` runs in it, and
 * nothing is written unless `fn` resolves. Without a context it is bound to the async call
 * chain instead. Inside another with the same request, or inside one without a context (however
 * deep in its call chain), `fn` joins that transaction rather than nesting one. Inside a
 * request's transaction (`drizzleTransaction`), pass the request's `ctx`: that transaction is
 * bound to the request, not to the call chain, and one without it would wait for a second
 * transaction (on SQLite, for ever). On SQLite, `fn` gets `db` itself (the transaction is its connection's), in
 * its turn (`sqliteTurn`): inside it, run statements on what `fn` gets, or through
 * `databaseFor` with the request's context, never on `db` from another turn. Transactions
 * that wait for each other there commit together, each in its own savepoint (one disk sync
 * for many writes); each still succeeds or fails alone, and resolves only once its commit is
 * durable. `groupCommit: false` commits this one on its own.
 *
 * @example
 * import { eq } from 'drizzle-orm';
 * import { db } from './db.js';
 * import { articles, comments } from './tables.js';
 * declare const ctx: Context;
 * await withDrizzleTransaction(db, async (tx) => {
 *   await tx.delete(comments).where(eq(comments.articleId, 1));
 *   await tx.delete(articles).where(eq(articles.id, 1));
 * }, { context: ctx });
 */
export function withDrizzleTransaction<S extends Record<string, unknown>, D extends DrizzleDatabase<S>, T>(
  db: D,
  fn: (transaction: D) => Promise<T>,
  options: DrizzleTransactionOptions & { context?: Context } = {},
): Promise<T> {
  const unit = options.context?.unitOfWork;
  const own = unit === undefined ? undefined : open.get(unit)?.get(db);
  if (own !== undefined) return fn(own as D);
  const outer = running > 0 ? contextless.getStore() : undefined;
  if (outer?.db === db) {
    // Inside a host's `withDrizzleTransaction` without a context (say, `api.handle` in one): join it.
    const joined = outer.transaction as D;
    return bound(unit, db, joined, () => fn(joined));
  }
  if (isSqliteDatabase(db)) {
    // In the caller's async context (the host's AsyncLocalStorages), not in that of whoever drains the queue.
    const run = AsyncResource.bind(() => bound(unit, db, db, () => fn(db)));
    return groupsOf(db).run(run, options.groupCommit === false);
  }
  const config = options.isolationLevel === undefined ? undefined : { isolationLevel: options.isolationLevel };
  // Not SQLite: node-postgres's or mysql2's, whose transactions are async and hold one pool connection.
  const pooled = db as unknown as {
    transaction<R>(
      run: (tx: object) => Promise<R>,
      config?: { isolationLevel: PgTransactionConfig['isolationLevel'] },
    ): Promise<R>;
  };
  return pooled.transaction((tx) => bound(unit, db, tx, () => fn(tx as unknown as D)), config);
}

/**
 * The `transaction` option of `JsonApi`: every write request (and every Atomic Operations
 * batch) runs in one transaction of `db` (`withDrizzleTransaction`), rolled back when anything
 * in it throws, and run again (up to 4 times in all) when PostgreSQL aborted it for a
 * serialization failure or a deadlock. A database that cannot answer for now (SQLite busy past
 * its timeout, PostgreSQL unreachable) is 503 with `Retry-After`. A request under an
 * `Idempotency-Key` kept by `drizzleIdempotency(db)` marks its key inside this transaction, so
 * that the mark commits with the write.
 *
 * @example
 * import { db } from './db.js';
 * const api = new JsonApi({ transaction: drizzleTransaction(db, { isolationLevel: 'serializable' }), extensions: [atomic()] });
 */
export function drizzleTransaction<S extends Record<string, unknown>>(
  db: DrizzleDatabase<S>,
  options: DrizzleTransactionOptions = {},
): <T>(run: () => Promise<T>, context: Context) => Promise<T> {
  return (run, context) => {
    const held = heldKeyOf(context.http);
    const body = async (transaction: object) => {
      await markHeldKey(db, held, transaction);
      return run();
    };
    return retryConflicts(() => withDrizzleTransaction(db, body, { ...options, context }), {
      replace: whenDrizzleUnavailable,
      retryable: drizzleRetryable,
    });
  };
}
