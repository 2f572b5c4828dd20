/**
 * The seam between the Kysely store and the database: a `StatementRunner` runs the statements
 * the store has compiled once (see `CompiledStatements`) and the transaction control of its
 * SQLite group commits. Every Kysely gets `kyselyRunner`, Kysely's own executor, unless it was
 * made with `runner: 'direct'` (`sqliteKysely`, `postgresKysely`), which gives it the driver
 * runner of its dialect (`sqliteRunner`, `postgresRunner`): those run the same statements on
 * better-sqlite3 or a `pg` client without Kysely's per-query layers, and so without its `log`
 * and plugins, which is why a Kysely with either cannot have them.
 */
import { type CompiledQuery, type Kysely, type KyselyConfig, type QueryResult, sql } from 'kysely';
import type { AnyDatabase } from './any-database.js';

/** Which runner a Kysely made by this integration gets: Kysely's executor (the default), or its driver directly. */
export type RunnerName = 'kysely' | 'direct';

/**
 * Runs the store's compiled statements on a database.
 *
 * @example
 * import { db } from './db.js';
 * declare const ctx: Context;
 * const compiled = db.selectFrom('articles').selectAll().where('id', '=', 42).compile();
 * const { rows } = await runnerOf(db).run(executorFor(db, ctx), db, compiled, [42]);
 */
export interface StatementRunner {
  /**
   * Runs `compiled` with `parameters` (in the order it binds them) on `executor`: `db` itself
   * outside transactions, otherwise the request's transaction (or the connection of the
   * store's own SQLite transaction). Synchronous where the driver is.
   */
  run(
    executor: Kysely<AnyDatabase>,
    db: Kysely<AnyDatabase>,
    compiled: CompiledQuery,
    parameters: readonly unknown[],
  ): QueryResult<unknown> | Promise<QueryResult<unknown>>;
  /**
   * Runs `text` (`begin immediate`, `savepoint`, `commit`, ...) of the store's own SQLite
   * transaction on `connection`, the Kysely of the one connection it holds; undefined when it ran at once.
   */
  control(connection: Kysely<AnyDatabase>, text: string): Promise<unknown> | undefined;
}

/**
 * Kysely's executor: every statement goes through it (its `log`, its plugins, its connection
 * handling). The runner of every Kysely not made with `runner: 'direct'`.
 *
 * @example
 * import { db } from './db.js';
 * await kyselyRunner.run(db, db, db.selectFrom('tags').selectAll().compile(), []);
 */
export const kyselyRunner: StatementRunner = {
  run: (executor, _db, compiled, parameters) => executor.executeQuery({ ...compiled, parameters }),
  control: (connection, text) => sql.raw(text).execute(connection),
};

/** The runner each Kysely made with `runner: 'direct'` was given. */
const runners = new WeakMap<Kysely<AnyDatabase>, StatementRunner>();

/**
 * `runner` for `db` when `config` asks for the direct one (`who` names the maker in errors);
 * a `TypeError` when it also has `log` or plugins, which the direct runner would bypass.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * import { Kysely, SqliteDialect } from 'kysely';
 * import type { Database } from './db.js';
 * declare function directRunner(database: SQLite.Database): StatementRunner; // runs statements on the driver
 * const database = new SQLite('blog.sqlite');
 * const config = { runner: 'direct' as const }; // with a `log` or `plugins` too: a TypeError
 * const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
 * chooseRunner('myKysely', db, config, () => directRunner(database));
 */
export function chooseRunner(
  who: string,
  db: Kysely<AnyDatabase>,
  config: Pick<KyselyConfig, 'log' | 'plugins'> & { runner?: RunnerName },
  direct: () => StatementRunner,
): void {
  const runner = config.runner ?? 'kysely';
  if (runner === 'kysely') return;
  if (runner !== 'direct')
    throw new TypeError(`${who}: runner must be 'kysely' or 'direct', got ${JSON.stringify(runner)}`);
  if (config.log !== undefined || (config.plugins ?? []).length > 0) {
    throw new TypeError(
      `${who}: runner 'direct' runs the store's statements without Kysely, so its log and plugins would miss them; use runner 'kysely' (the default) with log or plugins`,
    );
  }
  runners.set(db, direct());
}

/**
 * The runner of `db`: the direct one it was made with, else `kyselyRunner`.
 *
 * @example
 * import { db } from './db.js';
 * const direct = runnerOf(db) !== kyselyRunner;
 */
export function runnerOf(db: Kysely<AnyDatabase>): StatementRunner {
  return runners.get(db) ?? kyselyRunner;
}
