/**
 * A database of its own per test file, on the server `postgres.ts` provides, so files run in
 * parallel without seeing each other's rows.
 */
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { type RunnerName, postgresKysely, sqliteKysely } from '@jsonapi-gen/kysely';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database; `drop()` removes it. */
export async function createPostgresDatabase(): Promise<TestDatabase> {
  const admin = inject('postgresUrl');
  if (!admin) {
    throw new Error(
      'No PostgreSQL server for this run: test/support/postgres.ts (a globalSetup in vitest.config.ts) starts one only when a selected file matches its NEEDS_POSTGRES pattern; add this file there.',
    );
  }
  const name = `jsonapi_gen_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        // A pool's `end()` resolves before its clients' sockets have closed: dropping WITH (FORCE)
        // at once would terminate those sessions, and a client told so while closing raises an
        // error nobody listens to any more. So wait for them to go (55006: still in use), and
        // force only what is left after two seconds.
        for (let tries = 0; ; tries++) {
          try {
            await c.query(`DROP DATABASE IF EXISTS "${name}"${tries >= 40 ? ' WITH (FORCE)' : ''}`);
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== '55006' || tries >= 40) throw error;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * An empty Kysely database on `dialect`: an in-memory SQLite one, or a PostgreSQL database of its
 * own; `close()` destroys the Kysely and drops the PostgreSQL database. With `runner: 'kysely'`
 * (the default) Kysely's own dialect on the plain driver, with `'direct'` the integration's
 * Kysely (`sqliteKysely`, `postgresKysely`) whose store statements run on the driver directly.
 *
 * @example
 * const { db, close } = await emptyKysely<Db>('postgres', 'direct');
 */
export async function emptyKysely<DB>(
  dialect: 'sqlite' | 'postgres',
  runner: RunnerName = 'kysely',
): Promise<{ db: Kysely<DB>; close: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const database = new SQLite(':memory:');
    const db =
      runner === 'direct'
        ? sqliteKysely<DB>(database, { runner })
        : new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
    return { db, close: () => db.destroy() };
  }
  const database = await createPostgresDatabase();
  const pool = new pg.Pool({ connectionString: database.url });
  // As the README asks of a host that hands a raw pool to Kysely: an idle client's error (its
  // session ended by the server) is the pool's to drop, not a crash of the process.
  pool.on('error', () => undefined);
  const db =
    runner === 'direct'
      ? postgresKysely<DB>(pool, { runner })
      : new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    close: async () => {
      await db.destroy();
      await database.drop();
    },
  };
}
