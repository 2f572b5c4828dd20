/**
 * The demo's schema.prisma against the tables its Kysely migrations make: the clients
 * generated from it (offline), the seeded rows read through them with the driver adapters
 * (better-sqlite3, pg, mariadb), and every model, field, table and column agreeing in name, type and
 * nullability.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import SQLite from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dialect, migrate, openDatabase } from '../../examples/blog/db.js';
import { PrismaClient as MysqlClient } from '../../examples/blog/prisma/generated/mysql/client.js';
import { PrismaClient as PostgresClient } from '../../examples/blog/prisma/generated/postgresql/client.js';
import { PrismaClient as SqliteClient } from '../../examples/blog/prisma/generated/sqlite/client.js';
import { seed, seedRows } from '../../examples/blog/seed.js';
import { DEMO_SCHEMA, generateClients, schemaFor } from '../../integrations/prisma/scripts/generate.js';
import { createMysqlDatabase, createPostgresDatabase } from '../support/databases.js';
import { type SchemaModel, schemaModels } from './schema-file.js';

const ARTICLES = 30;
const rows = seedRows(ARTICLES);
const models = schemaModels(readFileSync(DEMO_SCHEMA, 'utf8'));

/** Kysely's own bookkeeping: tables of the migrator, not of the demo. */
const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock'];

/** The column types each Prisma type may be read from, by database. */
const COMPATIBLE: Record<Dialect, Record<string, string[]>> = {
  // SQLite's declared types; the demo keeps date-times as ISO 8601 text, which Prisma's adapter reads.
  sqlite: { Int: ['integer'], BigInt: ['bigint', 'integer'], String: ['text'], DateTime: ['text'] },
  postgres: {
    Int: ['integer'],
    BigInt: ['bigint'],
    String: ['text'],
    DateTime: ['timestamp with time zone'],
  },
  // The demo's text is varchar(255) where indexed, mediumtext elsewhere (the idempotency keys' and
  // the outbox's tables: text, longtext); date-times datetime(3), read as UTC.
  mysql: {
    Int: ['int'],
    BigInt: ['bigint'],
    String: ['varchar', 'text', 'mediumtext', 'longtext'],
    DateTime: ['datetime'],
  },
};

/** A column as the database describes it. */
interface DatabaseColumn {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

function sqliteColumns(file: string): DatabaseColumn[] {
  const sqlite = new SQLite(file, { readonly: true });
  try {
    const tables = sqlite
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)
      .pluck()
      .all() as string[];
    return tables.flatMap((table) =>
      (
        sqlite.prepare(`select name, type, "notnull", pk from pragma_table_info(?)`).all(table) as Array<{
          name: string;
          type: string;
          notnull: number;
          pk: number;
        }>
      ).map((c) => ({
        table,
        column: c.name,
        type: c.type.toLowerCase(),
        // An INTEGER PRIMARY KEY is the rowid: never null, though the pragma does not say so.
        nullable: c.notnull === 0 && c.pk === 0,
      })),
    );
  } finally {
    sqlite.close();
  }
}

async function postgresColumns(url: string): Promise<DatabaseColumn[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
    }>(
      `select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = 'public'`,
    );
    return result.rows.map((c) => ({
      table: c.table_name,
      column: c.column_name,
      type: c.data_type,
      nullable: c.is_nullable === 'YES',
    }));
  } finally {
    await client.end();
  }
}

async function mysqlColumns(url: string): Promise<DatabaseColumn[]> {
  const connection = await mysql.createConnection({ uri: url });
  try {
    const [rows] = await connection.query(
      `select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = database()`,
    );
    return (rows as Array<Record<string, string>>).map((c) => ({
      table: c.table_name ?? c.TABLE_NAME!,
      column: c.column_name ?? c.COLUMN_NAME!,
      type: (c.data_type ?? c.DATA_TYPE!).toLowerCase(),
      nullable: (c.is_nullable ?? c.IS_NULLABLE) === 'YES',
    }));
  } finally {
    await connection.end();
  }
}

/** What does not agree between the schema's models and the database's columns, one line each. */
function disagreements(schema: SchemaModel[], columns: DatabaseColumn[], dialect: keyof typeof COMPATIBLE): string[] {
  const problems: string[] = [];
  const key = (table: string, column: string) => `${table}.${column}`;
  const inDatabase = new Map(columns.map((c) => [key(c.table, c.column), c]));
  const inSchema = new Set<string>();
  for (const model of schema) {
    for (const field of model.columns) {
      inSchema.add(key(model.table, field.column));
      const column = inDatabase.get(key(model.table, field.column));
      const where = `${model.model}.${field.field} (${model.table}.${field.column})`;
      if (!column) problems.push(`${where}: no such column`);
      else {
        if (!(COMPATIBLE[dialect][field.type] ?? []).includes(column.type))
          problems.push(`${where}: ${field.type} on a ${column.type} column`);
        if (column.nullable !== field.nullable)
          problems.push(
            `${where}: ${field.nullable ? 'optional' : 'required'} on a ${column.nullable ? 'nullable' : 'not null'} column`,
          );
      }
    }
  }
  for (const column of columns) {
    if (MIGRATOR_TABLES.includes(column.table)) continue;
    if (!inSchema.has(key(column.table, column.column)))
      problems.push(`${column.table}.${column.column}: in the database, in no model`);
  }
  return problems;
}

