import { describe, expect, test } from 'vitest';
import { createBlog } from '../support/memory-host.js';
import { request } from '../support/request.js';
import { json, jsonError } from '../support/validate.js';

const del = (path: string, attributes?: Record<string, unknown>, blog = createBlog()) =>
  blog.api.fetch(request(path, { method: 'DELETE' }), { attributes });

describe('Delete', () => {
  test('finds, checks, deletes: 204 without a body, and the resource is gone', async () => {
    const blog = createBlog();
    const response = await del('/articles/1', { user: '1' }, blog);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(blog.db.articles.map((a) => a.id)).toEqual(['2', '3', '4']);
    expect([...blog.calls.counts]).toEqual([
      ['articles.find', 1],
      ['articles.delete', 1],
    ]);
    await jsonError(await blog.api.fetch(request('/articles/1')), 404);
  });

  test('a missing resource is a 404 and deletes nothing', async () => {
    const blog = createBlog();
    await jsonError(await del('/articles/999', { user: '1' }, blog), 404);
    expect(blog.db.articles).toHaveLength(4);
  });

  test('the callback sees the model and the attributes: someone else’s article is a 403', async () => {
    const blog = createBlog();
    await jsonError(await del('/articles/1', { user: '2' }, blog), 403);
    await jsonError(await del('/articles/1', undefined, blog), 403);
    expect(blog.db.articles).toHaveLength(4);
    expect(blog.calls.of('delete')).toBe(0);
  });

  test('hidden(cb) refuses when the callback returns true', async () => {
    const blog = createBlog();
    await jsonError(await del('/comments/1', undefined, blog), 403);
    expect((await del('/comments/1', { user: '3' }, blog)).status).toBe(204);
    expect(blog.db.comments.map((c) => c.id)).toEqual(['2', '3', '4']);
  });

  test('a resource without Delete answers 405 with Allow', async () => {
    const response = await del('/tags/1');
    await jsonError(response, 405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  test('query parameters on a delete are a 400', async () => {
    const blog = createBlog();
    const document = await json(await del('/articles/1?include=author', { user: '1' }, blog));
    expect(document.errors[0]).toMatchObject({ status: '400', source: { parameter: 'include' } });
    expect(blog.db.articles).toHaveLength(4);
  });
});
