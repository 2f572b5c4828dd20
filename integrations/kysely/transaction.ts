import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { dialectOf } from './dialect.js';
import type { Context } from 'jsonapi-gen';
import { SqliteGroupCommit, conflictAborted, heldKeyOf, retryConflicts } from 'jsonapi-gen/internal';
import { whenUnavailable } from './errors.js';
import { markWritten } from './idempotency.js';
import { runnerOf } from './runner.js';

/** An open transaction of `db`. */
interface Binding {
  db: Kysely<AnyDatabase>;
  transaction: Transaction<AnyDatabase>;
}

/** Transactions of `withTransaction` without a context, carried through the async call chain. */
const bound = new AsyncLocalStorage<Binding>();

/**
 * Transactions bound to a request (`kyselyTransaction`, `withTransaction` with a `context`), by
 * the request's unit of work (`ctx.unitOfWork`): the data layers get the request's context, so
 * they need no async context. On Node 20 and 22 an enabled AsyncLocalStorage hooks every promise
 * and callback of the process, which costs every request CPU (bench/results.md).
 */
const requestTransactions = new WeakMap<object, Map<Kysely<AnyDatabase>, Transaction<AnyDatabase>>>();

/** The transaction of `db` bound to request unit `unit`, if any. */
function requestTransaction(unit: object | undefined, db: Kysely<AnyDatabase>): Transaction<AnyDatabase> | undefined {
  return unit === undefined ? undefined : requestTransactions.get(unit)?.get(db);
}

/** Transactions `withTransaction` runs `fn` in at the moment, in this process. */
let running = 0;

/** Options of `withTransaction`. */
export interface TransactionOptions<T> {
  /**
   * Roll back although `fn` resolved, e.g. `(response) => response.status >= 400` when `fn`
   * answers errors rather than throwing them. Default: commit whenever `fn` resolves.
   */
  rollbackIf?: (result: T) => boolean;
  /**
   * SQLite: commit this transaction on its own, not together with others waiting (group
   * commit). For transactions that rely on a deferred constraint, whose failure at the commit
   * fails every transaction of that commit. Default: false.
   */
  commitAlone?: boolean;
  /**
   * The request this transaction belongs to (its `ctx`): the transaction is bound to the
   * request's unit of work rather than to the async context, the store's data layers (and
   * `executorFor(db, ctx)`) run on it, and a `withTransaction` with the same context joins it.
   * What `kyselyTransaction` does. Default: bound to the async context.
   */
  context?: Context;
}

/** What `withTransaction` throws to roll back when `rollbackIf` objects; it catches it and answers `result`. */
class Rollback<T> extends Error {
  constructor(readonly result: T) {
    super('rolled back: rollbackIf objected to the result');
  }
}

/**
 * Runs `fn` in one database transaction bound to the current async context, or with
 * `context: ctx` to that request: every statement a Kysely data layer of `db` runs inside `fn`
 * (however deep) goes through it, and nothing is written unless `fn` resolves (and
 * `rollbackIf` does not object). Inside another `withTransaction` on the same `db` (the same
 * request's, given `context`), `fn` joins that transaction rather than nesting one.
 * The intent: one request (a Delete, a Create, an Atomic Operations batch) is one transaction.
 * Inside a request that `kyselyTransaction` runs, pass the request's `ctx` (to this and to
 * `executorFor`): its transaction is bound to the request, not to the async context, and a
 * `withTransaction` without it would wait for a second transaction (on SQLite, forever).
 * On SQLite it begins with `BEGIN IMMEDIATE` (see `immediate`), so that with a busy_timeout a
 * write waits for another process's write rather than failing with SQLITE_BUSY; and
 * transactions that wait for each other commit together, each in its own savepoint (group
 * commit: one disk sync for many writes). One exception to "each succeeds or fails alone": a
 * deferred constraint (`pragma defer_foreign_keys`) that fails at the commit fails every
 * transaction of that commit; `commitAlone` keeps a transaction out of others' commits.
 *
 * @example
 * import { db } from './db.js';
 * import { store } from './store.js';
 * declare const ctx: Context;
 * await withTransaction(db, async (trx) => {
 *   await trx.deleteFrom('comments').where('article_id', '=', 1).execute();
 *   const article = await store.articles.find('1', ctx);
 *   if (article) await store.articles.delete(article, ctx); // same transaction
 * });
 */
export async function withTransaction<DB, T>(
  db: Kysely<DB>,
  fn: (transaction: Transaction<DB>) => Promise<T>,
  options: TransactionOptions<T> = {},
): Promise<T> {
  const unit = options.context?.unitOfWork;
  const own = requestTransaction(unit, db);
  if (own) return fn(own as Transaction<DB>);
  const outer = bound.getStore();
  if (outer && outer.db === db) {
    // A request inside a host's `withTransaction` (say, `api.handle` in one): it joins that.
    const joined = outer.transaction as Transaction<DB>;
    return unit ? bindToRequest(unit, db, joined, () => fn(joined)) : fn(joined);
  }
  const body = async (transaction: Transaction<DB>) => {
    const run = async () => {
      const result = await fn(transaction);
      if (options.rollbackIf?.(result)) throw new Rollback(result);
      return result;
    };
    if (unit) return bindToRequest(unit, db, transaction, run);
    running++;
    try {
      return await bound.run({ db, transaction: transaction as Transaction<AnyDatabase> }, run);
    } finally {
      // On Node 20 an enabled AsyncLocalStorage hooks every promise the process makes, reads
      // included; while no transaction runs (those waiting for the connection have nothing
      // bound yet), nothing needs it until the next `run`.
      if (--running === 0) bound.disable();
    }
  };
  try {
    return await (isSqlite(db) ? immediate(db, body, options.commitAlone === true) : db.transaction().execute(body));
  } catch (thrown) {
    if (thrown instanceof Rollback) return thrown.result as T;
    throw thrown;
  }
}

