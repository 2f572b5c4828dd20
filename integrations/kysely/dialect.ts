import { type Kysely, MysqlIntrospector, SqliteIntrospector } from 'kysely';
import type { AnyDatabase } from './any-database.js';

/** The SQL dialects the store speaks: what changes its statements. */
export type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

const dialects = new WeakMap<Kysely<AnyDatabase>, SqlDialect>();

/**
 * The dialect of `db`, as its Kysely dialect's introspector says (MySQL's serves MariaDB too;
 * anything else is taken for PostgreSQL), remembered per database.
 *
 * @example
 * import { db } from './db.js';
 * if (dialectOf(db) === 'mysql') console.log('no RETURNING: read the row back');
 */
export function dialectOf(db: Kysely<AnyDatabase>): SqlDialect {
  let known = dialects.get(db);
  if (known === undefined) {
    const introspection = db.introspection;
    known =
      introspection instanceof SqliteIntrospector
        ? 'sqlite'
        : introspection instanceof MysqlIntrospector
          ? 'mysql'
          : 'postgres';
    dialects.set(db, known);
  }
  return known;
}
