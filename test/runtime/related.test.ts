import { describe, expect, test } from 'vitest';
import { createBlog } from '../support/memory-host.js';
import { request } from '../support/request.js';
import { json, jsonError, type Doc } from '../support/validate.js';

async function get(path: string, blog = createBlog()): Promise<Doc> {
  const response = await blog.api.fetch(request(path));
  const document = await json(response);
  expect(response.status, JSON.stringify(document.errors)).toBe(200);
  return document;
}

const ids = (document: Doc): string[] => document.data.map((r: Doc) => r.id);

describe('to-one', () => {
  test('GET /articles/1/author is the related resource', async () => {
    const document = await get('/articles/1/author');
    expect(document.links).toEqual({ self: 'http://localhost/articles/1/author' });
    expect(document.data).toMatchObject({ type: 'people', id: '1', attributes: { name: 'Ada' } });
  });

  test('GET /articles/1/relationships/author is its linkage', async () => {
    expect(await get('/articles/1/relationships/author')).toEqual({
      jsonapi: { version: '1.1' },
      links: {
        self: 'http://localhost/articles/1/relationships/author',
        related: 'http://localhost/articles/1/author',
      },
      data: { type: 'people', id: '1' },
    });
  });

  test('an empty to-one is null data, not a 404', async () => {
    const blog = createBlog();
    blog.db.comments[0]!.authorId = 'gone';
    expect((await get('/comments/1/author', blog)).data).toBeNull();
    expect((await get('/comments/1/relationships/author', blog)).data).toBeNull();
  });

  test('the related resource takes include and fields', async () => {
    const document = await get('/comments/1/article?include=author&fields[articles]=title,author');
    expect(document.data.attributes).toEqual({ title: 'JSON:API in an afternoon' });
    expect(document.included.map((r: Doc) => `${r.type}:${r.id}`)).toEqual(['people:1']);
  });
});

describe('to-many without queryRelated (people -> articles)', () => {
  test('GET /people/1/articles lists every related resource', async () => {
    const document = await get('/people/1/articles');
    expect(ids(document)).toEqual(['1', '3']);
    expect(document.data[0].type).toBe('articles');
  });

  test('GET /people/1/relationships/articles lists identifiers', async () => {
    const document = await get('/people/1/relationships/articles');
    expect(document.data).toEqual([
      { type: 'articles', id: '1' },
      { type: 'articles', id: '3' },
    ]);
    expect(document.links.related).toBe('http://localhost/people/1/articles');
  });

  test('an empty to-many is an empty array', async () => {
    const blog = createBlog();
    blog.db.people.push({ id: '9', name: 'New', email: 'new@example.com' });
    expect((await get('/people/9/articles', blog)).data).toEqual([]);
    expect((await get('/people/9/relationships/articles', blog)).data).toEqual([]);
  });

  test.each(['sort=title', 'filter[status]=draft', 'page[limit]=1'])(
    '%s is a 400 without queryRelated',
    async (query) => {
      await jsonError(await createBlog().api.fetch(request(`/people/1/articles?${query}`)), 400);
    },
  );
});

describe('to-many with queryRelated (articles -> comments, tags)', () => {
  test("takes the related type's sorts and pagination, with links", async () => {
    const document = await get('/articles/1/comments?sort=-createdAt&page[limit]=2');
    expect(ids(document)).toEqual(['3', '1']);
    expect(document.links.self).toBe('http://localhost/articles/1/comments?sort=-createdAt&page%5Blimit%5D=2');
    const next = new URL(document.links.next);
    expect(next.pathname).toBe('/articles/1/comments');
    expect(Object.fromEntries(next.searchParams)).toEqual({
      sort: '-createdAt',
      'page[offset]': '2',
      'page[limit]': '2',
    });
  });

  test("applies the related type's default page size (comments: 5)", async () => {
    const blog = createBlog();
    blog.db.comments.push(
      ...Array.from({ length: 8 }, (_, i) => ({
        id: String(20 + i),
        body: '+1',
        createdAt: new Date(0),
        articleId: '2',
        authorId: '2',
      })),
    );
    expect((await get('/articles/2/comments', blog)).data).toHaveLength(5);
  });

  test("takes the related type's filters, and its default sort", async () => {
    expect(ids(await get('/articles/1/tags'))).toEqual(['2', '1']); // json, typescript
    expect(ids(await get('/articles/1/tags?filter[name]=json'))).toEqual(['2']);
    expect(ids(await get('/articles/1/tags?filter[name][]=json&filter[name][]=http'))).toEqual(['2']);
  });

  test('rejects filters and sorts the related type does not have', async () => {
    const document = await jsonError(
      await createBlog().api.fetch(request('/articles/1/comments?filter[status]=draft')),
      400,
    );
    expect(document.errors[0].source).toEqual({ parameter: 'filter[status]' });
  });

  test('the relationship endpoint lists identifiers, paginated', async () => {
    const document = await get('/articles/1/relationships/comments?page[limit]=2');
    expect(document.data).toEqual([
      { type: 'comments', id: '1' },
      { type: 'comments', id: '2' },
    ]);
    expect(document.links.related).toBe('http://localhost/articles/1/comments');
    expect(new URL(document.links.next).searchParams.get('page[offset]')).toBe('2');
  });

  test('the related collection takes include', async () => {
    const document = await get('/articles/1/comments?include=author');
    expect(document.included.map((r: Doc) => r.id).sort()).toEqual(['1', '2', '3']);
  });

  test('the parent must exist', async () => {
    await jsonError(await createBlog().api.fetch(request('/articles/999/comments')), 404);
  });
});

describe('not found', () => {
  test.each([
    ['an unknown relationship', '/articles/1/editor'],
    ['an unknown relationship endpoint', '/articles/1/relationships/editor'],
    ['an attribute', '/articles/1/title'],
    ['an attribute as a relationship endpoint', '/articles/1/relationships/title'],
    ['a to-one of an unknown resource', '/articles/999/author'],
    ['linkage of an unknown resource', '/articles/999/relationships/author'],
    ['a to-many of an unknown resource', '/people/999/articles'],
    ['a path beyond relationships', '/articles/1/author/extra'],
  ])('%s is a 404', async (_, path) => {
    await jsonError(await createBlog().api.fetch(request(path)), 404);
  });
});
