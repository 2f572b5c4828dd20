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

const identify = (resources: Doc[]): string[] => resources.map((r) => `${r.type}:${r.id}`);

/** Every included resource is reached from the primary data or another included resource. */
function expectFullLinkage(document: Doc): void {
  const all = [...[document.data].flat(), ...document.included];
  const linked = new Set<string>();
  for (const resource of all) {
    for (const relationship of Object.values<Doc>(resource.relationships ?? {})) {
      for (const identifier of [relationship.data ?? []].flat()) linked.add(`${identifier.type}:${identifier.id}`);
    }
  }
  for (const included of identify(document.included)) expect(linked, `${included} is linked`).toContain(included);
}

describe('a single resource', () => {
  test('serializes attributes by kind, relationships as links, and its own links', async () => {
    const document = await get('/articles/1');
    expect(document).toEqual({
      jsonapi: { version: '1.1' },
      links: { self: 'http://localhost/articles/1' },
      data: {
        type: 'articles',
        id: '1',
        attributes: {
          title: 'JSON:API in an afternoon',
          body: 'Start with one resource.',
          status: 'published',
          views: 120,
          createdAt: '2024-01-01T09:30:00.000Z',
          publishedOn: '2024-01-01',
          wordCount: 4,
        },
        relationships: {
          author: {
            links: {
              self: 'http://localhost/articles/1/relationships/author',
              related: 'http://localhost/articles/1/author',
            },
          },
          comments: {
            links: {
              self: 'http://localhost/articles/1/relationships/comments',
              related: 'http://localhost/articles/1/comments',
            },
          },
          tags: {
            links: {
              self: 'http://localhost/articles/1/relationships/tags',
              related: 'http://localhost/articles/1/tags',
            },
          },
        },
        links: { self: 'http://localhost/articles/1' },
      },
    });
  });

  test('a getter may answer null for a nullable attribute', async () => {
    expect((await get('/articles/4')).data.attributes.publishedOn).toBeNull();
  });

  test('an unknown id is a 404', async () => {
    await jsonError(await createBlog().api.fetch(request('/articles/999')), 404);
  });

  test.each(['sort=title', 'filter[status]=draft', 'page[limit]=1'])(
    '%s on a single resource is a 400',
    async (query) => {
      const document = await jsonError(await createBlog().api.fetch(request(`/articles/1?${query}`)), 400);
      expect(document.errors[0].source.parameter).toBe(query.split('=')[0]);
    },
  );
});

describe('compound documents', () => {
  test('include=author,comments.author: full linkage, each resource once', async () => {
    const document = await get('/articles/1?include=author,comments.author');
    expect(document.data.relationships.author.data).toEqual({ type: 'people', id: '1' });
    expect(document.data.relationships.comments.data).toEqual([
      { type: 'comments', id: '1' },
      { type: 'comments', id: '2' },
      { type: 'comments', id: '3' },
    ]);
    // Ada wrote the article and comment 3: she is included once.
    expect(identify(document.included).sort()).toEqual([
      'comments:1',
      'comments:2',
      'comments:3',
      'people:1',
      'people:2',
      'people:3',
    ]);
    const comment3 = document.included.find((r: Doc) => r.type === 'comments' && r.id === '3');
    expect(comment3.relationships.author.data).toEqual({ type: 'people', id: '1' });
    // Relationships nobody asked for carry links only.
    expect(comment3.relationships.article).not.toHaveProperty('data');
    expect(document.data.relationships.tags).not.toHaveProperty('data');
    expectFullLinkage(document);
  });

  test('a collection includes each related resource once, however many rows share it', async () => {
    const document = await get('/articles?include=author,tags');
    expect(identify(document.included).sort()).toEqual([
      'people:1',
      'people:2',
      'people:3',
      'tags:1',
      'tags:2',
      'tags:3',
    ]);
    expect(document.data.map((a: Doc) => a.relationships.tags.data.length)).toEqual([0, 2, 1, 2]);
    expectFullLinkage(document);
  });

  test('primary resources are never repeated in included', async () => {
    const document = await get('/articles/1?include=comments.article');
    expect(identify(document.included)).toEqual(['comments:1', 'comments:2', 'comments:3']);
    for (const comment of document.included)
      expect(comment.relationships.article.data).toEqual({ type: 'articles', id: '1' });
  });

  test('included resources of a collection that are also primary data stay in data only', async () => {
    const document = await get('/comments?include=article.comments');
    expect(identify(document.data)).toEqual(['comments:1', 'comments:2', 'comments:3', 'comments:4']);
    expect(identify(document.included).sort()).toEqual(['articles:1', 'articles:2']);
    expectFullLinkage(document);
  });

  test('an empty include gives an empty included member', async () => {
    const document = await get('/articles/4?include=comments');
    expect(document.data.relationships.comments.data).toEqual([]);
    expect(document.included).toEqual([]);
  });

  test.each([
    ['an unknown relationship', 'include=editor'],
    ['an attribute', 'include=title'],
    ['a relationship that is not includable', 'include=author.articles'],
    ['an unknown nested relationship', 'include=comments.likes'],
    ['an empty path segment', 'include=comments..author'],
  ])('%s is a 400 pointing at include', async (_, query) => {
    const document = await jsonError(await createBlog().api.fetch(request(`/articles/1?${query}`)), 400);
    expect(document.errors[0].source).toEqual({ parameter: 'include' });
  });
});

describe('sparse fieldsets', () => {
  test('fields[type] limits attributes and relationships of primary and included resources', async () => {
    const document = await get('/articles/1?include=author&fields[articles]=title,author&fields[people]=name');
    expect(document.data.attributes).toEqual({ title: 'JSON:API in an afternoon' });
    expect(Object.keys(document.data.relationships)).toEqual(['author']);
    expect(document.data.relationships.author.data).toEqual({ type: 'people', id: '1' });
    expect(document.included).toEqual([
      { type: 'people', id: '1', attributes: { name: 'Ada' }, links: { self: 'http://localhost/people/1' } },
    ]);
  });

  test('an empty fieldset leaves only type, id and links', async () => {
    const document = await get('/articles?fields[articles]=&sort=title&page[limit]=1');
    expect(document.data).toEqual([{ type: 'articles', id: '3', links: { self: 'http://localhost/articles/3' } }]);
  });

  test('fieldsets of types not in the document change nothing', async () => {
    const document = await get('/articles/2?fields[tags]=name');
    expect(Object.keys(document.data.attributes)).toHaveLength(7);
  });

  test.each([
    ['an unknown type', 'fields[users]=name', 'fields[users]'],
    ['an unknown field', 'fields[articles]=title,subtitle', 'fields[articles]'],
    ['id, which is not a field', 'fields[articles]=id', 'fields[articles]'],
    ['an unknown field of an included type', 'include=author&fields[people]=age', 'fields[people]'],
  ])('%s is a 400 pointing at the parameter', async (_, query, parameter) => {
    const document = await jsonError(await createBlog().api.fetch(request(`/articles/1?${query}`)), 400);
    expect(document.errors[0].source).toEqual({ parameter });
  });
});
