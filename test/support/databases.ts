/**
 * A database of its own per test file, on the servers `postgres.ts` and `mysql.ts` provide, so
 * files run in parallel without seeing each other's rows.
 */
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import pg from 'pg';
import { type RunnerName, mysqlDateTimeText, postgresKysely, sqliteKysely } from '@jsonapi-gen/kysely';
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
 * Creates an empty MySQL database (utf8mb4, binary collation: text compares and sorts by code
 * point, as on the other databases) on the server `mysql.ts` provides; `drop()` removes it.
 *
 * @example
 * const database = await createMysqlDatabase();
 * try { console.log(database.url); } finally { await database.drop(); }
 */
export async function createMysqlDatabase(): Promise<TestDatabase> {
  const admin = inject('mysqlUrl');
  if (!admin) {
    throw new Error(
      'No MySQL server for this run: test/support/mysql.ts (a globalSetup in vitest.config.ts) starts one only when a selected file matches its NEEDS_MYSQL pattern; add this file there.',
    );
  }
  const name = `jsonapi_gen_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const run = async (statement: string) => {
    const connection = await mysqlPromise.createConnection({ uri: admin });
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  await run(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS \`${name}\``) };
}

/**
 * An empty Kysely database on `dialect`: an in-memory SQLite one, or a PostgreSQL or MySQL
 * database of its own; `close()` destroys the Kysely and drops the database. With `runner:
 * 'kysely'` (the default) Kysely's own dialect on the plain driver, with `'direct'` the
 * integration's Kysely (`sqliteKysely`, `postgresKysely`) whose store statements run on the
 * driver directly (MySQL has only Kysely's).
 *
 * @example
 * const { db, close } = await emptyKysely<Db>('postgres', 'direct');
 */
export async function emptyKysely<DB>(
  dialect: 'sqlite' | 'postgres' | 'mysql',
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
  if (dialect === 'mysql') {
    const database = await createMysqlDatabase();
    const db = new Kysely<DB>({ dialect: new MysqlDialect({ pool: mysqlPool(database.url) }) });
    return {
      db,
      close: async () => {
        await db.destroy();
        await database.drop();
      },
    };
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

/** A mysql2 pool as the store expects one: UTC sessions, date-times read as RFC 3339 text (as examples/blog/db.ts makes it). */
export function mysqlPool(url: string): mysql.Pool {
  const pool = mysql.createPool({ uri: url, timezone: 'Z', typeCast: mysqlDateTimeText, connectionLimit: 10 });
  pool.on('connection', (connection) => connection.query("set time_zone = '+00:00'"));
  return pool;
}
