/**
 * Declared meta on real Requests: each resource object's `meta` (in data and included, whatever
 * sparse fieldsets ask, on Show, Index and related endpoints) and the document meta of Show and
 * Index, merged with the runtime's own (`total`) without replacing it.
 */
import { describe, expect, test } from 'vitest';
import { Index, JsonApi, Meta, Show, defineResource } from 'jsonapi-gen';
import { type Article, CallLog, type Person, articles, memoryStore, people, seed } from '../support/memory-host.js';
import { request } from '../support/request.js';
import { json, type Doc } from '../support/validate.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

const metaArticles = defineResource<Article>({
  type: 'articles',
  fields: articles.fields(),
  filters: articles.filters!(),
  sorts: articles.sorts!(),
  endpoints: [
    Show.make().meta((article: Article) => ({ views: article.views })),
    Index.make()
      .paginate(2, 10)
      .defaultSort('-createdAt,title')
      .countable()
      // `total` is the runtime's: the declared one never replaces it.
      .meta((page: readonly Article[]) => ({ words: page.reduce((n, a) => n + words(a.body), 0), total: -1 })),
  ],
  meta: [
    Meta.make('wordCount')
      .type('integer')
      .get((article: Article) => words(article.body)),
    Meta.make('publishedAt')
      .type('date-time')
      .nullable()
      .get((article: Article) => (article.status === 'published' ? article.createdAt : null)),
  ],
});

const metaPeople = defineResource<Person>({
  type: 'people',
  fields: people.fields(),
  endpoints: people.endpoints(),
  meta: [Meta.make('initial').get((person: Person) => person.name.slice(0, 1))],
});

function createApi() {
  const db = seed();
  const calls = new CallLog();
  const api = new JsonApi({ onError: () => {} });
  api.resource({
    ...metaArticles,
    ...memoryStore(
      db,
      'articles',
      {
        author: { kind: 'belongsTo', table: 'people', key: 'authorId' },
        comments: { kind: 'hasMany', table: 'comments', foreignKey: 'articleId' },
        tags: { kind: 'ids', table: 'tags', key: 'tagIds' },
      },
      calls,
      { queryRelated: true },
    ),
  });
  api.resource({
    ...metaPeople,
    ...memoryStore(db, 'people', { articles: { kind: 'hasMany', table: 'articles', foreignKey: 'authorId' } }, calls, {
      count: false,
    }),
  });
  // Relationships of articles name comments and tags: served without meta.
  api.resource({ type: () => 'comments', fields: () => [], endpoints: () => [] });
  api.resource({ type: () => 'tags', fields: () => [], endpoints: () => [] });
  return { api, db };
}

async function get(path: string): Promise<{ document: Doc; db: ReturnType<typeof seed> }> {
  const { api, db } = createApi();
  const response = await api.fetch(request(path));
  const document = await json(response);
  expect(response.status, JSON.stringify(document.errors)).toBe(200);
  return { document, db };
}

const expectedMeta = (article: Article) => ({
  wordCount: words(article.body),
  publishedAt: article.status === 'published' ? article.createdAt.toISOString() : null,
});

describe('resource object meta', () => {
  test('Show serves each declared member, computed from the model, after links', async () => {
    const { document, db } = await get('/articles/1');
    const article = db.articles.find((a) => a.id === '1')!;
    expect(document.data.meta).toEqual(expectedMeta(article));
    expect(Object.keys(document.data).at(-1)).toBe('meta');
  });

  test('sparse fieldsets leave meta alone: fields names attributes and relationships only', async () => {
    const { document, db } = await get('/articles/1?fields[articles]=title&include=author&fields[people]=name');
    expect(document.data.attributes).toEqual({ title: db.articles.find((a) => a.id === '1')!.title });
    expect(document.data.meta).toEqual(expectedMeta(db.articles.find((a) => a.id === '1')!));
    expect(document.included).toHaveLength(1);
    expect(document.included[0].meta).toEqual({ initial: document.included[0].attributes.name.slice(0, 1) });
  });

  test('Index serves meta on every resource object of the page, and on included ones', async () => {
    const { document, db } = await get('/articles?include=author&page[limit]=3');
    expect(document.data).toHaveLength(3);
    for (const object of document.data)
      expect(object.meta).toEqual(expectedMeta(db.articles.find((a) => a.id === object.id)!));
    for (const person of document.included) expect(person.meta.initial).toBe(person.attributes.name.slice(0, 1));
  });

  test('a related endpoint serves the related resources with their meta', async () => {
    const { document, db } = await get('/people/1/articles?fields[articles]=title');
    expect(document.data.length).toBeGreaterThan(0);
    for (const object of document.data) {
      expect(Object.keys(object.attributes)).toEqual(['title']);
      expect(object.meta).toEqual(expectedMeta(db.articles.find((a) => a.id === object.id)!));
    }
    expect(document.meta).toBeUndefined();
    const author = await get('/articles/1/author');
    expect(author.document.data.meta).toEqual({ initial: author.document.data.attributes.name.slice(0, 1) });
  });
});

describe('document meta', () => {
  test("Show's meta() is the document's meta", async () => {
    const { document, db } = await get('/articles/1');
    expect(document.meta).toEqual({ views: db.articles.find((a) => a.id === '1')!.views });
  });

  test("Index's meta() is merged with the runtime's total, which it does not replace", async () => {
    const { document, db } = await get('/articles?page[limit]=2');
    const page = document.data.map((o: Doc) => db.articles.find((a) => a.id === o.id)!);
    expect(document.meta).toEqual({
      words: page.reduce((n: number, a: Article) => n + words(a.body), 0),
      total: db.articles.length,
    });
  });

  test('a related collection is not the Index: no document meta of it', async () => {
    const { document } = await get('/people/1/articles');
    expect(document.meta).toBeUndefined();
  });
});