/** Runs `fn` with `transaction` as the transaction of `db` for request unit `unit`. */
async function bindToRequest<T>(
  unit: object,
  db: Kysely<AnyDatabase>,
  transaction: Transaction<AnyDatabase>,
  fn: () => Promise<T>,
): Promise<T> {
  let open = requestTransactions.get(unit);
  if (open === undefined)
    requestTransactions.set(unit, (open = new Map<Kysely<AnyDatabase>, Transaction<AnyDatabase>>()));
  open.set(db, transaction);
  try {
    return await fn();
  } finally {
    open.delete(db);
  }
}

/** Whether `db` is a SQLite database (see `dialectOf`). */
export function isSqlite(db: Kysely<AnyDatabase>): boolean {
  return dialectOf(db) === 'sqlite';
}

/**
 * A SQLite transaction begun with `BEGIN IMMEDIATE`: it takes the write lock first, waiting
 * for another connection's write (the database's busy_timeout) instead of failing later. A
 * deferred `BEGIN` (Kysely's) reads first and then upgrades to a write, and that upgrade fails
 * at once with SQLITE_BUSY, without waiting, when another connection wrote meanwhile.
 * Transactions on one database run one at a time (Kysely's SQLite driver has one connection),
 * first come first served, and those that wait are committed together (`SqliteGroupCommit`).
 */
function immediate<DB, T>(
  db: Kysely<DB>,
  fn: (transaction: Transaction<DB>) => Promise<T>,
  alone: boolean,
): Promise<T> {
  let groups = sqliteGroups.get(db);
  if (groups === undefined) sqliteGroups.set(db, (groups = sqliteGroupsOf(db)));
  // Run in the caller's async context (the host's AsyncLocalStorages), not in that of whoever drains the queue.
  return groups.run(AsyncResource.bind(fn as (connection: Kysely<AnyDatabase>) => Promise<T>), alone);
}

/** Per SQLite database: its transactions, a group at a time. */
const sqliteGroups = new WeakMap<Kysely<AnyDatabase>, SqliteGroupCommit<Kysely<AnyDatabase>>>();

/**
 * The group commits of `db`: each group holds one connection (`db.connection()`) for its
 * transaction and its members' work; the connection's Kysely stands in for a Transaction (same
 * query builders, one connection). Its control statements go straight to better-sqlite3 with
 * the direct runner (nothing to compile, no layers on every write request), otherwise through
 * the connection's Kysely.
 */
function sqliteGroupsOf(db: Kysely<AnyDatabase>): SqliteGroupCommit<Kysely<AnyDatabase>> {
  const runner = runnerOf(db);
  return new SqliteGroupCommit((run) =>
    db.connection().execute((own) => run(own, (text) => runner.control(own, text))),
  );
}

/**
 * The `transaction` option of `JsonApi`: every write request (and every Atomic Operations
 * batch) runs in one transaction of `db`, rolled back when anything in it throws. On SQLite,
 * write requests that wait for each other share a commit (see `withTransaction`);
 * `groupCommit: false` commits each on its own.
 *
 * @example
 * import { db } from './db.js';
 * const api = new JsonApi({ transaction: kyselyTransaction(db), extensions: [atomic()] });
 */
export function kyselyTransaction<DB>(
  db: Kysely<DB>,
  options: { groupCommit?: boolean } = {},
): <T>(run: () => Promise<T>, context: Context) => Promise<T> {
  const commitAlone = options.groupCommit === false;
  return async (run, context) => {
    // A request under an Idempotency-Key whose keys live in `db`: its claim is marked written in
    // this transaction, so that the mark commits with the write (see `kyselyIdempotency`).
    const held = heldKeyOf(context.http);
    const body =
      held === undefined
        ? () => run()
        : async (transaction: Transaction<DB>) => {
            await markWritten(db, held, transaction);
            return run();
          };
    // Run again (rolled back entirely) when PostgreSQL aborted it for a conflict with another one.
    return retryConflicts(() => withTransaction(db, body, { commitAlone, context }), {
      replace: whenUnavailable,
      retryable: conflictAborted,
    });
  };
}

/**
 * Throws an `AbortError` when the client of `context` has gone (`ctx.throwIfAborted()`); a
 * context made up by hand (a script's, a test's) has no request to look at.
 */
export function stopIfGone(context: Context | undefined): void {
  if (context?.http) context.throwIfAborted();
}

/**
 * What to run a statement on: the transaction bound to request `context` (by
 * `kyselyTransaction`, or `withTransaction` with that context), else the one `withTransaction`
 * bound to the current async context, otherwise `db`. Custom data-layer code should use it too,
 * with the `ctx` it was given (on SQLite, a statement on `db` inside a transaction would wait
 * for the transaction's connection). Once the client of `context` has gone, it throws an
 * `AbortError` instead (`ctx.throwIfAborted()`), so that no statement follows.
 *
 * @example
 * import { db } from './db.js';
 * declare const ctx: Context;
 * await executorFor(db, ctx).deleteFrom('articles').where('id', '=', 1).execute();
 */
export function executorFor<DB>(db: Kysely<DB>, context?: Context): Kysely<DB> {
  // Every statement of the store starts here: none once the request's client has gone.
  stopIfGone(context);
  const own = requestTransaction(context?.unitOfWork, db);
  if (own) return own as unknown as Kysely<DB>;
  const outer = bound.getStore();
  return outer && outer.db === db ? (outer.transaction as unknown as Kysely<DB>) : db;
}
