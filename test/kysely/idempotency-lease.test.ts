/**
 * An Idempotency-Key claim is a lease: a claim whose request died before its write committed is
 * taken over by a retry once older than `leaseSeconds`, by one retry only; a claim whose write
 * committed never is; and a request that outlived its lease writes nothing. On SQLite and
 * PostgreSQL, through the blog demo's API on the Kysely store.
 */
import { type IdempotencyStore } from 'jsonapi-gen';
import { kyselyIdempotency, kyselyTransaction } from '@jsonapi-gen/kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenDatabase, migrate, openDatabase } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

const JSONAPI = 'application/vnd.api+json';
const createTag = (name: string, key: string) =>
  new Request('http://localhost/tags', {
    method: 'POST',
    headers: { 'content-type': JSONAPI, 'idempotency-key': key },
    body: JSON.stringify({ data: { type: 'tags', attributes: { name } } }),
  });

describe.each(['sqlite', 'postgres'] as const)('Idempotency-Key leases (%s)', (dialect) => {
  let database: OpenDatabase;
  let pg: TestDatabase | undefined;
  beforeAll(async () => {
    pg = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
    database = openDatabase({ databaseUrl: pg?.url });
    await migrate(database.db, dialect);
    await seed(database.db, 5);
  });
  afterAll(async () => {
    await database?.close();
    await pg?.drop();
  });

  /** The demo's API as one process serves it, with a store of its own on the same database. */
  const instance = (store: IdempotencyStore = kyselyIdempotency(database.db), gate?: Promise<void>) => {
    const transaction = kyselyTransaction(database.db);
    return createApi(createStore(database.db), {
      transaction: gate ? async (run, ctx) => gate.then(() => transaction(run, ctx)) : transaction,
      idempotency: { store },
      onError: () => {},
    });
  };
  const count = async (name: string) =>
    (await database.db.selectFrom('tags').where('name', '=', name).select('id').execute()).length;
  const claimOf = (key: string) =>
    sql<{ written: number }>`select * from jsonapi_idempotency_keys where key = ${`0::${key}`}`.execute(database.db);
  /** Ages every claim past the default lease (60 s), as if its process had died that long ago. */
  const backdate = () => sql`update jsonapi_idempotency_keys set created_at = created_at - 120000`.execute(database.db);
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it('a claim whose process stopped before writing: 409 within its lease, taken over after it; the old holder then writes nothing', async () => {
    let open!: () => void;
    const stalled = instance(undefined, new Promise<void>((resolve) => (open = resolve)));
    // Claims the key, then stalls before its transaction (as a process that died there would).
    const first = stalled.fetch(createTag('leased', 'lease-1'));
    await until(async () => (await claimOf('lease-1')).rows.length === 1);
    const retrier = instance();
    expect((await retrier.fetch(createTag('leased', 'lease-1'))).status).toBe(409);
    await backdate();
    const retry = await retrier.fetch(createTag('leased', 'lease-1'));
    expect(retry.status).toBe(201);
    expect(await count('leased')).toBe(1);
    // The first request wakes up past its lease: its claim is gone, so it writes nothing.
    open();
    const late = await first;
    expect(late.status).toBe(409);
    expect(((await late.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
      code: 'idempotency_key_in_flight',
    });
    expect(await count('leased')).toBe(1);
    const replay = await retrier.fetch(createTag('leased', 'lease-1'));
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await replay.text()).toBe(await retry.text());
  });

  it('two retries of an expired claim at once: exactly one takes it over', async () => {
    for (let i = 0; i < 8; i++) {
      const key = `0::race-${i}`;
      expect((await kyselyIdempotency(database.db).claim(key, 'fingerprint')).state).toBe('new');
      await backdate();
      const states = await Promise.all([
        kyselyIdempotency(database.db).claim(key, 'fingerprint'),
        kyselyIdempotency(database.db).claim(key, 'fingerprint'),
      ]);
      expect(states.map((s) => s.state).sort()).toEqual(['in-flight', 'new']);
    }
  });

  it('a claim whose write committed (its process died before storing the response) is never taken over', async () => {
    const store = kyselyIdempotency(database.db);
    store.complete = () => new Promise(() => {}); // the process dies after the commit
    void instance(store).fetch(createTag('committed', 'lease-2'));
    await until(async () => (await count('committed')) === 1);
    expect((await claimOf('lease-2')).rows[0]).toMatchObject({ written: 1 });
    await backdate();
    const retry = await instance().fetch(createTag('committed', 'lease-2'));
    expect(retry.status).toBe(409);
    // Told the key is taken, not that the tag exists: the retry did not run the write again.
    expect(((await retry.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
      code: 'idempotency_key_in_flight',
    });
    expect(await count('committed')).toBe(1);
  });

  it('leaseSeconds must be positive', () => {
    expect(() => kyselyIdempotency(database.db, { leaseSeconds: 0 })).toThrow(/leaseSeconds/);
  });
});
