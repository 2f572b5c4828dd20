/**
 * The Drizzle store's reads against the Kysely store's, over the same seeded database: the
 * demo's schema served twice (Drizzle data layers of examples/blog/drizzle-store.ts, Kysely
 * data layers of store.ts), every read of the query language sent to both, the two documents
 * compared byte for byte, scoped and not; on SQLite, PostgreSQL and MySQL (MariaDB). And the statements of the
 * benchmark's routes (a-g), as many as the Kysely store runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { drizzle as postgresDrizzle } from 'drizzle-orm/node-postgres';
import { JsonApi } from 'jsonapi-gen';
import { sql } from 'kysely';
import mysql from 'mysql2';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../bench/routes.js';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { createDrizzleStore } from '../../examples/blog/drizzle-store.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { createMysqlDatabase, createPostgresDatabase } from '../support/databases.js';
import { CURSOR_PATHS, MISSING, PATHS, apiOf, read, sameCursorPages } from '../support/store-reads.js';

interface Served {
  drizzle: JsonApi;
  kysely: JsonApi;
  drizzleScoped: JsonApi;
  kyselyScoped: JsonApi;
  /** Statements each store ran since the last reset. */
  statements: { drizzle: number; kysely: number };
}

/** The same database read through both stores. */
async function serve(
  dialect: 'sqlite' | 'postgres' | 'mysql',
  cleanups: Array<() => Promise<void> | void>,
): Promise<Served> {
  const statements = { drizzle: 0, kysely: 0 };
  const logger = { logQuery: () => void statements.drizzle++ };
  const onStatement = () => void statements.kysely++;
  let database: ReturnType<typeof openDatabase>;
  let db: object;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-drizzle-reads-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'blog.sqlite');
    database = openDatabase({ file, onStatement });
    const connection = new SQLite(file);
    cleanups.unshift(() => void connection.close());
    db = sqliteDrizzle(connection, { logger });
  } else if (dialect === 'mysql') {
    const created = await createMysqlDatabase();
    cleanups.push(() => created.drop());
    database = openDatabase({ databaseUrl: created.url, onStatement });
    // Sessions in UTC, as examples/blog/drizzle-store.ts opens them.
    const pool = mysql.createPool({ uri: created.url, timezone: 'Z' });
    pool.on('connection', (connection) => void connection.query("set time_zone = '+00:00'"));
    cleanups.unshift(() => pool.promise().end());
    db = mysqlDrizzle({ client: pool, logger });
  } else {
    const created = await createPostgresDatabase();
    cleanups.push(() => created.drop());
    database = openDatabase({ databaseUrl: created.url, onStatement });
    const pool = new pg.Pool({ connectionString: created.url, options: '-c TimeZone=UTC' });
    cleanups.unshift(() => pool.end());
    db = postgresDrizzle(pool, { logger });
  }
  cleanups.unshift(() => database.close());
  await migrate(database.db, database.dialect);
  await seed(database.db, 60);
  // Comments per article from 2 to 5, so that counts tell articles apart.
  await sql`delete from comments where id % 4 = 0 or id % 9 = 0`.execute(database.db);
  const drizzleDialect = dialect === 'postgres' ? 'postgresql' : dialect;
  return {
    drizzle: apiOf(createDrizzleStore(db, drizzleDialect)),
    kysely: apiOf(createStore(database.db)),
    drizzleScoped: apiOf(createDrizzleStore(db, drizzleDialect, { scoped: true })),
    kyselyScoped: apiOf(createStore(database.db, { scoped: true })),
    statements,
  };
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)(
  'the Drizzle store reads as the Kysely store on %s',
  (dialect) => {
    let served: Served;
    const cleanups: Array<() => Promise<void> | void> = [];
    beforeAll(async () => {
      served = await serve(dialect, cleanups);
    });
    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
    });

    it.each(PATHS)('GET %s', async (path) => {
      const [expected, actual] = [await read(served.kysely, path), await read(served.drizzle, path)];
      expect(actual[1]).toBe(expected[1]);
      // Real reads, not the same error twice.
      expect(actual[0], actual[1]).toBe(MISSING.includes(path) ? 404 : 200);
    });

    it.each(PATHS)('GET %s with row-level scopes, anonymous and signed in', async (path) => {
      for (const user of ['', '2']) {
        const expected = await read(served.kyselyScoped, path, user);
        const actual = await read(served.drizzleScoped, path, user);
        expect(actual[1]).toBe(expected[1]);
        expect(actual[0]).toBe(expected[0]);
      }
    });

    it.each(CURSOR_PATHS)('follows the cursor pages of %s to the end, as Kysely does', (first) =>
      sameCursorPages(served.kysely, served.drizzle, first),
    );

    it.each(ROUTES.filter((route) => route.method === 'GET').map((route) => [route.name, route.path]))(
      'runs as many statements as the Kysely store on route %s (%s)',
      async (_name, path) => {
        const count = async (api: JsonApi, store: 'drizzle' | 'kysely') => {
          served.statements[store] = 0;
          const [status] = await read(api, path);
          expect(status).toBe(200);
          return served.statements[store];
        };
        const kysely = await count(served.kysely, 'kysely');
        expect(kysely).toBeGreaterThan(0);
        expect(await count(served.drizzle, 'drizzle')).toBe(kysely);
      },
    );
  },
);
