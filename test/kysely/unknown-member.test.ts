/**
 * An unknown attribute is reported the same way wherever a document carries it: POST, PATCH and
 * inside Atomic Operations give the same status, code and pointer (below the operation there).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorOf } from '../support/demo.js';
import { STORES, type Fixture, openFixture } from './harness.js';

describe.each(STORES)('an unknown attribute (%s, %s runner)', (dialect, runner) => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await openFixture(dialect, 10, runner);
  });
  afterAll(async () => fixture?.close());

  const shape = (
    body: { errors: Array<{ status: string; code?: string; source?: { pointer?: string } }> },
    prefix = '',
  ) => body.errors.map((e) => ({ status: e.status, code: e.code, pointer: e.source?.pointer?.slice(prefix.length) }));

  it('is the same error on POST, PATCH and in /operations', async () => {
    const attributes = { title: 'T', views: 3 };
    const relationships = { author: { data: { type: 'people', id: authorOf(1) } } };
    const post = await fixture.request('POST', '/articles', authorOf(1), {
      data: { type: 'articles', attributes, relationships },
    });
    const patch = await fixture.request('PATCH', '/articles/1', authorOf(1), {
      data: { type: 'articles', id: '1', attributes },
    });
    const atomic = await fixture.request('POST', '/operations', authorOf(1), {
      'atomic:operations': [{ op: 'update', data: { type: 'articles', id: '1', attributes } }],
    });
    const want = [{ status: '422', code: 'unknown_field', pointer: '/data/attributes/views' }];
    expect([post.status, patch.status, atomic.status]).toEqual([422, 422, 422]);
    expect(shape(post.body)).toEqual(want);
    expect(shape(patch.body)).toEqual(want);
    expect(shape(atomic.body, '/atomic:operations/0')).toEqual(want);
  });
});
