/**
 * Conditional GET: every successful read carries an ETag of its bytes and `Cache-Control`;
 * `If-None-Match` naming the tag answers 304 with no body and the same caching headers.
 */
import { Attribute, Delete, JsonApi, Show, Update, defineResource, type WriteValues } from 'jsonapi-gen';
import { describe, expect, it } from 'vitest';
import { createBlog } from '../support/memory-host.js';
import { request } from '../support/request.js';

const READS = [
  '/articles/1',
  '/articles?include=author',
  '/articles/1/author',
  '/articles/1/relationships/tags',
  '/tags',
];

describe('ETag on every successful read', () => {
  it.each(READS)(
    '%s: a strong tag, the same in another process over the same data, and private, no-cache',
    async (path) => {
      const first = await createBlog().api.fetch(request(path));
      const second = await createBlog().api.fetch(request(path));
      expect(first.status).toBe(200);
      const tag = first.headers.get('etag');
      expect(tag).toMatch(/^"[^"]+"$/);
      expect(second.headers.get('etag')).toBe(tag);
      expect(first.headers.get('cache-control')).toBe('private, no-cache');
    },
  );

  it.each(READS)(
    '%s: If-None-Match with the tag is 304 with no body and the same ETag, Vary and Cache-Control',
    async (path) => {
      const { api } = createBlog();
      const tag = (await api.fetch(request(path))).headers.get('etag')!;
      for (const header of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const response = await api.fetch(request(path, { headers: { 'if-none-match': header } }));
        expect(response.status, header).toBe(304);
        expect(await response.text()).toBe('');
        expect(response.headers.get('etag')).toBe(tag);
        expect(response.headers.get('vary')).toBe('Accept');
        expect(response.headers.get('cache-control')).toBe('private, no-cache');
        expect(response.headers.get('content-type')).toBeNull();
      }
      const stale = await api.fetch(request(path, { headers: { 'if-none-match': '"stale"' } }));
      expect(stale.status).toBe(200);
      expect(stale.headers.get('etag')).toBe(tag);
    },
  );

  it('changes when an included resource changes, not only the primary one', async () => {
    const { api, db } = createBlog();
    const path = '/articles/1?include=author';
    const before = (await api.fetch(request(path))).headers.get('etag')!;
    const authorId = db.articles.find((a) => a.id === '1')!.authorId;
    db.people.find((p) => p.id === authorId)!.name = 'Renamed';
    const after = await api.fetch(request(path, { headers: { 'if-none-match': before } }));
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before);
  });

  it('HEAD carries the ETag; errors and writes carry none', async () => {
    const { api } = createBlog();
    const head = await api.fetch(request('/articles/1', { method: 'HEAD' }));
    expect(head.headers.get('etag')).toBe((await api.fetch(request('/articles/1'))).headers.get('etag'));
    const missing = await api.fetch(request('/articles/999'));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
    const removed = await api.fetch(request('/articles/2', { method: 'DELETE' }));
    expect(removed.headers.get('etag')).toBeNull();
  });

  it('the host sets Cache-Control per resource type', async () => {
    const { api } = createBlog({
      cacheControl: (type) => (type === 'tags' ? 'public, max-age=60' : 'private, no-cache'),
    });
    expect((await api.fetch(request('/tags'))).headers.get('cache-control')).toBe('public, max-age=60');
    expect((await api.fetch(request('/articles'))).headers.get('cache-control')).toBe('private, no-cache');
  });
});

describe('If-Match required by the schema', () => {
  const notes = defineResource({
    type: 'notes',
    fields: [Attribute.make('text').type('string').writable()],
    endpoints: [Show.make(), Update.make().requireIfMatch(), Delete.make().requireIfMatch()],
  });
  const layer = () => {
    const note = { id: '1', text: 'a', version: 1 };
    return {
      find: (id: string) => (id === '1' ? note : null),
      update: (model: typeof note, values: WriteValues) =>
        Object.assign(model, values.attributes, { version: model.version + 1 }),
      delete: () => {},
      versionOf: (model: typeof note) => String(model.version),
    };
  };
  const patch = (headers: Record<string, string> = {}) =>
    request('/notes/1', {
      method: 'PATCH',
      headers: { 'content-type': 'application/vnd.api+json', ...headers },
      body: JSON.stringify({ data: { type: 'notes', id: '1', attributes: { text: 'b' } } }),
    });

  it('answers 428 at the header without If-Match, and takes the write with it', async () => {
    const api = new JsonApi().resource({ ...notes, ...layer() });
    const missing = await api.fetch(patch());
    expect(missing.status).toBe(428);
    expect(((await missing.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
      status: '428',
      source: { header: 'If-Match' },
    });
    expect((await api.fetch(request('/notes/1', { method: 'DELETE' }))).status).toBe(428);
    const tag = (await api.fetch(request('/notes/1'))).headers.get('etag')!;
    const done = await api.fetch(patch({ 'if-match': tag }));
    expect(done.status).toBe(200);
    expect(done.headers.get('etag')).toMatch(/^"2~/);
  });

  it('is refused at registration when the data layer gives no versions', () => {
    const { versionOf: _, ...unversioned } = layer();
    expect(() => new JsonApi().resource({ ...notes, ...unversioned })).toThrow(
      /requireIfMatch\(\) on the update endpoint \(Versioned\) needs versionOf\(\)/,
    );
  });
});
