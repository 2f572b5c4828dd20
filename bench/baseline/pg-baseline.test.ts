/**
 * The PostgreSQL comparison is fair only if the node-postgres baseline serves what the demo on
 * PostgreSQL serves: as in `./baseline.test.ts`, for every benchmarked route the same status,
 * content type and bytes (origins replaced, route d's timestamps masked). Each server gets its
 * own database cloned from one seeded database, so route d creates the same id on both. Starts
 * its own throwaway cluster (this file is not under test/kysely, so the global setup skips it).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { seed } from '../../examples/blog/seed.js';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { type Cluster, startCluster } from '../../test/support/pg-cluster.js';
import { ROUTES } from '../routes.js';
import { type PgBaseline, startPgBaseline } from './pg-server.js';
import { COMPARED_ROUTES, maskedAnswer } from './compare.js';

let cluster: Cluster | undefined;
let demo: Demo | undefined;
let baseline: PgBaseline | undefined;
const statements: string[] = [];

/** Creates database `name` on the cluster, optionally as a copy of `template`; returns its URL. */
async function createDatabase(url: string, name: string, template?: string): Promise<string> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await client.end();
  }
  return url.replace(/\/postgres$/, `/${name}`);
}

beforeAll(async () => {
  cluster = await startCluster();
  const seeded = await createDatabase(cluster.url, 'seeded');
  const database = openDatabase({ databaseUrl: seeded });
  await migrate(database.db, 'postgres');
  await seed(database.db, 1000);
  await database.close();
  const demoUrl = await createDatabase(cluster.url, 'demo', 'seeded');
  const baselineUrl = await createDatabase(cluster.url, 'baseline', 'seeded');
  demo = await startDemo({ port: 0, seed: 1000, databaseUrl: demoUrl });
  baseline = await startPgBaseline({ databaseUrl: baselineUrl, onStatement: (sql) => statements.push(sql) });
}, 120_000);

afterAll(async () => {
  await demo?.close();
  await baseline?.close();
  cluster?.stop();
});

describe('the PostgreSQL baseline serves the demo’s documents', () => {
  for (const route of COMPARED_ROUTES) {
    it(`route ${route.name}: ${route.method} ${route.path}`, async () => {
      const expected = await maskedAnswer(demo!.url, route);
      const actual = await maskedAnswer(baseline!.url, route);
      expect(expected.status).toBeLessThan(300);
      expect(actual).toEqual(expected);
    });
  }

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
    expect((await response.json()).meta.total).toBe(1001); // the seed's 1000 and route d's one
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
