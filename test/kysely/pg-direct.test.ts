/**
 * `postgresKysely`: outside transactions the Kysely store runs its compiled statements on the
 * `pg` Pool directly (`pool.query` with the statement's name). The same requests answer exactly
 * as through Kysely (a logged database on the same data, which leaves everything to Kysely),
 * writes inside transactions still go through Kysely's transaction connection, and a prepared
 * `select *` outlives a schema change on this path too.
 */
import { kyselyTransaction, postgresKysely, dateTimeText } from '@jsonapi-gen/kysely';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
  direct = postgresKysely<Database>(pool);
  // The same database through Kysely all the way: its log makes the store leave every statement to Kysely.
  logged = postgresKysely<Database>(loggedPool, { log: (event) => void (event.level === 'query' && statements.push(event.query.sql)) });
  await migrate(direct, 'postgres');
  await seed(direct, 30);
});

afterAll(async () => {
  await direct.destroy();
  await logged.destroy();
  await database.drop();
});

/** Runs `work`, listing the names of the statements that went to `on`'s own `query`. */
async function onThePool<T>(work: () => Promise<T>, on = pool): Promise<{ result: T; named: string[] }> {
  const spy = vi.spyOn(on, 'query');
  try {
    const result = await work();
    const named = spy.mock.calls.map(([config]) => (config as unknown as { name?: string }).name ?? '(unnamed)');
    return { result, named };
  } finally {
    spy.mockRestore();
  }
}

describe('postgresKysely: the store’s statements outside transactions run on the pool', () => {
  it('answers every kind of read exactly as Kysely does, each of its statements named on the pool', async () => {
    const viaDirect = createApi(createStore(direct));
    const viaKysely = createApi(createStore(logged));
    for (const path of READ_PATHS) {
      statements.length = 0;
      const fromKysely = await read(viaKysely, path);
      expect(statements.length, path).toBeGreaterThan(0); // the reference did go through Kysely
      const { result: fromDirect, named } = await onThePool(() => read(viaDirect, path));
      expect(fromDirect, path).toEqual(fromKysely);
      // Every statement the logged twin ran went to the pool, and went named.
      expect(named.length, path).toBe(statements.length);
      expect(named.every((name) => name.startsWith('jg')), path).toBe(true);
    }
  });

  it('a value the column cannot hold is still the client’s 400 on this path', async () => {
    const api = createApi(createStore(direct));
    const { result, named } = await onThePool(() => api.fetch(new Request('http://localhost/articles?filter[author]=abc'), signedIn));
    expect(named.length).toBeGreaterThan(0);
    expect(result.status).toBe(400);
    expect((await result.json()).errors[0].code).toBe('invalid_filter_value');
  });

  it('writes in a transaction go through Kysely’s transaction connection, not the pool’s query', async () => {
    const api = createApi(createStore(direct), { transaction: kyselyTransaction(direct) });
    const body = JSON.stringify({
      data: {
        type: 'articles',
        attributes: { title: 'Written on one connection', body: 'text' },
        relationships: { author: { data: { type: 'people', id: '1' } }, tags: { data: [{ type: 'tags', id: '1' }] } },
      },
    });
    const headers = { 'content-type': 'application/vnd.api+json', authorization: 'Bearer 1' };
    const { result, named } = await onThePool(() => api.fetch(new Request('http://localhost/articles', { method: 'POST', headers, body }), signedIn));
    expect(result.status).toBe(201);
    expect(named).toEqual([]);
    const { id } = (await result.json()).data;
    const read = await api.fetch(new Request(`http://localhost/articles/${id}?include=tags`), signedIn);
    expect((await read.json()).included.map((t: { id: string }) => t.id)).toEqual(['1']);
  });

  it('a prepared select * sees a column added later, and the read still answers', async () => {
    const api = createApi(createStore(direct));
    const read = async () => (await api.fetch(new Request('http://localhost/tags/1'), signedIn)).json();
    const before = await read();
    await sql`alter table tags add column extra text`.execute(logged);
    try {
      expect(await read()).toEqual(before);
      expect(await read()).toEqual(before);
    } finally {
      await sql`alter table tags drop column extra`.execute(logged);
    }
  });

  it('with log or plugins, nothing goes to the pool directly', async () => {
    const api = createApi(createStore(logged));
    statements.length = 0;
    const { named } = await onThePool(() => api.fetch(new Request('http://localhost/articles/1?include=author'), signedIn), loggedPool);
    expect(named).toEqual([]);
    expect(statements).toHaveLength(2);
  });

  it('refuses a maxNames that is not a whole number', () => {
    expect(() => postgresKysely(pool, { maxNames: -1 })).toThrow(/maxNames must be a whole number/);
  });
});
