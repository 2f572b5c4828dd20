/**
 * The comparison is fair only if the baseline serves what the demo serves: for every
 * benchmarked route, the same status, content type and bytes (links compared after replacing
 * each server's origin; route d's server-set timestamps masked). Each server gets its own copy
 * of one seeded file, so route d creates the same id on both.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { seed } from '../../examples/blog/seed.js';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { ROUTES, routeB } from '../routes.js';
import { type Baseline, startBaseline } from './server.js';

let dir: string;
let demo: Demo | undefined;
let baseline: Baseline | undefined;
const statements: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-baseline-'));
  const file = join(dir, 'demo.sqlite');
  const database = openDatabase({ file });
  await migrate(database.db, 'sqlite');
  await seed(database.db, 1000);
  await database.close();
  copyFileSync(file, join(dir, 'baseline.sqlite'));
  demo = await startDemo({ port: 0, db: file, seed: 1000, databaseUrl: null });
  baseline = await startBaseline({ db: join(dir, 'baseline.sqlite'), onStatement: (sql) => statements.push(sql) });
});

afterAll(async () => {
  await demo?.close();
  await baseline?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get(url: string, route: { method: string; path: string; headers?: Record<string, string>; body?: string }) {
  const response = await fetch(url + route.path, { method: route.method, headers: route.headers, body: route.body });
  const text = (await response.text()).replaceAll(url, 'http://origin').replace(/"(createdAt|updatedAt)":"[^"]*"/g, '"$1":"<now>"');
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    vary: response.headers.get('vary'),
    location: response.headers.get('location')?.replace(url, 'http://origin') ?? null,
    text,
  };
}

describe('the baseline serves the demo’s documents', () => {
  const routes = [...ROUTES, routeB(10), routeB(50), { name: 'b-offset', method: 'GET', path: '/articles?include=author,tags&page[limit]=10&page[offset]=990' }, { name: 'c-include', method: 'GET', path: '/articles/7?include=author,tags,comments.author' }];
  for (const route of routes) {
    it(`route ${route.name}: ${route.method} ${route.path}`, async () => {
      const expected = await get(demo!.url, route);
      const actual = await get(baseline!.url, route);
      expect(expected.status).toBeLessThan(300);
      expect(actual).toEqual(expected); // byte-identical bodies once origins (and route d's clock) are masked
      expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
    });
  }

  it('issues fewer or as many statements as the demo, independent of page size', async () => {
    const count = async (path: string) => {
      statements.length = 0;
      await fetch(baseline!.url + path);
      return statements.length;
    };
    for (const limit of [10, 20, 50]) {
      expect(await count(`/articles?page[limit]=${limit}`)).toBe(2);
      expect(await count(`/articles?include=author,tags&page[limit]=${limit}`)).toBe(4);
      expect(await count(`/articles?include=author,comments.author&page[limit]=${limit}`)).toBe(4);
    }
    expect(await count('/articles/1')).toBe(1);
  });
});
