/**
 * `postgresKysely(pool, { runner: 'direct' })`: outside transactions the Kysely store runs its
 * compiled statements on the `pg` Pool directly (a client checked out for the statement, which
 * goes named). The same requests answer exactly as through Kysely (a logged database on the
 * same data, on the default runner, which leaves everything to Kysely),
 * a failing statement keeps its connection, writes inside transactions still run on the
 * transaction's one connection, and a prepared `select *` outlives a schema change on this path too.
 */
import { kyselyTransaction, postgresKysely, dateTimeText } from '@jsonapi-gen/kysely';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { type MockInstance, afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, migrate } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';
import { READ_PATHS, read } from './read-paths.js';

const signedIn = { attributes: { user: '1' } };

let database: TestDatabase;
let pool: pg.Pool;
let loggedPool: pg.Pool;
let direct: Kysely<Database>;
let logged: Kysely<Database>;
const statements: string[] = [];

beforeAll(async () => {
  database = await createPostgresDatabase();
  const options = { connectionString: database.url, max: 2, options: '-c TimeZone=UTC', types: dateTimeText(pg.types) };
  pool = new pg.Pool(options);
  loggedPool = new pg.Pool(options);
  // The drop at the end ends idle connections: the pools replace them, nobody listens.
  for (const p of [pool, loggedPool]) p.on('error', () => undefined);
  direct = postgresKysely<Database>(pool, { runner: 'direct' });
  // The same database through Kysely all the way (the default runner), logged.
  logged = postgresKysely<Database>(loggedPool, {
    log: (event) => void (event.level === 'query' && statements.push(event.query.sql)),
  });
  await migrate(direct, 'postgres');
  await seed(direct, 30);
});

afterAll(async () => {
  await direct.destroy();
  await logged.destroy();
  await database.drop();
});

/** What the pool saw while `work` ran: its answer, the statements its clients ran (by name), the checkouts, and the store's statements Kysely's executor ran. */
async function onThePool<T>(
  work: () => Promise<T>,
  db = direct,
  on = pool,
): Promise<{ result: T; named: string[]; checkouts: number; throughKysely: number }> {
  const throughKysely = vi.spyOn(db, 'executeQuery');
  const clients = new Map<pg.PoolClient, MockInstance<(...args: unknown[]) => unknown>>();
  let checkouts = 0;
  const onAcquire = (client: pg.PoolClient) => {
    checkouts++;
    if (!clients.has(client))
      clients.set(client, vi.spyOn(client as unknown as { query: (...args: unknown[]) => unknown }, 'query'));
  };
  on.on('acquire', onAcquire);
  try {
    const result = await work();
    const named = [...clients.values()].flatMap((spy) =>
      spy.mock.calls.map(([config]) =>
        typeof config === 'object' && config !== null && 'name' in config ? String(config.name) : '(unnamed)',
      ),
    );
    return { result, named, checkouts, throughKysely: throughKysely.mock.calls.length };
  } finally {
    on.off('acquire', onAcquire);
    throughKysely.mockRestore();
    for (const spy of clients.values()) spy.mockRestore();
  }
}

