/**
 * The demo's outbox (examples/blog/README.md, "Application behaviour") on every backend: one
 * entry per successful create, update and delete of an article, written in the write's
 * transaction (none for a refused or rolled-back write, one per operation of a committed Atomic
 * Operations batch), served read-only at `GET /events`: sorted by id, cursor paginated,
 * `filter[resourceId]`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, WRITE_SEED, authorOf, startDemoOn } from '../support/demo.js';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

interface Event {
  id: string;
  type: string;
  attributes: { action: string; resourceType: string; resourceId: string; occurredAt: string; changed: string[] };
}
interface Doc {
  data?: unknown;
  links?: { next?: string | null };
  errors?: Array<{ status: string }>;
}

describe.each(BACKENDS)('the outbox of the blog demo (%s)', (backend) => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemoOn(backend, WRITE_SEED);
  });
  afterAll(async () => demo?.close());

  async function call(
    method: string,
    path: string,
    { body, user, type = JSONAPI, ifMatch }: { body?: unknown; user?: string; type?: string; ifMatch?: string } = {},
  ) {
    const headers: Record<string, string> = { accept: type };
    if (user !== undefined) headers.authorization = `Bearer ${user}`;
    if (body !== undefined) headers['content-type'] = type;
    if (ifMatch !== undefined) headers['if-match'] = ifMatch;
    const response = await fetch(path.startsWith('http') ? path : `${demo.url}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, doc: (text === '' ? {} : JSON.parse(text)) as Doc };
  }

  /** Every entry, page by page along the `next` links (cursor pages of 100). */
  async function allEvents(query = ''): Promise<Event[]> {
    const events: Event[] = [];
    let next: string | null | undefined = `/events?page[size]=100${query}`;
    while (next) {
      const page = await call('GET', next);
      expect(page.status).toBe(200);
      events.push(...(page.doc.data as Event[]));
      next = page.doc.links?.next;
    }
    return events;
  }
  const eventsOf = (id: string) => allEvents(`&filter[resourceId]=${id}`);
  /** The entries of resource `id` appended after entry `last` (the memory store reuses a deleted article's id). */
  const eventsSince = async (last: number, id: string) => (await eventsOf(id)).filter((e) => Number(e.id) > last);
  const lastId = async () => Math.max(0, ...(await allEvents()).map((e) => Number(e.id)));
  const summary = (events: Event[]) => events.map((e) => [e.attributes.action, e.attributes.changed]);

  it('appends one entry per create, update, relationship update and delete of an article, naming the members written', async () => {
    const before = Date.now();
    const created = await call('POST', '/articles', {
      body: { data: { type: 'articles', attributes: { title: `outbox ${backend}` } } },
      user: '2',
    });
    expect(created.status).toBe(201);
    const id = (created.doc.data as { id: string }).id;
    const path = `/articles/${id}`;
    const patch = { data: { type: 'articles', id, attributes: { title: 'renamed', body: 'text' } } };
    expect((await call('PATCH', path, { body: patch, user: '2' })).status).toBe(200);
    const tags = { data: [{ type: 'tags', id: '1' }] };
    expect((await call('PATCH', `${path}/relationships/tags`, { body: tags, user: '2' })).status).toBe(204);
    expect((await call('DELETE', path, { user: '2' })).status).toBe(204);

    const events = await eventsOf(id);
    expect(summary(events)).toEqual([
      // The author comes from the signed-in user (a saving hook), the status from its default.
      ['create', ['author', 'status', 'title']],
      ['update', ['body', 'title']],
      ['update', ['tags']],
      ['delete', []],
    ]);
    for (const event of events) {
      expect(event.type).toBe('events');
      expect(event.attributes).toMatchObject({ resourceType: 'articles', resourceId: id });
      const at = Date.parse(event.attributes.occurredAt);
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    }
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('appends nothing for a refused write (412, 422, 403) nor for other types; the next accepted write appends one', async () => {
    const start = (await allEvents()).length;
    const article = '4';
    const user = authorOf(4);
    const title = { data: { type: 'articles', id: article, attributes: { title: 'stale' } } };
    expect((await call('PATCH', `/articles/${article}`, { body: title, user, ifMatch: '"nonsense"' })).status).toBe(
      412,
    );
    const published = { data: { type: 'articles', id: article, attributes: { status: 'published', body: '' } } };
    expect((await call('PATCH', `/articles/${article}`, { body: published, user })).status).toBe(422);
    const other = user === '1' ? '2' : '1';
    expect((await call('PATCH', `/articles/${article}`, { body: title, user: other })).status).toBe(403);
    const comment = { data: { type: 'comments', id: '1', attributes: {} } };
    expect((await call('PATCH', '/comments/1', { body: comment })).status).toBe(200);
    expect(await allEvents()).toHaveLength(start);
    expect((await call('PATCH', `/articles/${article}`, { body: title, user })).status).toBe(200);
    const events = await allEvents();
    expect(events).toHaveLength(start + 1);
    expect(events.at(-1)!.attributes).toMatchObject({ action: 'update', resourceId: article, changed: ['title'] });
  });

  it('of 4 concurrent PATCHes with one If-Match tag, only the one that succeeds appends its entry', async () => {
    const article = '5';
    const user = authorOf(5);
    const tag = (await fetch(`${demo.url}/articles/${article}`)).headers.get('etag')!;
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        call('PATCH', `/articles/${article}`, {
          body: { data: { type: 'articles', id: article, attributes: { title: `race ${i}` } } },
          user,
          ifMatch: tag,
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(summary(await eventsOf(article))).toEqual([['update', ['title']]]);
  });

  it('appends one entry per operation of a committed Atomic Operations batch, none for a failed one', async () => {
    const user = authorOf(6);
    const last = await lastId();
    const failed = await call('POST', '/operations', {
      type: ATOMIC,
      user,
      body: {
        'atomic:operations': [
          { op: 'update', data: { type: 'articles', id: '6', attributes: { title: 'first op' } } },
          { op: 'remove', ref: { type: 'articles', id: '6' } },
          { op: 'update', data: { type: 'articles', id: '6', attributes: { title: 'gone' } } },
        ],
      },
    });
    expect(failed.status).toBe(404);
    expect(await eventsOf('6')).toEqual([]);

    const committed = await call('POST', '/operations', {
      type: ATOMIC,
      user,
      body: {
        'atomic:operations': [
          { op: 'add', data: { type: 'articles', lid: 'a', attributes: { title: `batch ${backend}` } } },
          { op: 'update', data: { type: 'articles', id: '6', attributes: { title: 'first op' } } },
          { op: 'remove', ref: { type: 'articles', id: '6' } },
        ],
      },
    });
    expect(committed.status).toBe(200);
    const added = (committed.doc as { 'atomic:results': Array<{ data?: { id: string } }> })['atomic:results'][0]!.data!
      .id;
    expect(summary(await eventsSince(last, added))).toEqual([['create', ['author', 'status', 'title']]]);
    expect(summary(await eventsOf('6'))).toEqual([
      ['update', ['title']],
      ['delete', []],
    ]);
  });

  it('serves the entries read-only, sorted by id, in cursor pages, filtered by resource id', async () => {
    const all = await allEvents();
    expect(all.length).toBeGreaterThanOrEqual(8);
    const ids = all.map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // Pages of 3 along `next` give the same entries in the same order.
    const paged: string[] = [];
    let next: string | null | undefined = '/events?page[size]=3';
    while (next) {
      const page = await call('GET', next);
      expect((page.doc.data as Event[]).length).toBeLessThanOrEqual(3);
      paged.push(...(page.doc.data as Event[]).map((e) => e.id));
      next = page.doc.links?.next;
    }
    expect(paged).toEqual(all.map((e) => e.id));
    // The cursor after the second entry: the ones after it.
    const first = await call('GET', '/events?page[size]=2');
    const cursor = new URL(first.doc.links!.next!).searchParams.get('page[after]')!;
    const after = await call('GET', `/events?page[size]=100&page[after]=${encodeURIComponent(cursor)}`);
    expect((after.doc.data as Event[]).map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id));
    expect((await call('GET', `/events/${all[0]!.id}`)).doc.data).toMatchObject({
      id: all[0]!.id,
      attributes: all[0]!.attributes,
    });

    const body = { data: { type: 'events', attributes: { action: 'create' } } };
    expect((await call('POST', '/events', { body })).status).toBe(405);
    expect(
      (await call('PATCH', `/events/${all[0]!.id}`, { body: { data: { ...body.data, id: all[0]!.id } } })).status,
    ).toBe(405);
    expect((await call('DELETE', `/events/${all[0]!.id}`)).status).toBe(405);
    expect(await allEvents()).toHaveLength(all.length);
  });
});
