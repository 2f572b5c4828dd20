/**
 * The direct paths of the Kyselys this integration makes (`sqliteKysely`, `postgresKysely`):
 * a runner the store uses for its compiled statements instead of Kysely's executor. One rule
 * for both: a Kysely with `log` or plugins gets none, so that Kysely sees (logs, transforms)
 * every statement.
 */
import type { Kysely, KyselyConfig } from 'kysely';

/** The databases one kind of direct path was registered for. */
export interface DirectPaths<P> {
  /** Registers `path` for `db`, unless `config` needs Kysely to see every statement. */
  register(db: Kysely<any>, config: Pick<KyselyConfig, 'log' | 'plugins'>, path: P): void;
  /** The path registered for `db`, if any. */
  of(db: Kysely<any>): P | undefined;
}

/**
 * A registry of one kind of direct path.
 *
 * @example
 * import type { Kysely } from 'kysely';
 * import type { DirectSqlite } from './statements.js';
 * declare const db: Kysely<object>;
 * declare const direct: DirectSqlite;
 * const sqlitePaths = directPaths<DirectSqlite>();
 * sqlitePaths.register(db, {}, direct); // a `config` with `log` or `plugins` registers nothing
 * sqlitePaths.of(db); // the path, or undefined with `log` or plugins
 */
export function directPaths<P>(): DirectPaths<P> {
  const paths = new WeakMap<Kysely<any>, P>();
  return {
    register: (db, config, path) => {
      if (config.log === undefined && (config.plugins ?? []).length === 0) paths.set(db, path);
    },
    of: (db) => paths.get(db),
  };
}
