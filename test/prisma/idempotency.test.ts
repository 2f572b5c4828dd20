/**
 * Idempotency keys on the demo's IdempotencyKey model through Prisma, on SQLite and
 * PostgreSQL: a claim, the same request again while it runs (in flight), another request
 * under the key (mismatch), the stored response replayed, a released key claimed anew, a
 * lease taken over only when nothing was written, and the mark committed with the write.
 */
import { type IdempotencyClaim, type IdempotencyStore, type StoredResponse } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markWritten, prismaIdempotency } from '../../integrations/prisma/idempotency.js';
import { type DemoDatabase, demoDatabase } from './writes-databases.js';

const response: StoredResponse = { status: 201, headers: { 'content-type': 'application/vnd.api+json' }, body: '{}' };

describe.each(['sqlite', 'postgres'] as const)('Prisma idempotency keys on %s', (dialect) => {
  let d: DemoDatabase;
  let store: IdempotencyStore;
  beforeAll(async () => {
    d = await demoDatabase(dialect, 1);
    store = prismaIdempotency(d.prisma);
  });
  afterAll(() => d.close());

  it('claims a key once, answers in flight and mismatch, then replays the stored response', async () => {
    const claim = await store.claim('k1', 'f1');
    expect(claim).toEqual({ state: 'new' });
    expect(await prismaIdempotency(d.open()).claim('k1', 'f1')).toEqual({ state: 'in-flight' });
    expect(await store.claim('k1', 'other')).toEqual({ state: 'mismatch' });
    await store.complete('k1', response, claim);
    expect(await store.claim('k1', 'f1')).toEqual({ state: 'done', response });
  });

  it('forgets a released key, so that a retry runs', async () => {
    const claim = await store.claim('k2', 'f');
    await store.release('k2', claim);
    expect(await d.prisma.idempotencyKey.count({ where: { key: 'k2' } })).toBe(0);
    expect((await store.claim('k2', 'f')).state).toBe('new');
  });

  it('lets a retry take over a lease that ran out with nothing written, and the old holder fails at its mark', async () => {
    const short = prismaIdempotency(d.prisma, { leaseSeconds: 0.05 });
    const first = await short.claim('k3', 'f');
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = await short.claim('k3', 'f');
    expect(second.state).toBe('new');
    const held = (claim: IdempotencyClaim) => ({ store: short, key: 'k3', claim });
    await expect(d.prisma.$transaction((tx) => markWritten(d.prisma, held(first), tx))).rejects.toMatchObject({
      status: 409,
    });
    await d.prisma.$transaction((tx) => markWritten(d.prisma, held(second), tx));
    expect(await d.prisma.idempotencyKey.findUnique({ where: { key: 'k3' } })).toMatchObject({ written: 1 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    // Written: no longer taken over, however old.
    expect(await short.claim('k3', 'f')).toEqual({ state: 'in-flight' });
    // Released only while nothing was written.
    await short.release('k3', second);
    expect(await d.prisma.idempotencyKey.count({ where: { key: 'k3' } })).toBe(1);
  });

  it('rolls the mark back with a write that failed', async () => {
    const claim = await store.claim('k4', 'f');
    const held = { store, key: 'k4', claim };
    await expect(
      d.prisma.$transaction(async (tx) => {
        await markWritten(d.prisma, held, tx);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await d.prisma.idempotencyKey.findUnique({ where: { key: 'k4' } })).toMatchObject({ written: 0 });
  });
});
