/**
 * The demo's database, migrated and seeded, opened through Drizzle (better-sqlite3 on a SQLite
 * file, node-postgres on a PostgreSQL database of its own, mysql2 on a MySQL one): what the write-side suites of
 * test/drizzle/ run against, with the demo's Drizzle tables and the resources as the write
 * functions describe them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { type MySql2Database, drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { type NodePgDatabase, drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import mysql from 'mysql2';
import pg from 'pg';
import { type Dialect, migrate, openDatabase } from '../../examples/blog/db.js';
import * as mysqlTables from '../../examples/blog/drizzle/mysql.js';
import * as postgresTables from '../../examples/blog/drizzle/postgresql.js';
import * as sqliteTables from '../../examples/blog/drizzle/sqlite.js';
import { seed } from '../../examples/blog/seed.js';
import type { WriteTable } from '../../integrations/drizzle/writes.js';
import { createMysqlDatabase, createPostgresDatabase } from '../support/databases.js';

/** The demo's tables of either dialect (the suites read them through the SQLite declarations' types). */
export type Tables = typeof sqliteTables;

/** A Drizzle database of either dialect, as the suites use it. */
export type Db =
  | BetterSQLite3Database<Record<string, never>>
  | NodePgDatabase<Record<string, never>>
  | MySql2Database<Record<string, never>>;

/** A demo database seeded with `articles` articles, and a Drizzle database on it. */
export interface DemoDatabase {
  dialect: Dialect;
  db: Db;
  tables: Tables;
  /** Another connection (SQLite) or pool (PostgreSQL) on the same database; `sqliteTimeout`: its busy timeout in ms. */
  open(sqliteTimeout?: number): Db;
  /** The SQLite file, or the PostgreSQL URL. */
  location: string;
  close(): Promise<void>;
}

/** Migrates and seeds a fresh demo database of `dialect` and opens Drizzle on it. */
export async function demoDatabase(dialect: Dialect, articles = 10): Promise<DemoDatabase> {
  const closers: Array<() => unknown> = [];
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-drizzle-writes-'));
    const file = join(dir, 'blog.sqlite');
    const database = openDatabase({ file });
    await migrate(database.db, 'sqlite');
    await seed(database.db, articles);
    await database.close();
    const open = (timeout = 5000) => {
      const client = new SQLite(file, { timeout });
      client.pragma('journal_mode = WAL');
      client.pragma('foreign_keys = ON');
      closers.push(() => client.close());
      return sqliteDrizzle({ client });
    };
    return {
      dialect,
      db: open(),
      tables: sqliteTables,
      open,
      location: file,
      async close() {
        for (const close of closers) await close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (dialect === 'mysql') return mysqlDemoDatabase(articles);
  const created = await createPostgresDatabase();
  const database = openDatabase({ databaseUrl: created.url });
  await migrate(database.db, 'postgres');
  await seed(database.db, articles);
  await database.close();
  const open = () => {
    const pool = new pg.Pool({ connectionString: created.url, max: 10 });
    pool.on('error', () => undefined);
    closers.push(() => pool.end());
    return pgDrizzle({ client: pool });
  };
  return {
    dialect,
    db: open(),
    tables: postgresTables as unknown as Tables,
    open,
    location: created.url,
    async close() {
      for (const close of closers) await close();
      await created.drop();
    },
  };
}

/** The demo database on MySQL (MariaDB), Drizzle on a pool whose sessions run in UTC. */
async function mysqlDemoDatabase(articles: number): Promise<DemoDatabase> {
  const closers: Array<() => unknown> = [];
  const created = await createMysqlDatabase();
  const database = openDatabase({ databaseUrl: created.url });
  await migrate(database.db, 'mysql');
  await seed(database.db, articles);
  await database.close();
  const open = () => {
    const pool = mysql.createPool({ uri: created.url, connectionLimit: 10, timezone: 'Z' });
    pool.on('connection', (connection) => void connection.query("set time_zone = '+00:00'"));
    closers.push(() => pool.promise().end());
    return mysqlDrizzle({ client: pool });
  };
  return {
    dialect: 'mysql',
    db: open(),
    tables: mysqlTables as unknown as Tables,
    open,
    location: created.url,
    async close() {
      for (const close of closers) await close();
      await created.drop();
    },
  };
}

/** The demo's articles as the write functions describe them. */
export function articlesTable(t: Tables): WriteTable {
  return {
    type: 'articles',
    table: t.articles,
    id: t.articles.id,
    attributes: { title: t.articles.title, body: t.articles.body, status: t.articles.status },
    toOne: { author: { foreignKey: t.articles.authorId } },
    toMany: {
      tags: { related: t.tags.id, through: { from: t.articleTags.articleId, to: t.articleTags.tagId } },
      comments: { related: t.comments.id, foreignKey: t.comments.articleId },
    },
    version: t.articles.version,
    serverSet: (operation) => {
      const now = '2030-01-02T03:04:05.000Z';
      return operation === 'create' ? { createdAt: now, updatedAt: now } : { updatedAt: now };
    },
  };
}

/** The demo's tags as the write functions describe them. */
export function tagsTable(t: Tables): WriteTable {
  return { type: 'tags', table: t.tags, id: t.tags.id, attributes: { name: t.tags.name } };
}