describe('generating the clients', () => {
  it('writes a client per database from the one schema, each for its own provider', () => {
    const folders = generateClients();
    for (const [provider, folder] of Object.entries(folders)) {
      expect(existsSync(join(folder, 'client.ts')), folder).toBe(true);
      expect(readFileSync(join(folder, 'internal', 'class.ts'), 'utf8')).toContain(`"activeProvider": "${provider}"`);
    }
  });

  it('sets the provider and output of a copy, and refuses a schema it cannot rewrite', () => {
    const text = readFileSync(DEMO_SCHEMA, 'utf8');
    const copy = schemaFor(text, 'postgresql', '/somewhere/else');
    expect(copy).toMatch(/datasource db \{\s*provider = "postgresql"\s*\}/);
    expect(copy).toContain('output                 = "/somewhere/else"');
    expect(copy.replace(/"postgresql"/, '"sqlite"').replace('"/somewhere/else"', '"./generated/sqlite"')).toBe(text);
    expect(() => schemaFor(`${text}\ndatasource other {\n  provider = "sqlite"\n}\n`, 'sqlite', '/x')).toThrow(
      /one datasource/,
    );
  });
});

/** The client as the checks use it: both generated clients have this shape. */
type Client = SqliteClient;

describe.each(['sqlite', 'postgres', 'mysql'] as const)('the demo database read through Prisma on %s', (dialect) => {
  let prisma: Client;
  let columns: DatabaseColumn[];
  const cleanups: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-prisma-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'blog.sqlite');
      const database = openDatabase({ file });
      await migrate(database.db, 'sqlite');
      await seed(database.db, ARTICLES);
      await database.close();
      columns = sqliteColumns(file);
      prisma = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }) });
    } else if (dialect === 'mysql') {
      const created = await createMysqlDatabase();
      cleanups.push(() => created.drop());
      const database = openDatabase({ databaseUrl: created.url });
      await migrate(database.db, 'mysql');
      await seed(database.db, ARTICLES);
      await database.close();
      columns = await mysqlColumns(created.url);
      const url = new URL(created.url);
      prisma = new MysqlClient({
        adapter: new PrismaMariaDb({
          host: url.hostname,
          port: Number(url.port),
          user: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          database: url.pathname.slice(1),
        }),
      }) as unknown as Client;
    } else {
      const created = await createPostgresDatabase();
      cleanups.push(() => created.drop());
      const database = openDatabase({ databaseUrl: created.url });
      await migrate(database.db, 'postgres');
      await seed(database.db, ARTICLES);
      await database.close();
      columns = await postgresColumns(created.url);
      prisma = new PostgresClient({ adapter: new PrismaPg({ connectionString: created.url }) }) as unknown as Client;
    }
    cleanups.unshift(() => prisma.$disconnect());
  });

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('counts the rows the seed wrote, in every table', async () => {
    expect({
      people: await prisma.person.count(),
      articles: await prisma.article.count(),
      comments: await prisma.comment.count(),
      tags: await prisma.tag.count(),
      article_tags: await prisma.articleTag.count(),
      idempotency: await prisma.idempotencyKey.count(),
    }).toEqual({
      people: rows.people.length,
      articles: rows.articles.length,
      comments: rows.comments.length,
      tags: rows.tags.length,
      article_tags: rows.article_tags.length,
      idempotency: 0,
    });
  });

  it('reads an article with its author, tags and comments through the relations', async () => {
    const id = 7; // 7 % 4 = 3 tags
    const seeded = rows.articles[id - 1]!;
    const article = await prisma.article.findUniqueOrThrow({
      where: { id },
      include: {
        author: true,
        tags: { include: { tag: true }, orderBy: { tagId: 'asc' } },
        comments: { orderBy: { id: 'asc' } },
      },
    });
    expect(article).toMatchObject({
      id,
      title: seeded.title,
      body: seeded.body,
      status: seeded.status,
      authorId: seeded.author_id,
      createdAt: new Date(seeded.created_at),
      updatedAt: new Date(seeded.updated_at),
      version: 1,
      author: { id: seeded.author_id, name: rows.people[seeded.author_id - 1]!.name },
    });
    const tagIds = rows.article_tags.filter((t) => t.article_id === id).map((t) => t.tag_id);
    expect(tagIds.length).toBe(3);
    expect(article.tags.map((t) => t.tag.name)).toEqual(
      tagIds.sort((a, b) => a - b).map((t) => rows.tags[t - 1]!.name),
    );
    const comments = rows.comments.flatMap((c, i) => (c.article_id === id ? [{ id: i + 1, body: c.body }] : []));
    expect(comments.length).toBe(5);
    expect(article.comments.map((c) => ({ id: c.id, body: c.body }))).toEqual(comments);
  });

  it("reads a person's articles and comments, and a null where the seed wrote one", async () => {
    const person = await prisma.person.findUniqueOrThrow({
      where: { id: 4 },
      include: { _count: { select: { articles: true, comments: true } } },
    });
    expect(person.email).toBeNull();
    expect(rows.people[3]!.email).toBeNull();
    expect(person._count).toEqual({
      articles: rows.articles.filter((a) => a.author_id === 4).length,
      comments: rows.comments.filter((c) => c.author_id === 4).length,
    });
    const tag = await prisma.tag.findUniqueOrThrow({ where: { name: 'json' }, include: { _count: true } });
    expect(tag._count.articles).toBe(rows.article_tags.filter((t) => t.tag_id === tag.id).length);
  });

  it('agrees with the migrated tables: every model, field, table and column, in type and nullability', () => {
    expect(models.map((m) => m.table).sort()).toEqual(
      [...new Set(columns.map((c) => c.table))].filter((t) => !MIGRATOR_TABLES.includes(t)).sort(),
    );
    expect(disagreements(models, columns, dialect)).toEqual([]);
  });
});
