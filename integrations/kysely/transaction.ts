import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Kysely, SqliteAdapter, type Transaction } from 'kysely';
import type { Context } from '../../runtime/index.js';
import { isPromise } from '../../runtime/types.js';
import { directSqlite, runDirect } from './statements.js';

/** The transaction of the current request, per database, carried through the async call chain. */
const bound = new AsyncLocalStorage<{ db: Kysely<any>; transaction: Transaction<any> }>();

/** Transactions `withTransaction` runs `fn` in at the moment, in this process. */
let running = 0;

/** The connection under each transaction `withTransaction` opened. */
const connections = new WeakMap<object, DatabaseConnection>();

/**
 * The connection a transaction that `withTransaction` opened runs on (undefined for anything
 * else): a statement compiled already runs on it directly, without Kysely's per-query layers
 * (a dozen promises per statement, each one hooked while the AsyncLocalStorage is enabled).
 * The connection is the transaction's alone, and it logs as Kysely's `log` option says.
 */
export function connectionOf(executor: Kysely<any>): DatabaseConnection | undefined {
  return connections.get(executor);
}

/** Options of `withTransaction`. */
export interface TransactionOptions<T> {
  /**
   * Roll back although `fn` resolved, e.g. `(response) => response.status >= 400` when `fn`
   * answers errors rather than throwing them. Default: commit whenever `fn` resolves.
   */
  rollbackIf?: (result: T) => boolean;
}

class Rollback<T> {
  constructor(readonly result: T) {}
}

/**
 * Runs `fn` in one database transaction bound to the current async context: every statement a
 * Kysely data layer of `db` runs inside `fn` (however deep) goes through it, and nothing is
 * written unless `fn` resolves (and `rollbackIf` does not object). Inside another
 * `withTransaction` on the same `db`, `fn` joins that transaction rather than nesting one.
 * The intent: one request (a Delete, a Create, an Atomic Operations batch) is one transaction.
 * On SQLite it begins with `BEGIN IMMEDIATE` (see `immediate`), so that with a busy_timeout a
 * write waits for another process's write rather than failing with SQLITE_BUSY.
 *
 * @example
 * await withTransaction(db, async (trx) => {
 *   await trx.deleteFrom('comments').where('article_id', '=', 1).execute();
 *   await store.articles.delete(article, ctx); // same transaction
 * });
 */
export async function withTransaction<DB, T>(
  db: Kysely<DB>,
  fn: (transaction: Transaction<DB>) => Promise<T>,
  options: TransactionOptions<T> = {},
): Promise<T> {
  const current = bound.getStore();
  if (current && current.db === db) return fn(current.transaction as Transaction<DB>);
  const body = async (transaction: Transaction<DB>) => {
    if (!connections.has(transaction)) connections.set(transaction, await connectionUnder(transaction));
    running++;
    try {
      return await bound.run({ db, transaction: transaction as Transaction<any> }, async () => {
        const result = await fn(transaction);
        if (options.rollbackIf?.(result)) throw new Rollback(result);
        return result;
      });
    } finally {
      // On Node 20 an enabled AsyncLocalStorage hooks every promise the process makes, reads
      // included; while no transaction runs (those waiting for the connection have nothing
      // bound yet), nothing needs it until the next `run`.
      if (--running === 0) bound.disable();
    }
  };
  try {
    return await (isSqlite(db) ? immediate(db, body) : db.transaction().execute(body));
  } catch (thrown) {
    if (thrown instanceof Rollback) return thrown.result as T;
    throw thrown;
  }
}

