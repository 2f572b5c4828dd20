/**
 * `Idempotency-Key` on the blog demo over HTTP, on SQLite and PostgreSQL: a retried POST gets
 * the first response and writes nothing again, per user; the same key for another body is 422;
 * concurrent duplicates never create twice; Atomic Operations too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, WRITE_SEED, startDemoOn } from '../support/demo.js';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = `${JSONAPI};ext="https://jsonapi.org/ext/atomic"`;

describe.each(BACKENDS)('Idempotency-Key on the blog demo (%s)', (dialect) => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemoOn(dialect, WRITE_SEED);
  });
  afterAll(async () => demo?.close());

  const post = (path: string, body: unknown, key: string | undefined, user = '1', type = JSONAPI) =>
    fetch(`${demo.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': type,
        accept: type,
        authorization: `Bearer ${user}`,
        ...(key !== undefined && { 'idempotency-key': key }),
      },
      body: JSON.stringify(body),
    });
  const tag = (name: string) => ({ data: { type: 'tags', attributes: { name } } });
  const count = async (name: string) =>
    (
      (await (
        await fetch(`${demo.url}/tags?filter[name]=${encodeURIComponent(name)}`, { headers: { accept: JSONAPI } })
      ).json()) as { data: unknown[] }
    ).data.length;

  it('a retry gets the stored response, marked as replayed, and creates nothing more', async () => {
    const first = await post('/tags', tag('retried'), 'key-1');
    expect(first.status).toBe(201);
    const body = await first.text();
    const retry = await post('/tags', tag('retried'), 'key-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(await retry.text()).toBe(body);
    expect(await count('retried')).toBe(1);
  });

  it('the same key with another body is 422 at the header; another user has keys of their own', async () => {
    expect((await post('/tags', tag('first body'), 'key-2')).status).toBe(201);
    const reused = await post('/tags', tag('second body'), 'key-2');
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
      source: { header: 'Idempotency-Key' },
    });
    expect(await count('second body')).toBe(0);
    expect((await post('/tags', tag('second body'), 'key-2', '2')).status).toBe(201);
  });

  it('a client error is stored as it was; a bad key is 400', async () => {
    const refused = await post('/tags', tag(''), 'key-3');
    const again = await post('/tags', tag(''), 'key-3');
    expect(again.status).toBe(refused.status);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect((await post('/tags', tag('x'), 'spaces are not allowed')).status).toBe(400);
  });

  it('concurrent duplicates: one creates, the others replay it or are told it is in flight (409)', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('/tags', tag('concurrent'), 'key-4')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses).toContain(201);
    expect(await count('concurrent')).toBe(1);
    expect((await post('/tags', tag('concurrent'), 'key-4')).status).toBe(201);
  });

  it('POST /operations: a retried batch runs once', async () => {
    const batch = { 'atomic:operations': [{ op: 'add', data: { type: 'tags', attributes: { name: 'atomic once' } } }] };
    const first = await post('/operations', batch, 'key-5', '1', ATOMIC);
    expect(first.status).toBe(200);
    const retry = await post('/operations', batch, 'key-5', '1', ATOMIC);
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(await first.text());
    expect(await count('atomic once')).toBe(1);
  });
});
