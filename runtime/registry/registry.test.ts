import { describe, expect, test, vi } from 'vitest';
import { json } from '../../test/support/validate.js';
import {
  Attribute,
  CustomFilter,
  CustomSort,
  Delete,
  Index,
  JsonApi,
  Show,
  SortBy,
  ToMany,
  ToOne,
  Where,
  defineResource,
  type ResourceSpec,
} from 'jsonapi-gen';

const noop = () => undefined;
/** Every read-path data-layer method, so a case can leave exactly one out. */
const dataLayer = {
  find: noop,
  delete: noop,
  query: noop,
  results: () => [],
  paginate: noop,
  count: () => 0,
  loadRelated: () => [],
};

function without(...methods: Array<keyof typeof dataLayer>) {
  return Object.fromEntries(
    Object.entries(dataLayer).filter(([name]) => !methods.includes(name as keyof typeof dataLayer)),
  );
}

const register =
  (spec: ResourceSpec, store: object = dataLayer) =>
  () =>
    new JsonApi().resource({ ...defineResource(spec), ...store });

describe('registration refuses a data layer an endpoint cannot work without', () => {
  test.each([
    ['Show without find', { endpoints: [Show.make()] }, without('find'), /show endpoint needs find\(\)/],
    ['Index without query', { endpoints: [Index.make()] }, without('query'), /index endpoint needs query\(\)/],
    [
      'Index without results or query',
      { endpoints: [Index.make()] },
      without('query', 'results'),
      /needs query\(\) and results\(\)/,
    ],
    ['paginate() without paginate', { endpoints: [Index.make().paginate()] }, without('paginate'), /Paginatable/],
    ['countable() without count', { endpoints: [Index.make().paginate().countable()] }, without('count'), /Countable/],
    ['Delete without delete', { endpoints: [Delete.make()] }, without('delete'), /delete endpoint needs delete\(\)/],
    ['Delete without find', { endpoints: [Delete.make()] }, without('find'), /delete endpoint needs find\(\)/],
    [
      'relationships without loadRelated',
      { fields: [ToOne.make('author').type('people')], endpoints: [Show.make()] },
      without('loadRelated'),
      /relationships \(author\) needs loadRelated\(\)/,
    ],
  ])('%s', (_, spec, store, message) => {
    expect(register({ type: 'articles', ...spec }, store)).toThrow(message);
  });

  test('the same data layer with every method registers', () => {
    expect(
      register({ type: 'articles', endpoints: [Show.make(), Index.make().paginate().countable(), Delete.make()] }),
    ).not.toThrow();
  });

  test('endpoints that are not enabled need nothing', () => {
    expect(register({ type: 'articles', fields: [Attribute.make('title')], endpoints: [] }, {})).not.toThrow();
  });
});

