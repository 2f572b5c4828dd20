/**
 * Prepared statements on PostgreSQL through public APIs: a wrapper of the host's `pg` Pool, to
 * pass to Kysely's `PostgresDialect`, whose clients send Kysely's `query(text, values)` as
 * node-postgres's named query config `{ name, text, values }`. PostgreSQL then parses and plans
 * each statement once per connection instead of on every call.
 *
 * Names come from one process-wide map, text -> name, so a name never stands for two texts
 * (node-postgres would reject a name reused with another text on a connection). The map is
 * bounded: past `maxNames` distinct texts, new texts go unnamed, so a host with unbounded SQL
 * shapes (say `IN` lists of every length) cannot grow the server's or the process's memory; the
 * repeated shapes, seen first, keep their names. Transaction control (`begin`, `commit`,
 * savepoints) goes out unprepared, one simple-protocol message: there is nothing to plan.
 *
 * `postgresKysely` makes the Kysely on such a pool; with `runner: 'direct'` the store runs its
 * compiled statements outside transactions on the pool's clients directly, with the same names.
 */
import {
  Kysely,
  type KyselyConfig,
  PostgresDialect,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type QueryResult,
} from 'kysely';
import { unavailable } from './errors.js';
import { type RunnerName, type StatementRunner, chooseRunner, kyselyRunner } from './runner.js';