function isSqlite(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * A SQLite transaction begun with `BEGIN IMMEDIATE`: it takes the write lock first, waiting
 * for another connection's write (the database's busy_timeout) instead of failing later. A
 * deferred `BEGIN` (Kysely's) reads first and then upgrades to a write, and that upgrade fails
 * at once with SQLITE_BUSY, without waiting, when another connection wrote meanwhile. Inside
 * one process this changes nothing: Kysely's SQLite driver runs one transaction at a time.
 */
async function immediate<DB, T>(db: Kysely<DB>, fn: (transaction: Transaction<DB>) => Promise<T>): Promise<T> {
  let state = sqliteStates.get(db);
  if (state === undefined) sqliteStates.set(db, (state = { queue: new Queue(), kysely: undefined }));
  const kysely = (state.kysely ??= await connectionKysely(db)) as Kysely<DB>;
  const { queue } = state;
  const turn = queue.enter();
  if (turn) await turn;
  try {
    return await db.getExecutor().provideConnection(async (connection) => {
      // Another driver's SQLite connections may be several: then the connection's own Kysely, made anew.
      if (connections.get(kysely) !== connection) return db.connection().execute((own) => inside(own, fn));
      return inside(kysely, fn);
    });
  } finally {
    queue.leave();
  }
}

/**
 * Transactions on one SQLite database, one at a time, first come first served. Kysely's SQLite
 * driver would serialize them too, but its lock wakes every waiter each time it is released
 * (all but one go back to waiting): with many write requests at once, that is work on every
 * transaction for each request still waiting.
 */
class Queue {
  #busy = false;
  readonly #waiting: Array<() => void> = [];

  /** Resolves when it is the caller's turn. */
  enter(): Promise<void> | undefined {
    if (!this.#busy) {
      this.#busy = true;
      return undefined;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the turn to the next waiting caller. */
  leave(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = false;
  }
}

/**
 * Per SQLite database: the queue of its transactions, and the Kysely of its one connection
 * (Kysely's SQLite driver has one), made at its first transaction.
 */
const sqliteStates = new WeakMap<Kysely<any>, { readonly queue: Queue; kysely: Kysely<any> | undefined }>();

/**
 * A Kysely bound to `db`'s connection, as `db.connection()` makes one (it runs on that
 * connection without taking it): the transaction holds the connection meanwhile, through
 * `provideConnection`, and making one per request costs more than the SQLite calls it makes.
 */
function connectionKysely(db: Kysely<any>): Promise<Kysely<any>> {
  return db.connection().execute(async (own) => {
    connections.set(own, await connectionUnder(own));
    return own;
  });
}

/** `fn` between `begin immediate` and `commit` (or `rollback`) on the connection `kysely` runs on. */
async function inside<DB, T>(kysely: Kysely<DB>, fn: (transaction: Transaction<DB>) => Promise<T>): Promise<T> {
  let connection = connections.get(kysely);
  if (connection === undefined) connections.set(kysely, (connection = await connectionUnder(kysely)));
  // Raw statements on the connection itself (on the database, when known): nothing to compile, no layers on every write request.
  const sqlite = directSqlite(connection);
  const raw = (sql: string) => (sqlite ? runDirect(sqlite, sql, []) : connection.executeQuery(CompiledQuery.raw(sql)));
  const begun = raw('begin immediate');
  if (isPromise(begun)) await begun;
  let result: T;
  try {
    // The connection's Kysely stands in for a Transaction: same query builders, one connection.
    result = await fn(kysely as unknown as Transaction<DB>);
    const committed = raw('commit');
    if (isPromise(committed)) await committed;
  } catch (thrown) {
    await Promise.resolve()
      .then(() => raw('rollback'))
      .catch(() => undefined);
    throw thrown;
  }
  return result;
}

/** The one connection a transaction's (or a `db.connection()`'s) Kysely runs on. */
function connectionUnder(kysely: Kysely<any>): Promise<DatabaseConnection> {
  return kysely.getExecutor().provideConnection(async (connection) => connection);
}

/**
 * The `transaction` option of `JsonApi`: every write request (and every Atomic Operations
 * batch) runs in one transaction of `db`, rolled back when anything in it throws.
 *
 * @example
 * const api = new JsonApi({ transaction: kyselyTransaction(db), extensions: [atomic()] });
 */
export function kyselyTransaction<DB>(db: Kysely<DB>): <T>(run: () => Promise<T>, context: Context) => Promise<T> {
  return (run) => withTransaction(db, () => run());
}

/**
 * What to run a statement on: the transaction `withTransaction` / `kyselyTransaction` bound to
 * the current request, otherwise `db`. Custom data-layer code should use it too (on SQLite,
 * a statement on `db` inside a transaction would wait for the transaction's connection).
 *
 * @example
 * await executorFor(db).deleteFrom('articles').where('id', '=', 1).execute();
 */
export function executorFor<DB>(db: Kysely<DB>): Kysely<DB> {
  const current = bound.getStore();
  return current && current.db === db ? (current.transaction as unknown as Kysely<DB>) : db;
}