describe('registration refuses malformed resources', () => {
  test.each([
    ['an illegal type', { type: 'blog posts' }, /resource type "blog posts" is not a legal member name/],
    ['an empty type', { type: '' }, /resource type "" is not a legal member name/],
    [
      'a field with a space',
      { fields: [Attribute.make('first name')] },
      /field "first name" is not a legal member name/,
    ],
    ['a field starting with a hyphen', { fields: [Attribute.make('-draft')] }, /not a legal/],
    ['a field ending with an underscore', { fields: [Attribute.make('draft_')] }, /not a legal/],
    ['a non-ASCII field', { fields: [Attribute.make('título')] }, /not a legal/],
    ['a relationship with @', { fields: [ToMany.make('@tags').type('tags')] }, /not a legal/],
    ['a field named id', { fields: [Attribute.make('id').type('integer')] }, /"id" cannot be a field name/],
    ['a field named type', { fields: [Attribute.make('type')] }, /"type" cannot be a field name/],
    ['a relationship named id', { fields: [ToOne.make('id').type('people')] }, /"id" cannot be a field name/],
    [
      'a duplicate field',
      { fields: [Attribute.make('title'), Attribute.make('title')] },
      /field "title" is declared twice/,
    ],
    [
      'an attribute and a relationship sharing a name',
      { fields: [Attribute.make('author'), ToOne.make('author').type('people')] },
      /declared twice/,
    ],
    ['a relationship without a type', { fields: [ToOne.make('author')] }, /relationship "author" has no \.type/],
    ['an endpoint declared twice', { endpoints: [Show.make(), Show.make()] }, /show endpoint is declared twice/],
    [
      'a filter with an illegal name',
      { filters: [CustomFilter.make('has space', noop)] },
      /filter "has space" is not a legal member name/,
    ],
    [
      'a duplicate filter',
      { filters: [CustomFilter.make('a', noop), CustomFilter.make('a', noop)] },
      /filter "a" is declared twice/,
    ],
    [
      'a duplicate sort',
      { sorts: [CustomSort.make('a', noop), CustomSort.make('a', noop)] },
      /sort "a" is declared twice/,
    ],
    [
      'a default sort that is not a sort',
      { endpoints: [Index.make().defaultSort('-createdAt')] },
      /default sort names "createdAt"/,
    ],
  ])('%s', (_, spec, message) => {
    expect(register({ type: 'articles', ...spec })).toThrow(message);
  });

  const blog = {
    type: 'articles',
    fields: [Attribute.make('title'), ToOne.make('author').type('people'), ToMany.make('tags').type('tags')],
  };
  const layer = { ...dataLayer, where: noop, orderBy: noop };
  test.each([
    [
      'a Where on no field',
      { filters: [Where.make('titel')] },
      /Where.make\('titel'\) names no attribute or to-one relationship/,
    ],
    ['a Where on a to-many', { filters: [Where.make('tags')] }, /Where.make\('tags'\) names no attribute or to-one/],
    ['a SortBy on no field', { sorts: [SortBy.make('titel')] }, /SortBy.make\('titel'\) names no attribute/],
    ['a SortBy on a relationship', { sorts: [SortBy.make('author')] }, /SortBy.make\('author'\) names no attribute/],
  ])('%s', (_, spec, message) => {
    expect(register({ ...blog, ...spec }, layer)).toThrow(message);
  });

  test('Where on an attribute and a to-one, SortBy on an attribute register', () => {
    expect(
      register({ ...blog, filters: [Where.make('title'), Where.make('author')], sorts: [SortBy.make('title')] }, layer),
    ).not.toThrow();
  });

  test('a custom filter or sort given a function twice, in the schema and in the data layer', () => {
    expect(
      register({ ...blog, filters: [CustomFilter.make('q', noop)] }, { ...layer, customFilters: { q: noop } }),
    ).toThrow(/filter "q" has a function in the schema and one in the data layer/);
    expect(register({ ...blog, sorts: [CustomSort.make('s', noop)] }, { ...layer, customSorts: { s: noop } })).toThrow(
      /sort "s" has a function in the schema and one in the data layer/,
    );
  });

  test('legal member names register', () => {
    const fields = ['a', 'A1', 'created-at', 'created_at', 'x9-y_z'].map((name) => Attribute.make(name));
    expect(register({ type: 'blog-posts_2', fields })).not.toThrow();
  });

  test('a type registered twice', () => {
    const api = new JsonApi().resource({ ...defineResource({ type: 'tags' }) });
    expect(() => api.resource({ ...defineResource({ type: 'tags' }) })).toThrow(/"tags" is registered twice/);
  });

  test('a relationship to an unregistered type fails every request, and says why', async () => {
    const onError = vi.fn();
    const api = new JsonApi({ onError }).resource({
      ...defineResource({ type: 'articles', fields: [ToOne.make('author').type('people')], endpoints: [Show.make()] }),
      ...dataLayer,
    });
    const response = await api.fetch(new Request('http://localhost/articles/1'));
    expect(response.status).toBe(500);
    expect((await json(response)).errors).toEqual([{ status: '500', title: 'Internal Server Error' }]);
    expect(onError.mock.calls[0]![0]).toEqual(
      new TypeError(
        'resource "articles": relationship "author" relates to "people", which no resource of the API declares (known: articles)',
      ),
    );
  });
});
