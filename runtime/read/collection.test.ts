import { describe, expect, test } from 'vitest';
import { paginationLinks } from './collection.js';

const url = new URL('http://localhost/api/articles?filter[status]=draft&page[limit]=10&page[offset]=20&sort=-title');

/** A link's offset and limit, or null. */
const page = (link: string | null | undefined) =>
  link == null
    ? link
    : {
        offset: new URL(link).searchParams.get('page[offset]') ?? '0',
        limit: new URL(link).searchParams.get('page[limit]'),
      };

describe('paginationLinks', () => {
  test('with a total: first, prev, next and last', () => {
    const links = paginationLinks(url, { offset: 20, limit: 10 }, 10, 45);
    expect(Object.fromEntries(Object.entries(links).map(([k, v]) => [k, page(v)]))).toEqual({
      first: { offset: '0', limit: '10' },
      prev: { offset: '10', limit: '10' },
      next: { offset: '30', limit: '10' },
      last: { offset: '40', limit: '10' },
    });
  });

  test.each([
    [
      'an empty collection',
      { offset: 0, limit: 10 },
      0,
      0,
      { prev: null, next: null, last: { offset: '0', limit: '10' } },
    ],
    [
      'exactly one full page',
      { offset: 0, limit: 10 },
      10,
      10,
      { prev: null, next: null, last: { offset: '0', limit: '10' } },
    ],
    ['an offset inside the first page', { offset: 3, limit: 10 }, 10, 45, { prev: { offset: '0', limit: '10' } }],
    ['an offset past the end', { offset: 100, limit: 10 }, 0, 45, { next: null, last: { offset: '40', limit: '10' } }],
    [
      'no total, a full page',
      { offset: 0, limit: 10 },
      10,
      undefined,
      { next: { offset: '10', limit: '10' }, last: undefined },
    ],
    ['no total, a short page', { offset: 10, limit: 10 }, 4, undefined, { next: null, last: undefined }],
  ])('%s', (_, pagination, count, total, expected) => {
    const links = paginationLinks(url, pagination, count, total);
    for (const [name, value] of Object.entries(expected)) expect(page(links[name]), name).toEqual(value);
  });

  test('links keep the path, the base path and every other parameter, as valid URIs', () => {
    const { next } = paginationLinks(url, { offset: 20, limit: 10 }, 10, undefined);
    const link = new URL(next!);
    expect(link.pathname).toBe('/api/articles');
    expect(Object.fromEntries(link.searchParams)).toEqual({
      'filter[status]': 'draft',
      sort: '-title',
      'page[offset]': '30',
      'page[limit]': '10',
    });
    expect(next).not.toMatch(/[[\]]/);
  });
});