/** A node-postgres client: Kysely's view of it, plus the named query config and its `'error'` event. */
export interface NamedQueryClient extends PostgresPoolClient {
  query<R>(config: { name?: string; text: string; values: unknown[] }): Promise<PostgresQueryResult<R>>;
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  /** Back to the pool; with an error, the pool closes the client instead of keeping it. */
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** A pool whose clients take named query configs (node-postgres's `pg.Pool`). */
export interface NamedQueryPool {
  connect(): Promise<NamedQueryClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Why a client can no longer be used: the connection error it emitted, or a statement's error
 * that means the connection is gone (`unavailable`: the server terminated it, the socket closed).
 * Absent while the client is sound.
 */
const broken = new WeakMap<NamedQueryClient, Error>();

/** Clients given their `'error'` listener (once each, for the client's life). */
const watched = new WeakSet<NamedQueryClient>();

/**
 * Gives `client` its `'error'` listener, once. node-postgres emits `'error'` on a client whose
 * connection dies (the server restarts, `pg_terminate_backend`); the pool listens only while
 * the client is idle, and an `'error'` nobody listens to ends the process. The statement
 * running on it rejects on its own (and becomes a 503); the listener only notes the client is
 * broken, so that its release makes the pool close it.
 */
function watch(client: NamedQueryClient): NamedQueryClient {
  if (!watched.has(client)) {
    watched.add(client);
    client.on('error', (error) => {
      if (!broken.has(client)) broken.set(client, error);
    });
  }
  return client;
}

/** Notes a statement's error that means the connection is gone, and passes it on. */
function noteFailure(client: NamedQueryClient, error: unknown): never {
  if (unavailable(error) && !broken.has(client))
    broken.set(client, error instanceof Error ? error : new Error(String(error)));
  throw error;
}

/** Releases `client` to its pool, which closes it when it is broken. */
function release(client: NamedQueryClient): void {
  const error = broken.get(client);
  if (error === undefined) client.release();
  else client.release(error);
}

/**
 * Checks a client out of `pool`, watched (see `watch`). The pool's own `'error'` listener for
 * idle clients that die gets a listener too, so that losing an idle connection never ends the
 * process either: the pool has dropped the client already, and the next checkout connects anew.
 */
async function checkout(pool: NamedQueryPool): Promise<NamedQueryClient> {
  if (!listening.has(pool)) {
    listening.add(pool);
    pool.on('error', () => {});
  }
  return watch(await pool.connect());
}

/** Pools given their `'error'` listener. */
const listening = new WeakSet<NamedQueryPool>();

export interface PreparedPoolOptions {
  /** Distinct statement texts given a name, process-wide; later texts go unnamed. Default 1000. */
  maxNames?: number;
}

/** Statement text -> name, for the whole process (see the module's comment). */
const names = new Map<string, string>();

/** Names handed out so far: a name is never given twice, even after `renamed`. */
let issued = 0;

/** The name of `text`, or undefined once the bound is reached for a text not yet named. */
function statementName(text: string, maxNames: number): string | undefined {
  const name = names.get(text);
  if (name !== undefined || names.size >= maxNames) return name;
  const fresh = `jg${issued++}`;
  names.set(text, fresh);
  return fresh;
}

/**
 * After a schema change PostgreSQL refuses to run a prepared `select *` whose columns changed
 * ("cached plan must not change result type", 0A000), and the connection keeps the old
 * statement under its name: give the text a new name, which every connection prepares afresh.
 */
function renamed(text: string): string {
  const fresh = `jg${issued++}`;
  names.set(text, fresh);
  return fresh;
}

/** `begin`, `commit`, savepoints and the like: statements PostgreSQL has no plan to keep for. */
const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|savepoint|release|start transaction|end)\b/i;

const isStalePlan = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === '0A000' && /cached plan/.test((error as Error).message);

/** Runs `text` on `runner`, named when it has (or may still get) a name; a stale plan is prepared anew under a fresh name. */
function namedQuery<R>(
  runner: NamedQueryClient,
  text: string,
  values: unknown[],
  maxNames: number,
): Promise<PostgresQueryResult<R>> {
  // Nothing to plan: one simple-protocol message instead of parse, bind, describe, execute.
  if (values.length === 0 && TRANSACTION_CONTROL.test(text)) return runner.query<R>(text, values);
  const name = statementName(text, maxNames);
  if (name === undefined) return runner.query<R>(text, values);
  return runner.query<R>({ name, text, values }).catch((error: unknown) => {
    // Outside a transaction the retry succeeds; inside one PostgreSQL has aborted it anyway.
    if (!isStalePlan(error)) throw error;
    const next = names.get(text) === name ? renamed(text) : names.get(text);
    return next === undefined ? runner.query<R>(text, values) : runner.query<R>({ name: next, text, values });
  });
}

/** `options.maxNames`, or the default; a `TypeError` naming `who` when it is not a whole number. */
function checkedMaxNames(options: PreparedPoolOptions, who: string): number {
  const maxNames = options.maxNames ?? 1000;
  if (!Number.isInteger(maxNames) || maxNames < 0)
    throw new TypeError(`${who}: maxNames must be a whole number, got ${maxNames}`);
  return maxNames;
}

/**
 * Wraps a `pg` Pool so that Kysely's statements go out named (prepared once per connection).
 * Host queries through the wrapped pool or through Kysely keep working; the pool itself is
 * unchanged (its own `query` stays unnamed), but for its `'error'` events: every client it hands
 * out gets a listener (once, for its life), and so does the pool, so that a connection lost
 * while a client is checked out (or idle) fails that client's statement instead of ending the
 * process; the broken client is then released with its error, which makes the pool close it.
 *
 * @example
 * import pg from 'pg';
 * import { Kysely, PostgresDialect } from 'kysely';
 * import { preparedPool } from '@jsonapi-gen/kysely';
 * import type { Database } from './db.js';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
 * const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparedPool(pool, { maxNames: 500 }) }) });
 */
export function preparedPool(pool: NamedQueryPool, options: PreparedPoolOptions = {}): PostgresPool {
  const maxNames = checkedMaxNames(options, 'preparedPool');
  // One wrapper per physical client, made once: a checkout costs no allocation.
  const wrappers = new WeakMap<NamedQueryClient, PostgresPoolClient>();
  const wrap = (client: NamedQueryClient): PostgresPoolClient => {
    let wrapper = wrappers.get(client);
    if (wrapper) return wrapper;
    function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
    function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
    function query<R>(
      what: string | PostgresCursor<R>,
      parameters?: ReadonlyArray<unknown>,
    ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
      if (typeof what !== 'string') return client.query(what);
      return namedQuery<R>(client, what, parameters as unknown[], maxNames).catch((error: unknown) =>
        noteFailure(client, error),
      );
    }
    wrapper = { query, release: () => release(client) };
    wrappers.set(client, wrapper);
    return wrapper;
  };
  return {
    connect: async () => wrap(await checkout(pool)),
    end: () => pool.end(),
  };
}

/** Commands whose row count Kysely reports as `numAffectedRows`, as its PostgreSQL driver does. */
const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * A Kysely on a `pg` Pool through `preparedPool` (statements named, at most `maxNames` of
 * them). The store runs its statements through Kysely's executor, unless you choose
 * `runner: 'direct'` (`postgresRunner`): then, outside transactions, a statement the store has
 * compiled once runs on a client of the pool at once (named, one checkout for the one
 * statement, as Kysely would take), without Kysely's per-query layers. Transactions, and every
 * query of your own, go through Kysely as usual. Kysely's `log` and plugins never see the
 * direct statements, so a `config` with either and `runner: 'direct'` is refused (a
 * `TypeError`). Lost connections are handled as in `preparedPool`, on both runners.
 *
 * @example
 * import pg from 'pg';
 * import type { Database } from './db.js';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
 * const db = postgresKysely<Database>(pool, { maxNames: 500, runner: 'direct' });
 */
export function postgresKysely<DB>(
  pool: NamedQueryPool,
  config: Omit<KyselyConfig, 'dialect'> & PreparedPoolOptions & { runner?: RunnerName } = {},
): Kysely<DB> {
  const { maxNames: _, runner: __, ...kysely } = config;
  const maxNames = checkedMaxNames(config, 'postgresKysely');
  const db = new Kysely<DB>({ ...kysely, dialect: new PostgresDialect({ pool: preparedPool(pool, { maxNames }) }) });
  chooseRunner('postgresKysely', db, config, () => postgresRunner(pool, maxNames));
  return db;
}

/**
 * The direct runner of a `pg` Pool: outside transactions, each statement on a client checked
 * out for it, named as `preparedPool` names it; inside transactions (which Kysely runs, on
 * their one connection), through the transaction's executor.
 *
 * @example
 * import pg from 'pg';
 * import type { Database } from './db.js';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const db = postgresKysely<Database>(pool, { runner: 'direct' }); // postgresRunner under it
 */
function postgresRunner(pool: NamedQueryPool, maxNames: number): StatementRunner {
  const direct = async (sql: string, parameters: readonly unknown[]): Promise<QueryResult<unknown>> => {
    // Checked out and released as Kysely's driver does: a statement that fails (a bad filter
    // value, a unique violation) leaves its connection, and what it prepared, in the pool,
    // where pg's own `pool.query` would close it.
    const client = await checkout(pool);
    try {
      const { command, rowCount, rows } = await namedQuery<unknown>(
        client,
        sql,
        parameters as unknown[],
        maxNames,
      ).catch((error: unknown) => noteFailure(client, error));
      return AFFECTING.has(command) && rowCount !== null
        ? { rows: rows ?? [], numAffectedRows: BigInt(rowCount) }
        : { rows: rows ?? [] };
    } finally {
      release(client);
    }
  };
  return {
    run: (executor, db, compiled, parameters) =>
      executor === db ? direct(compiled.sql, parameters) : executor.executeQuery({ ...compiled, parameters }),
    // Group commit is SQLite's; PostgreSQL's transactions are Kysely's.
    control: (connection, text) => kyselyRunner.control(connection, text),
  };
}
