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
import { type Baseline, startBaseline } from './server.js';
import { COMPARED_ROUTES, FILTERED_ROUTES, maskedAnswer } from './compare.js';

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

describe('the baseline serves the demo’s documents', () => {
  for (const route of [...COMPARED_ROUTES, ...FILTERED_ROUTES]) {
    it(`route ${route.name}: ${route.method} ${route.path}`, async () => {
      const expected = await maskedAnswer(demo!.url, route);
      const actual = await maskedAnswer(baseline!.url, route);
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
