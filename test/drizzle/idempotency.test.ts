/**
 * Idempotency keys in the demo's `jsonapi_idempotency_keys` table through Drizzle, on SQLite
 * and PostgreSQL: a key claimed in one connection is in flight from another (a second process),
 * another request under the key is a mismatch, the stored response is replayed from either, a
 * released key is claimed anew, a lease is taken over only when nothing was written, and the
 * mark commits (or rolls back) with the request's write. On SQLite a key statement waits for an
 * open request transaction rather than landing inside it.
 */
import { eq } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { Context, type IdempotencyClaim, type IdempotencyStore, type StoredResponse } from 'jsonapi-gen';
import { markHeldKey } from 'jsonapi-gen/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleIdempotency } from '../../integrations/drizzle/idempotency.js';
import { withDrizzleTransaction } from '../../integrations/drizzle/transaction.js';
import { createRow } from '../../integrations/drizzle/writes.js';
import { type DemoDatabase, demoDatabase, tagsTable } from './writes-databases.js';

const response: StoredResponse = { status: 201, headers: { 'content-type': 'application/vnd.api+json' }, body: '{}' };

describe.each(['sqlite', 'postgres', 'mysql'] as const)('Drizzle idempotency keys on %s', (dialect) => {
  let d: DemoDatabase;
  let store: IdempotencyStore;
  const rowOf = async (key: string) => {
    const { idempotencyKeys } = d.tables;
    const q = d.db as unknown as BetterSQLite3Database;
    return (await q.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key)))[0];
  };
  beforeAll(async () => {
    d = await demoDatabase(dialect, 1);
    store = drizzleIdempotency(d.db, d.tables.idempotencyKeys);
  });
  afterAll(() => d.close());

  it('claims a key once: in flight from another connection, a mismatch for another request, then the response replayed from either', async () => {
    const elsewhere = drizzleIdempotency(d.open(), d.tables.idempotencyKeys);
    const claim = await store.claim('k1', 'f1');
    expect(claim).toEqual({ state: 'new' });
    expect(await elsewhere.claim('k1', 'f1')).toEqual({ state: 'in-flight' });
    expect(await store.claim('k1', 'other')).toEqual({ state: 'mismatch' });
    await store.complete('k1', response, claim);
    expect(await elsewhere.claim('k1', 'f1')).toEqual({ state: 'done', response });
    expect(await store.claim('k1', 'f1')).toEqual({ state: 'done', response });
  });

  it('forgets a released key, so that a retry runs', async () => {
    const claim = await store.claim('k2', 'f');
    await store.release('k2', claim);
    expect(await rowOf('k2')).toBeUndefined();
    expect((await store.claim('k2', 'f')).state).toBe('new');
  });

  it('lets a retry take over a lease that ran out with nothing written, and the old holder fails at its mark', async () => {
    const short = drizzleIdempotency(d.db, d.tables.idempotencyKeys, { leaseSeconds: 0.05 });
    const first = await short.claim('k3', 'f');
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = await short.claim('k3', 'f');
    expect(second.state).toBe('new');
    const held = (claim: IdempotencyClaim) => ({ store: short, key: 'k3', claim });
    await expect(withDrizzleTransaction(d.db, (tx) => markHeldKey(d.db, held(first), tx))).rejects.toMatchObject({
      status: 409,
    });
    await withDrizzleTransaction(d.db, (tx) => markHeldKey(d.db, held(second), tx));
    expect(await rowOf('k3')).toMatchObject({ written: 1 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    // Written: no longer taken over, however old.
    expect(await short.claim('k3', 'f')).toEqual({ state: 'in-flight' });
    // Released only while nothing was written.
    await short.release('k3', second);
    expect(await rowOf('k3')).toBeDefined();
  });

  it('rolls the mark back with a write that failed', async () => {
    const claim = await store.claim('k4', 'f');
    const held = { store, key: 'k4', claim };
    const ctx = new Context(new Request('http://localhost/tags', { method: 'POST' }));
    const failed = withDrizzleTransaction(
      d.db,
      async (tx) => {
        await markHeldKey(d.db, held, tx);
        await createRow(d.db, tagsTable(d.tables), { attributes: { name: 'databases' }, relationships: {} }, ctx);
      },
      { context: ctx },
    );
    await expect(failed).rejects.toMatchObject({ status: 409, code: 'unique_violation' });
    expect(await rowOf('k4')).toMatchObject({ written: 0 });
  });

  it('claims a key while a request transaction is open, and keeps it when that transaction rolls back', async () => {
    let claimed: Promise<IdempotencyClaim> | undefined;
    await expect(
      withDrizzleTransaction(d.db, async () => {
        claimed = store.claim('k5', 'f');
        // Give the claim every chance to run before the rollback.
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await claimed).toEqual({ state: 'new' });
    expect(await rowOf('k5')).toMatchObject({ fingerprint: 'f', written: 0 });
  });
});
