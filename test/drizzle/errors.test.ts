/**
 * What the database refuses, as the client sees it through the Drizzle write functions and
 * `drizzleTransaction`, on SQLite, PostgreSQL and MySQL: a taken unique value is 409 at the attribute
 * that holds it (a taken client id at /data/id), and a database that cannot answer is 503 with
 * Retry-After (SQLite write-locked by another connection past the busy timeout; PostgreSQL and
 * MySQL refusing connections), the write going through once it is back.
 */
import SQLite from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import { Context, JsonApiError } from 'jsonapi-gen';
import mysql from 'mysql2';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDrizzle } from '../../integrations/drizzle/errors.js';
import { drizzleTransaction } from '../../integrations/drizzle/transaction.js';
import { type WriteTable, createRow, updateRow } from '../../integrations/drizzle/writes.js';
import { freePort } from '../support/net.js';
import { type DemoDatabase, articlesTable, demoDatabase, tagsTable } from './writes-databases.js';

const context = () => new Context(new Request('http://localhost/tags', { method: 'POST' }));

describe.each(['sqlite', 'postgres', 'mysql'] as const)('Drizzle write errors on %s', (dialect) => {
  let d: DemoDatabase;
  let TAGS: WriteTable;
  beforeAll(async () => {
    d = await demoDatabase(dialect, 3);
    TAGS = tagsTable(d.tables);
  });
  afterAll(() => d.close());

  it('answers a taken tag name with 409 at /data/attributes/name, on create and on update', async () => {
    const taken = createRow(d.db, TAGS, { attributes: { name: 'databases' }, relationships: {} }, context());
    await expect(taken).rejects.toMatchObject({
      status: 409,
      code: 'unique_violation',
      source: { pointer: '/data/attributes/name' },
    });
    const q = d.db as unknown as BetterSQLite3Database;
    const [other] = await q.select().from(d.tables.tags).where(eq(d.tables.tags.name, 'typescript'));
    const renamed = updateRow(d.db, TAGS, other!, { attributes: { name: 'databases' }, relationships: {} }, context());
    await expect(renamed).rejects.toMatchObject({ status: 409, source: { pointer: '/data/attributes/name' } });
  });

  it('answers a taken client-generated id with 409 at /data/id', async () => {
    const taken = createRow(d.db, TAGS, { id: '1', attributes: { name: 'fresh' }, relationships: {} }, context());
    await expect(taken).rejects.toMatchObject({ status: 409, source: { pointer: '/data/id' } });
  });

  it('answers a taken article id sent with tags with 409 at /data/id, and links no tag', async () => {
    const q = d.db as unknown as BetterSQLite3Database;
    const { articleTags } = d.tables;
    const links = await q.select().from(articleTags).where(eq(articleTags.articleId, 1));
    const taken = createRow(
      d.db,
      articlesTable(d.tables),
      {
        id: '1',
        attributes: { title: 'again' },
        relationships: { author: { type: 'people', id: '1' }, tags: [{ type: 'tags', id: '3' }] },
      },
      context(),
    );
    await expect(taken).rejects.toMatchObject({
      status: 409,
      code: 'unique_violation',
      source: { pointer: '/data/id' },
    });
    expect(await q.select().from(articleTags).where(eq(articleTags.articleId, 1))).toEqual(links);
  });

  it('answers a tag sent twice on a new article with 409, in a transaction that then writes nothing', async () => {
    const q = d.db as unknown as BetterSQLite3Database;
    const { articles } = d.tables;
    const before = await q.select().from(articles);
    const ctx = context();
    const twice = drizzleTransaction(d.db)(
      () =>
        createRow(
          d.db,
          articlesTable(d.tables),
          {
            attributes: { title: 'twice' },
            relationships: {
              author: { type: 'people', id: '1' },
              tags: [
                { type: 'tags', id: '2' },
                { type: 'tags', id: '2' },
              ],
            },
          },
          ctx,
        ),
      ctx,
    );
    await expect(twice).rejects.toMatchObject({ status: 409, code: 'unique_violation' });
    expect(await q.select().from(articles)).toEqual(before);
  });

  it.skipIf(dialect !== 'postgres')(
    'answers a title the database cannot store with 422 at the attribute (PostgreSQL refuses NUL)',
    async () => {
      const written = createRow(
        d.db,
        articlesTable(d.tables),
        { attributes: { title: 'a\u0000b' }, relationships: { author: { type: 'people', id: '1' } } },
        context(),
      );
      await expect(written).rejects.toMatchObject({ status: 422, source: { pointer: '/data/attributes/title' } });
    },
  );
});

describe('a database that cannot answer', () => {
  it('SQLite write-locked by another connection past the busy timeout: 503 with Retry-After, then the write once it is free', async () => {
    const d = await demoDatabase('sqlite', 1);
    try {
      const db = d.open(100);
      const holder = new SQLite(d.location);
      holder.exec('begin exclusive');
      const ctx = context();
      const write = () => createRow(db, tagsTable(d.tables), { attributes: { name: 'late' }, relationships: {} }, ctx);
      const refused = await drizzleTransaction(db)(write, ctx).catch((thrown: unknown) => thrown);
      expect(refused).toBeInstanceOf(JsonApiError);
      expect(refused).toMatchObject({ status: 503, code: 'database_unavailable', headers: { 'Retry-After': '1' } });
      holder.exec('rollback');
      holder.close();
      await expect(drizzleTransaction(db)(write, ctx)).resolves.toMatchObject({ name: 'late' });
    } finally {
      await d.close();
    }
  });

  it('PostgreSQL refusing connections: 503 with Retry-After', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: await freePort(), user: 'nobody', database: 'none' });
    try {
      const db = pgDrizzle({ client: pool });
      const tables = (await import('../../examples/blog/drizzle/postgresql.js')) as unknown as DemoDatabase['tables'];
      const ctx = context();
      const refused = await drizzleTransaction(db)(
        () => createRow(db, tagsTable(tables), { attributes: { name: 'x' }, relationships: {} }, ctx),
        ctx,
      ).catch((thrown: unknown) => thrown);
      expect(refused).toMatchObject({ status: 503, code: 'database_unavailable', headers: { 'Retry-After': '1' } });
    } finally {
      await pool.end();
    }
  });
  it('MySQL refusing connections: 503 with Retry-After, for a write and for a read', async () => {
    const pool = mysql.createPool({ host: '127.0.0.1', port: await freePort(), user: 'nobody', database: 'none' });
    try {
      const db = mysqlDrizzle({ client: pool });
      const mysqlTables = await import('../../examples/blog/drizzle/mysql.js');
      const tables = mysqlTables as unknown as DemoDatabase['tables'];
      const ctx = context();
      const refused = await drizzleTransaction(db)(
        () => createRow(db, tagsTable(tables), { attributes: { name: 'x' }, relationships: {} }, ctx),
        ctx,
      ).catch((thrown: unknown) => thrown);
      expect(refused).toMatchObject({ status: 503, code: 'database_unavailable', headers: { 'Retry-After': '1' } });
      const read = await runDrizzle(() => db.select().from(mysqlTables.tags)).catch((thrown: unknown) => thrown);
      expect(read).toMatchObject({ status: 503, code: 'database_unavailable' });
    } finally {
      await pool.promise().end();
    }
  });
});
