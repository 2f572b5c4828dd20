/**
 * The statements of the benchmark's write route (d: a create with an author and two tags, in
 * bench/routes.ts): the demo on its Drizzle store runs the same statements as on its Kysely
 * store, one for one, counted through Drizzle's logger and Kysely's `log`; the first request
 * (which prepares its statements) and the next (which runs them prepared) alike. On SQLite:
 * begin, a savepoint of the group commit, one existence check of the author and both tags, the
 * article, its tag links, the outbox entry, release, commit. On PostgreSQL: begin, the
 * existence check, the article and its tag links in one statement (`with "new" as (insert ...
 * returning ...), "m0" as (insert into article_tags ...) select ... from "new"`), the outbox
 * entry, commit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../bench/routes.js';
import { type Demo, type DemoOptions, startDemo } from '../../examples/blog/server.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

const route = ROUTES.find((r) => r.name === 'd')!;

/** The demo on the Kysely store and on the Drizzle store over one database, each with the SQL it ran. */
interface Pair {
  kysely: Demo;
  drizzle: Demo;
  logs: { kysely: string[]; drizzle: string[] };
}

/** Starts both demos on the database `where` says (`db`: a SQLite file; `databaseUrl`: PostgreSQL). */
async function startPair(where: Pick<DemoOptions, 'db' | 'databaseUrl'>): Promise<Pair> {
  const logs = { drizzle: [] as string[], kysely: [] as string[] };
  const kysely = await startDemo({
    port: 0,
    seed: 20,
    ...where,
    log: (event) => {
      if (event.level === 'query') logs.kysely.push(event.query.sql);
    },
  });
  const drizzle = await startDemo({
    port: 0,
    seed: 20,
    ...where,
    store: 'drizzle',
    onDrizzleQuery: (query) => void logs.drizzle.push(query),
  });
  return { kysely, drizzle, logs };
}

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

/** The existence check's SQL differs in form (Kysely selects from no table), not in what it asks. */
const selectsAlike = (statements: string[]) => statements.map((s) => (s.startsWith('select') ? 'select' : s));

/** Route d twice on both demos of `pair`: the Kysely store runs `expected`, the Drizzle store the same. */
async function expectSameStatements(pair: Pair, expected: string[]) {
  for (let i = 0; i < 2; i++) {
    expect(await statementsOf(pair.kysely, pair.logs.kysely)).toEqual(expected);
    const actual = await statementsOf(pair.drizzle, pair.logs.drizzle);
    expect(selectsAlike(actual), pair.logs.drizzle.join('\n')).toEqual(selectsAlike(expected));
  }
}

describe('route d on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-drizzle-route-d-'));
  let pair: Pair | undefined;

  beforeAll(async () => {
    pair = await startPair({ db: join(dir, 'blog.sqlite'), databaseUrl: null });
  });

  afterAll(async () => {
    await pair?.drizzle.close();
    await pair?.kysely.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the Drizzle store runs the statements the Kysely store runs, in the same order', async () => {
    await expectSameStatements(pair!, [
      'begin immediate',
      'savepoint jsonapi_gen',
      'select (select',
      'insert into',
      'insert into',
      'insert into',
      'release jsonapi_gen',
      'commit',
    ]);
  });
});

describe('route d on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  let pair: Pair | undefined;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    pair = await startPair({ databaseUrl: database.url });
  }, 60_000);

  afterAll(async () => {
    await pair?.drizzle.close();
    await pair?.kysely.close();
    await database?.drop();
  });

  it('the Drizzle store runs the statements the Kysely store runs, the article and its tag links in one', async () => {
    await expectSameStatements(pair!, ['begin', 'select (select', 'with "new"', 'insert into', 'commit']);
  });
});