describe('postgresKysely, direct runner: the store’s statements outside transactions run on the pool', () => {
  it('answers every kind of read exactly as Kysely does, each statement named, on a client of its own', async () => {
    const viaDirect = createApi(createStore(direct));
    const viaKysely = createApi(createStore(logged));
    for (const path of READ_PATHS) {
      statements.length = 0;
      const fromKysely = await read(viaKysely, path);
      expect(statements.length, path).toBeGreaterThan(0); // the reference did go through Kysely
      const { result: fromDirect, named, checkouts, throughKysely } = await onThePool(() => read(viaDirect, path));
      expect(fromDirect, path).toEqual(fromKysely);
      // None through Kysely's executor; one checkout per statement the logged twin ran, each named.
      expect(throughKysely, path).toBe(0);
      expect(checkouts, path).toBe(statements.length);
      expect(named.length, path).toBe(statements.length);
      expect(
        named.every((name) => name.startsWith('jg')),
        path,
      ).toBe(true);
    }
  });

  it('a value the column cannot hold is still the client’s 400, and its connection stays in the pool', async () => {
    const api = createApi(createStore(direct));
    let removed = 0;
    const onRemove = () => removed++;
    pool.on('remove', onRemove);
    try {
      for (let i = 0; i < 5; i++) {
        const { result, throughKysely } = await onThePool(() =>
          api.fetch(new Request('http://localhost/articles?filter[author]=abc'), signedIn),
        );
        expect(throughKysely).toBe(0);
        expect(result.status).toBe(400);
        expect((await result.json()).errors[0].code).toBe('invalid_filter_value');
      }
    } finally {
      pool.off('remove', onRemove);
    }
    expect(removed).toBe(0);
  });

  it('writes in a transaction run on the transaction’s one connection', async () => {
    const api = createApi(createStore(direct), { transaction: kyselyTransaction(direct) });
    const body = JSON.stringify({
      data: {
        type: 'articles',
        attributes: { title: 'Written on one connection', body: 'text' },
        relationships: { author: { data: { type: 'people', id: '1' } }, tags: { data: [{ type: 'tags', id: '1' }] } },
      },
    });
    const headers = { 'content-type': 'application/vnd.api+json', authorization: 'Bearer 1' };
    const { result, checkouts, named } = await onThePool(() =>
      api.fetch(new Request('http://localhost/articles', { method: 'POST', headers, body }), signedIn),
    );
    expect(result.status).toBe(201);
    expect(checkouts).toBe(1);
    expect(named.slice(0, 1).concat(named.slice(-1))).toEqual(['(unnamed)', '(unnamed)']); // begin, commit
    const { id } = (await result.json()).data;
    const shown = await api.fetch(new Request(`http://localhost/articles/${id}?include=tags`), signedIn);
    expect((await shown.json()).included.map((t: { id: string }) => t.id)).toEqual(['1']);
  });

  it('a prepared select * whose table changed is prepared anew under a new name, on the same connection', async () => {
    // One connection, so that the stale statement is met for certain.
    const single = new pg.Pool({
      connectionString: database.url,
      max: 1,
      options: '-c TimeZone=UTC',
      types: dateTimeText(pg.types),
    });
    single.on('error', () => undefined);
    const db = postgresKysely<Database>(single, { runner: 'direct' });
    try {
      const api = createApi(createStore(db));
      const get = () =>
        onThePool(async () => (await api.fetch(new Request('http://localhost/tags/1'), signedIn)).json(), db, single);
      const before = await get();
      expect(before.named).toHaveLength(1);
      await sql`alter table tags add column extra text`.execute(logged);
      try {
        const after = await get();
        expect(after.result).toEqual(before.result);
        // The stale name failed (0A000), and the statement ran again under a fresh one.
        expect(after.named).toHaveLength(2);
        expect(after.named[0]).toBe(before.named[0]);
        expect(after.named[1]).not.toBe(before.named[0]);
        expect((await get()).named).toEqual([after.named[1]]);
      } finally {
        await sql`alter table tags drop column extra`.execute(logged);
      }
    } finally {
      await db.destroy();
    }
  });

  it('on the default runner, nothing goes to the pool directly', async () => {
    const api = createApi(createStore(logged));
    statements.length = 0;
    const { throughKysely } = await onThePool(
      () => api.fetch(new Request('http://localhost/articles/1?include=author'), signedIn),
      logged,
      loggedPool,
    );
    expect(throughKysely).toBe(2);
    expect(statements).toHaveLength(2);
  });

  it('refuses a maxNames that is not a whole number', () => {
    expect(() => postgresKysely(pool, { maxNames: -1 })).toThrow(/maxNames must be a whole number/);
  });
});
