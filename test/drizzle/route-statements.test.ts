/**
 * The statements of the benchmark's write route (d: a create with an author and two tags, in
 * bench/routes.ts) on SQLite: the demo on its Drizzle store runs the same statements as on its
 * Kysely store, one for one (begin, a savepoint of the group commit, one existence check of
 * the author and both tags, the article, its tag links, the outbox entry, release, commit),
 * counted through Drizzle's logger and Kysely's `log`; the first request (which prepares its
 * statements) and the next (which runs them prepared) alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../bench/routes.js';
import { type Demo, startDemo } from '../../examples/blog/server.js';

const route = ROUTES.find((r) => r.name === 'd')!;
const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-drizzle-route-d-'));
const logs = { drizzle: [] as string[], kysely: [] as string[] };
let drizzle: Demo;
let kysely: Demo;

beforeAll(async () => {
  const db = join(dir, 'blog.sqlite');
  kysely = await startDemo({
    port: 0,
    seed: 20,
    db,
    databaseUrl: null,
    log: (event) => {
      if (event.level === 'query') logs.kysely.push(event.query.sql);
    },
  });
  drizzle = await startDemo({
    port: 0,
    seed: 20,
    db,
    databaseUrl: null,
    store: 'drizzle',
    onDrizzleQuery: (query) => void logs.drizzle.push(query),
  });
});

afterAll(async () => {
  await drizzle?.close();
  await kysely?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The statements `demo` ran for route d, by their first two words (`insert into`, `savepoint jsonapi_gen`, ...). */
async function statementsOf(demo: Demo, log: string[]): Promise<string[]> {
  log.length = 0;
  const response = await fetch(demo.url + route.path, {
    method: route.method,
    headers: route.headers,
    body: route.body,
  });
  expect(response.status, await response.text()).toBe(201);
  return log.map((statement) => statement.split(/\s+/).slice(0, 2).join(' ').toLowerCase());
}

describe('route d on SQLite', () => {
  it('the Drizzle store runs the statements the Kysely store runs, in the same order', async () => {
    for (let i = 0; i < 2; i++) {
      const expected = await statementsOf(kysely, logs.kysely);
      expect(expected).toEqual([
        'begin immediate',
        'savepoint jsonapi_gen',
        'select (select',
        'insert into',
        'insert into',
        'insert into',
        'release jsonapi_gen',
        'commit',
      ]);
      const actual = await statementsOf(drizzle, logs.drizzle);
      expect(actual.length, logs.drizzle.join('\n')).toBe(expected.length);
      // The existence check's SQL differs in form (Kysely selects from no table), not in what it asks.
      expect(actual.map((s) => (s.startsWith('select') ? 'select' : s))).toEqual(
        expected.map((s) => (s.startsWith('select') ? 'select' : s)),
      );
    }
  });
});
