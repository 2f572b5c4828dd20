/**
 * The MySQL comparison is fair only if the mysql2 baseline serves what the demo on MySQL
 * serves: as in `./pg-baseline.test.ts`, for every benchmarked route the same status, content
 * type and bytes (origins replaced, route d's timestamps masked). Each server gets its own
 * database, seeded alike, so route d creates the same id on both. On the MariaDB (or
 * MYSQL_URL's server) of test/support/mysql.ts, whose NEEDS_MYSQL names this file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { seed } from '../../examples/blog/seed.js';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { type TestDatabase, createMysqlDatabase } from '../../test/support/databases.js';
import { ROUTES, SEEDED_ARTICLES } from '../routes.js';
import { COMPARED_ROUTES, maskedAnswer } from './compare.js';
import { type MysqlBaseline, startMysqlBaseline } from './mysql-server.js';

const databases: TestDatabase[] = [];
let demo: Demo | undefined;
let baseline: MysqlBaseline | undefined;
const statements: string[] = [];

beforeAll(async () => {
  const demoDatabase = await createMysqlDatabase();
  const baselineDatabase = await createMysqlDatabase();
  databases.push(demoDatabase, baselineDatabase);
  const database = openDatabase({ databaseUrl: baselineDatabase.url });
  try {
    await migrate(database.db, 'mysql');
    await seed(database.db, SEEDED_ARTICLES);
  } finally {
    await database.close();
  }
  demo = await startDemo({ port: 0, seed: SEEDED_ARTICLES, databaseUrl: demoDatabase.url });
  baseline = await startMysqlBaseline({
    databaseUrl: baselineDatabase.url,
    onStatement: (sql) => statements.push(sql),
  });
}, 120_000);

afterAll(async () => {
  await demo?.close();
  await baseline?.close();
  for (const database of databases) await database.drop();
});

describe('the MySQL baseline serves the demo’s documents', () => {
  for (const route of COMPARED_ROUTES) {
    it(`route ${route.name}: ${route.method} ${route.path}`, async () => {
      const expected = await maskedAnswer(demo!.url, route);
      const actual = await maskedAnswer(baseline!.url, route);
      expect(expected.status).toBeLessThan(300);
      expect(actual).toEqual(expected);
    });
  }

  it('writes the seeded date-times as the demo does (the routes above mask them)', async () => {
    for (const path of ['/articles/1?include=author,comments.author', '/people?page[limit]=50']) {
      const expected = (await (await fetch(demo!.url + path)).text()).replaceAll(demo!.url, 'http://origin');
      const actual = (await (await fetch(baseline!.url + path)).text()).replaceAll(baseline!.url, 'http://origin');
      expect(actual).toContain('"createdAt":"2024-');
      expect(actual).toEqual(expected);
    }
  });

  it('answers a missing author or tag of a create with 404 and writes nothing', async () => {
    const body = (author: string, tag: string) =>
      JSON.stringify({
        data: {
          type: 'articles',
          attributes: { title: 'x' },
          relationships: {
            author: { data: { type: 'people', id: author } },
            tags: { data: [{ type: 'tags', id: tag }] },
          },
        },
      });
    const headers = { 'content-type': 'application/vnd.api+json' };
    for (const [author, tag, pointer] of [
      ['99999', '1', '/data/relationships/author'],
      ['1', '99999', '/data/relationships/tags'],
    ] as const) {
      const response = await fetch(`${baseline!.url}/articles`, { method: 'POST', headers, body: body(author, tag) });
      expect(response.status).toBe(404);
      expect((await response.json()).errors[0].source).toEqual({ pointer });
    }
    const response = await fetch(`${baseline!.url}/articles?page[limit]=1`);
    expect((await response.json()).meta.total).toBe(SEEDED_ARTICLES + 1); // the seed's and route d's one
  });

  it('writes the created article, its tag links and its outbox entry', async () => {
    const create = ROUTES.find((r) => r.name === 'd')!;
    const response = await fetch(baseline!.url + create.path, {
      method: 'POST',
      headers: create.headers,
      body: create.body,
    });
    expect(response.status).toBe(201);
    const created = (await response.json()).data as { id: string; attributes: { createdAt: string } };
    const read = await fetch(`${baseline!.url}/articles/${created.id}?include=tags`);
    const document = await read.json();
    expect(document.data.attributes).toEqual(created.attributes);
    expect(document.data.relationships.tags.data).toEqual([
      { type: 'tags', id: '1' },
      { type: 'tags', id: '2' },
    ]);
    const database = openDatabase({ databaseUrl: databases[1]!.url });
    try {
      const entries = await database.db
        .selectFrom('jsonapi_outbox')
        .select(['action', 'changed'])
        .where('resource_id', '=', created.id)
        .execute();
      expect(entries).toEqual([{ action: 'create', changed: '["author","body","status","tags","title"]' }]);
    } finally {
      await database.close();
    }
  });

  it('issues the statements a careful engineer would, independent of page size', async () => {
    const count = async (path: string, init?: RequestInit) => {
      statements.length = 0;
      await (await fetch(baseline!.url + path, init)).text();
      return statements.length;
    };
    for (const limit of [10, 20, 50]) {
      expect(await count(`/articles?page[limit]=${limit}`)).toBe(2);
      expect(await count(`/articles?include=author,tags&page[limit]=${limit}`)).toBe(4);
      expect(await count(`/articles?include=author,comments.author&page[limit]=${limit}`)).toBe(4);
    }
    expect(await count('/articles/1')).toBe(1);
    const create = ROUTES.find((r) => r.name === 'd')!;
    expect(await count(create.path, { method: 'POST', headers: create.headers, body: create.body })).toBe(6);
  });
});
