/**
 * The words of the demo's error documents: a resource type is a name (`resource of type
 * "articles"`), never a noun of the sentence ("no articles with id", "this people resource"),
 * on every backend, and in the Kysely store's own 404.
 */
import { Context } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { createStore } from '../../examples/blog/store.js';
import { BACKENDS, WRITE_SEED, authorOf, startDemoOn } from '../support/demo.js';
import { json } from '../support/validate.js';
import { DIALECTS, type Fixture, openFixture } from '../kysely/harness.js';

const JSONAPI = 'application/vnd.api+json';

describe.each(BACKENDS)('error details on the blog demo (%s)', (backend) => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemoOn(backend, WRITE_SEED);
  });
  afterAll(async () => demo?.close());

  /** The status and the first error's `detail` of one exchange. */
  async function detail(
    method: string,
    path: string,
    options: { user?: string; body?: unknown; ifMatch?: string } = {},
  ): Promise<[number, string]> {
    const headers: Record<string, string> = { accept: JSONAPI };
    if (options.user !== undefined) headers.authorization = `Bearer ${options.user}`;
    if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
    if (options.body !== undefined) headers['content-type'] = JSONAPI;
    const response = await fetch(`${demo.url}${path}`, {
      method,
      headers,
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    });
    const doc = await json(response);
    return [response.status, (doc.errors as Array<{ detail: string }>)[0]!.detail];
  }

  it('a missing resource, and a missing related resource of a write', async () => {
    expect(await detail('GET', '/articles/9999')).toEqual([
      404,
      'There is no resource of type "articles" with id "9999"',
    ]);
    expect(await detail('GET', '/people/77/articles')).toEqual([
      404,
      'There is no resource of type "people" with id "77"',
    ]);
    const article = {
      type: 'articles',
      attributes: { title: 'x' },
      relationships: { author: { data: { type: 'people', id: '999' } } },
    };
    expect(await detail('POST', '/articles', { user: '1', body: { data: article } })).toEqual([
      404,
      'There is no resource of type "people" with id "999"',
    ]);
  });

  it('a write the policy refuses', async () => {
    const other = authorOf(2) === '1' ? '2' : '1';
    const update = { data: { type: 'articles', id: '2', attributes: { title: 'mine now' } } };
    expect(await detail('PATCH', '/articles/2', { user: other, body: update })).toEqual([
      403,
      'You may not update this resource of type "articles"',
    ]);
    expect(await detail('PATCH', '/articles/2/relationships/tags', { user: other, body: { data: [] } })).toEqual([
      403,
      'You may not update this resource of type "articles"',
    ]);
    expect(await detail('DELETE', '/articles/2', { user: other })).toEqual([
      403,
      'You may not delete this resource of type "articles"',
    ]);
  });

  it('a write whose If-Match names a version the resource no longer has', async () => {
    const update = { data: { type: 'articles', id: '3', attributes: { title: 'stale' } } };
    expect(
      await detail('PATCH', '/articles/3', { user: authorOf(3), body: update, ifMatch: '"not-a-version"' }),
    ).toEqual([412, 'This resource of type "articles" has changed since that ETag: GET it again']);
  });
});

describe.each(DIALECTS)('the Kysely store’s 404 (%s)', (dialect) => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await openFixture(dialect, 10);
  });
  afterAll(async () => fixture?.close());

  it('deleting a row another request deleted after this one found it', async () => {
    const store = createStore(fixture.database.db).articles;
    const context = new Context(new Request('http://localhost/articles/4'));
    const read = (await store.find('4', context))!;
    await store.delete(read, context);
    await expect(store.delete(read, context)).rejects.toMatchObject({
      status: 404,
      detail: 'There is no resource of type "articles" with id "4"',
    });
  });
});
