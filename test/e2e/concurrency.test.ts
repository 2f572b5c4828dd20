/**
 * Optimistic concurrency on the blog demo (articles are versioned: `version` in the store's
 * mapping), on SQLite and PostgreSQL over HTTP: reads carry the version in their ETag, writes
 * honour If-Match atomically in the database, per operation in Atomic Operations too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, WRITE_SEED, authorOf, startDemoOn } from '../support/demo.js';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = `${JSONAPI};ext="https://jsonapi.org/ext/atomic"`;

describe.each(BACKENDS)('If-Match on the blog demo (%s)', (dialect) => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemoOn(dialect, WRITE_SEED);
  });
  afterAll(async () => demo?.close());

  const send = (
    path: string,
    init: { method?: string; user?: string; ifMatch?: string; body?: unknown; type?: string } = {},
  ) =>
    fetch(`${demo.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        accept: init.type ?? JSONAPI,
        ...(init.body !== undefined && { 'content-type': init.type ?? JSONAPI }),
        ...(init.user !== undefined && { authorization: `Bearer ${init.user}` }),
        ...(init.ifMatch !== undefined && { 'if-match': init.ifMatch }),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  const tagOf = async (path: string) => {
    const response = await send(path);
    expect(response.status).toBe(200);
    return response.headers.get('etag')!;
  };
  const title = async (id: number) =>
    ((await (await send(`/articles/${id}`)).json()) as { data: { attributes: { title: string } } }).data.attributes
      .title;
  const patch = (id: number, ifMatch: string | undefined, newTitle: string) =>
    send(`/articles/${id}`, {
      method: 'PATCH',
      user: authorOf(id),
      ...(ifMatch !== undefined && { ifMatch }),
      body: { data: { type: 'articles', id: String(id), attributes: { title: newTitle } } },
    });

  it('a read names the version; a PATCH with it succeeds and answers the next tag, the one a GET then gives', async () => {
    const tag = await tagOf('/articles/1');
    expect(tag).toMatch(/^"1~[^"]+"$/);
    const response = await patch(1, tag, 'First, again');
    expect(response.status).toBe(200);
    const next = response.headers.get('etag')!;
    expect(next).toMatch(/^"2~/);
    expect(await tagOf('/articles/1')).toBe(next);
  });

  it('a stale If-Match is 412 at the header and changes nothing; a weak or foreign tag never matches', async () => {
    const before = await title(2);
    const tag = await tagOf('/articles/2');
    expect((await patch(2, tag, 'moved on')).status).toBe(200);
    for (const stale of [tag, `W/${await tagOf('/articles/2')}`, '"nonsense"']) {
      const response = await patch(2, stale, 'lost update');
      expect(response.status, stale).toBe(412);
      const { errors } = (await response.json()) as { errors: Array<{ status: string; source: unknown }> };
      expect(errors[0]).toMatchObject({ status: '412', source: { header: 'If-Match' } });
    }
    expect(await title(2)).not.toBe(before);
    expect(await title(2)).toBe('moved on');
    expect((await patch(2, '*', 'any version')).status).toBe(200);
  });

  it('of 8 concurrent PATCHes with the same tag exactly one succeeds, and its title is stored', async () => {
    const tag = await tagOf('/articles/3');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => patch(3, tag, `writer ${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(7);
    expect(await title(3)).toBe(`writer ${statuses.indexOf(200)}`);
  });

  it('DELETE and relationship writes honour it too, and a to-many change moves the version on', async () => {
    const tag = await tagOf('/articles/4');
    const linkage = { data: [{ type: 'tags', id: '1' }] };
    const added = await send('/articles/4/relationships/tags', {
      method: 'POST',
      user: authorOf(4),
      ifMatch: tag,
      body: linkage,
    });
    expect(added.status).toBe(204);
    const stale = await send('/articles/4/relationships/tags', {
      method: 'DELETE',
      user: authorOf(4),
      ifMatch: tag,
      body: linkage,
    });
    expect(stale.status).toBe(412);
    expect((await send('/articles/4', { method: 'DELETE', user: authorOf(4), ifMatch: tag })).status).toBe(412);
    expect((await send('/articles/4')).status).toBe(200);
    expect(
      (await send('/articles/4', { method: 'DELETE', user: authorOf(4), ifMatch: await tagOf('/articles/4') })).status,
    ).toBe(204);
  });

  it('Atomic Operations: meta.ifMatch per operation; a stale one fails the whole request', async () => {
    const tag = await tagOf('/articles/5');
    const operations = (ifMatch: string, newTitle: string) => ({
      'atomic:operations': [
        { op: 'add', data: { type: 'tags', attributes: { name: `atomic-${newTitle}` } } },
        { op: 'update', data: { type: 'articles', id: '5', attributes: { title: newTitle } }, meta: { ifMatch } },
      ],
    });
    const stale = await send('/operations', {
      method: 'POST',
      user: authorOf(5),
      type: ATOMIC,
      body: operations('"0~x"', 'stale'),
    });
    expect(stale.status).toBe(412);
    const { errors } = (await stale.json()) as { errors: Array<{ source: Record<string, string> }> };
    expect(JSON.stringify(errors[0]!.source)).toContain('/atomic:operations/1');
    expect((await send('/tags?filter[name]=atomic-stale')).ok).toBe(true);
    expect(((await (await send('/tags?filter[name]=atomic-stale')).json()) as { data: unknown[] }).data).toEqual([]);
    const fresh = await send('/operations', {
      method: 'POST',
      user: authorOf(5),
      type: ATOMIC,
      body: operations(tag, 'fresh'),
    });
    expect(fresh.status).toBe(200);
    expect(await title(5)).toBe('fresh');
  });

  it('a resource without versions takes only If-Match: *', async () => {
    const tag = await tagOf('/tags/2');
    const body = (name: string) => ({ data: { type: 'tags', id: '2', attributes: { name } } });
    expect((await send('/tags/2', { method: 'PATCH', ifMatch: tag, body: body('renamed') })).status).toBe(412);
    expect((await send('/tags/2', { method: 'PATCH', ifMatch: '*', body: body('renamed') })).status).toBe(200);
  });
});
