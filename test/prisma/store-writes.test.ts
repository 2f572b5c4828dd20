/**
 * `defineStore`'s writes as the demo serves them (`examples/blog/prisma-store.ts`): on SQLite,
 * the date-times a Prisma write stores are the same `…Z` text as the seed's (and the Kysely
 * store's), so that comparisons and sorts by them hold across rows written either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prismaTransaction } from '../../integrations/prisma/transaction.js';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { type BlogPrisma, createPrismaStore, openPrisma } from '../../examples/blog/prisma-store.js';
import { seed } from '../../examples/blog/seed.js';

const ISO_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the Prisma store writes on SQLite', () => {
  let dir: string;
  let file: string;
  let prisma: BlogPrisma;
  let api: ReturnType<typeof createApi>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-prisma-store-'));
    file = join(dir, 'blog.sqlite');
    const database = openDatabase({ file });
    await migrate(database.db, 'sqlite');
    await seed(database.db, 5);
    await database.close();
    prisma = openPrisma({ file });
    api = createApi(createPrismaStore(prisma, 'sqlite'), { transaction: prismaTransaction(prisma) });
  });
  afterAll(async () => {
    await prisma.$disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (method: string, path: string, body: unknown) =>
    api.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify(body),
      }),
      { attributes: { user: '1' } },
    );

  const stored = (sql: string, id: number) => {
    const db = new SQLite(file, { readonly: true });
    try {
      return db.prepare(sql).get(id) as Record<string, string>;
    } finally {
      db.close();
    }
  };

  it('stores created and updated timestamps as toISOString() text, as the seed does', async () => {
    const created = await send('POST', '/articles', {
      data: {
        type: 'articles',
        attributes: { title: 'Dates as text', body: 'b', status: 'draft' },
        relationships: { author: { data: { type: 'people', id: '1' } } },
      },
    });
    expect(created.status).toBe(201);
    const id = Number(((await created.json()) as { data: { id: string } }).data.id);
    const row = stored('select created_at, updated_at from articles where id = ?', id);
    expect(row.created_at).toMatch(ISO_Z);
    expect(row.updated_at).toMatch(ISO_Z);
    expect(stored('select created_at from articles where id = ?', 1).created_at).toMatch(ISO_Z);

    const updated = await send('PATCH', `/articles/${id}`, {
      data: { type: 'articles', id: String(id), attributes: { title: 'Dates as text, again' } },
    });
    expect(updated.status).toBe(200);
    expect(stored('select updated_at from articles where id = ?', id).updated_at).toMatch(ISO_Z);
  });

  it('finds a row it wrote by its own timestamp, compared with the seed rows', async () => {
    const created = await send('POST', '/articles', {
      data: {
        type: 'articles',
        attributes: { title: 'Newest', body: 'b', status: 'published' },
        relationships: { author: { data: { type: 'people', id: '1' } } },
      },
    });
    const { data } = (await created.json()) as { data: { id: string; attributes: { createdAt: string } } };
    const at = encodeURIComponent(data.attributes.createdAt);
    const same = await api.fetch(new Request(`http://localhost/articles?filter[createdAt]=${at}`));
    expect(((await same.json()) as { data: Array<{ id: string }> }).data.map((a) => a.id)).toEqual([data.id]);
    const newest = await api.fetch(new Request('http://localhost/articles?sort=-createdAt&page[limit]=1'));
    expect(((await newest.json()) as { data: Array<{ id: string }> }).data[0]!.id).toBe(data.id);
  });
});
