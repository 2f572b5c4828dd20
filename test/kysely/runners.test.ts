/**
 * The store's two runners, chosen where the Kysely is made: `'kysely'` (the default) runs the
 * store's compiled statements through Kysely's executor, `'direct'` on the driver, never
 * falling back to Kysely unasked; a direct runner with Kysely's `log` or plugins is refused.
 * The suites on the harness (`STORES`) run on both; this checks which path each one took.
 */
import SQLite from 'better-sqlite3';
import { postgresKysely, sqliteKysely } from '@jsonapi-gen/kysely';
import type { Kysely, KyselyPlugin } from 'kysely';
import pg from 'pg';
import { type MockInstance, afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Fixture, STORES, openFixture } from './harness.js';

/** Spies on the `executeQuery` every Kysely executor (of `db`, its transactions, its connections) shares: every statement Kysely runs. */
function throughKysely(db: Kysely<any>): MockInstance<(query: { sql: string }) => unknown> {
  let owner: object = db.getExecutor();
  while (!Object.hasOwn(owner, 'executeQuery')) owner = Object.getPrototypeOf(owner) as object;
  return vi.spyOn(owner as { executeQuery: (query: { sql: string }) => unknown }, 'executeQuery');
}

describe.each(STORES)('the store’s statements on %s, %s runner', (dialect, runner) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await openFixture(dialect, 10, runner);
  });
  afterAll(async () => {
    await f.close();
  });

  it(
    runner === 'direct'
      ? 'reads outside transactions run on the driver, none through Kysely'
      : 'reads run through Kysely’s executor',
    async () => {
      const path = '/articles/1?include=author,tags';
      const first = await f.request('GET', path, '1'); // compiles the shapes
      const kysely = throughKysely(f.database.db);
      try {
        f.statements.length = 0;
        expect(await f.request('GET', path, '1')).toEqual(first);
        expect(first.status).toBe(200);
        expect(f.statements).toHaveLength(3); // the article, its author, its tags
        expect(kysely.mock.calls.map(([query]) => query.sql)).toHaveLength(runner === 'direct' ? 0 : 3);
      } finally {
        kysely.mockRestore();
      }
    },
  );

  it.runIf(dialect === 'sqlite')(
    'a write request’s transaction control goes to the driver only on the direct runner',
    async () => {
      const kysely = throughKysely(f.database.db);
      try {
        f.statements.length = 0;
        const created = await f.request('POST', '/articles', '1', {
          data: {
            type: 'articles',
            attributes: { title: 'Runner' },
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        });
        expect(created.status).toBe(201);
        const control = ['begin immediate', 'savepoint jsonapi_gen', 'release jsonapi_gen', 'commit'];
        expect(f.statements.filter((sql) => control.includes(sql))).toEqual(control);
        const viaKysely = kysely.mock.calls.map(([query]) => query.sql).filter((sql) => control.includes(sql));
        expect(viaKysely).toEqual(runner === 'direct' ? [] : control);
      } finally {
        kysely.mockRestore();
      }
    },
  );
});

describe('choosing a runner', () => {
  const plugin: KyselyPlugin = { transformQuery: (args) => args.node, transformResult: async (args) => args.result };
  let pool: pg.Pool;
  beforeAll(() => {
    // Never connected: making a Kysely does not connect.
    pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
  });
  afterAll(async () => {
    await pool.end();
  });

  it('refuses the direct runner with log or plugins, which it would bypass', () => {
    const refused =
      /runner 'direct' runs the store's statements without Kysely, so its log and plugins would miss them/;
    expect(() => sqliteKysely(new SQLite(':memory:'), { runner: 'direct', log: ['query'] })).toThrow(refused);
    expect(() => sqliteKysely(new SQLite(':memory:'), { runner: 'direct', plugins: [plugin] })).toThrow(refused);
    expect(() => postgresKysely(pool, { runner: 'direct', log: () => undefined })).toThrow(
      /^postgresKysely: runner 'direct'/,
    );
    expect(() => postgresKysely(pool, { runner: 'direct', plugins: [plugin] })).toThrow(refused);
  });

  it('takes log and plugins on the default runner, and no plugins on the direct one', async () => {
    for (const db of [
      sqliteKysely(new SQLite(':memory:'), { log: ['query'], plugins: [plugin] }),
      sqliteKysely(new SQLite(':memory:'), { runner: 'direct', plugins: [] }),
    ]) {
      await db.destroy();
    }
    expect(() => postgresKysely(pool, { runner: 'kysely', log: () => undefined })).not.toThrow();
  });

  it('names the runners it knows when given another', () => {
    expect(() => sqliteKysely(new SQLite(':memory:'), { runner: 'fast' as 'direct' })).toThrow(
      /sqliteKysely: runner must be 'kysely' or 'direct', got "fast"/,
    );
  });
});
