/**
 * Statements per request of the demo on PostgreSQL, on every benchmarked route (bench/routes.ts),
 * counted through Kysely's `log` and pinned: a change that adds a round trip fails here, not
 * only in the timed bench. The hand-written node-postgres baseline (bench/baseline/pg-server.ts)
 * needs a, b 2 and 4, c 1, d 5, e 1, f 4, g 2 (the page and its count, the group and the count filter in each).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { ROUTES } from '../../bench/routes.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

let database: TestDatabase;
let demo: Demo;
const statements: string[] = [];

beforeAll(async () => {
  database = await createPostgresDatabase();
  demo = await startDemo({
    port: 0,
    seed: 100,
    databaseUrl: database.url,
    log: (event) => {
      if (event.level === 'query') statements.push(event.query.sql);
    },
  });
}, 60_000);

afterAll(async () => {
  await demo?.close();
  await database?.drop();
});

/**
 * What the demo sends today, as many as the baseline or fewer; route d: begin, one check of the
 * author and both tags, the article and its tag links in one statement (`with "new" as (insert
 * ... returning *), "m0" as (insert into article_tags ...) select * from "new"`), the outbox
 * entry, commit: the baseline's 6 less one.
 */
const PINNED: Record<string, number> = { a: 2, b: 4, c: 1, d: 5, e: 1, f: 4, g: 2 };

describe('statements per request on PostgreSQL', () => {
  for (const route of ROUTES) {
    it(`route ${route.name}: ${route.method} ${route.path} sends ${PINNED[route.name]}`, async () => {
      statements.length = 0;
      const response = await fetch(demo.url + route.path, {
        method: route.method,
        headers: route.headers,
        body: route.body,
      });
      await response.arrayBuffer();
      expect(response.status).toBeLessThan(300);
      expect(statements.length, statements.join('\n')).toBe(PINNED[route.name]);
    });
  }
});
