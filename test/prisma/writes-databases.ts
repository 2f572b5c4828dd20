/**
 * The demo's database, migrated and seeded, opened through the generated Prisma client of its
 * dialect with its driver adapter: what the write-side suites of test/prisma/ run against.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { type Dialect, migrate, openDatabase } from '../../examples/blog/db.js';
import { PrismaClient as PostgresClient } from '../../examples/blog/prisma/generated/postgresql/client.js';
import { PrismaClient as SqliteClient } from '../../examples/blog/prisma/generated/sqlite/client.js';
import { seed } from '../../examples/blog/seed.js';
import { createPostgresDatabase } from '../support/databases.js';

/** The client as the suites use it: both generated clients have this shape. */
export type Client = SqliteClient;

/** A demo database seeded with `articles` articles, and its Prisma client. */
export interface DemoDatabase {
  dialect: Dialect;
  prisma: Client;
  /** Another client on the same database (a second process, say). */
  open(): Client;
  /** The PostgreSQL URL (undefined on SQLite). */
  url?: string;
  close(): Promise<void>;
}

/** Migrates and seeds a fresh demo database of `dialect` and opens a Prisma client on it. */
export async function demoDatabase(dialect: Dialect, articles = 10): Promise<DemoDatabase> {
  const clients: Client[] = [];
  const track = (client: Client) => (clients.push(client), client);
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-prisma-writes-'));
    const file = join(dir, 'blog.sqlite');
    const database = openDatabase({ file });
    await migrate(database.db, 'sqlite');
    await seed(database.db, articles);
    await database.close();
    const open = () => track(new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }) }));
    return {
      dialect,
      prisma: open(),
      open,
      async close() {
        for (const client of clients) await client.$disconnect();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const created = await createPostgresDatabase();
  const database = openDatabase({ databaseUrl: created.url });
  await migrate(database.db, 'postgres');
  await seed(database.db, articles);
  await database.close();
  const open = () =>
    track(new PostgresClient({ adapter: new PrismaPg({ connectionString: created.url }) }) as unknown as Client);
  return {
    dialect,
    prisma: open(),
    open,
    url: created.url,
    async close() {
      for (const client of clients) await client.$disconnect();
      await created.drop();
    },
  };
}
