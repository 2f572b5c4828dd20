import { describe, expect, test } from 'vitest';
import { BadRequestError } from '../core/errors.js';
import { checkQueryEncoding, parseQuery } from './parse.js';
import { parseSort } from '../dsl/sort-terms.js';

const parse = (search: string, allowed: string[] = []) => parseQuery(new URLSearchParams(search), new Set(allowed));

describe('parseQuery', () => {
  test('reads every JSON:API family', () => {
    const query = parse(
      'include=author,comments.author&fields[articles]=title,body&sort=-createdAt,title&filter[status]=draft&page[offset]=10&page[limit]=5',
    );
    expect(query.include).toEqual(
      new Map([
        ['author', new Map()],
        ['comments', new Map([['author', new Map()]])],
      ]),
    );
    expect(query.fields).toEqual(new Map([['articles', new Set(['title', 'body'])]]));
    expect(query.sort).toEqual([
      { name: 'createdAt', direction: 'desc' },
      { name: 'title', direction: 'asc' },
    ]);
    expect(query.filter.values).toEqual(new Map([['status', 'draft']]));
    expect(query.page).toEqual({ offset: 10, limit: 5 });
  });

  test.each([
    ['filter[x]=a', 'a'],
    ['filter[x]=a,b', 'a,b'],
    ['filter[x]=', ''],
    ['filter[x][]=a', ['a']],
    ['filter[x][]=a&filter[x][]=b', ['a', 'b']],
    ['filter%5Bx%5D%5B%5D=a&filter[x][]=b', ['a', 'b']],
  ])('%s gives the filter value %j', (search, value) => {
    expect(parse(search).filter.values.get('x')).toEqual(value);
  });

  test('nothing given is nothing parsed', () => {
    expect(parse('')).toEqual({
      include: undefined,
      fields: new Map(),
      sort: undefined,
      filter: { prefix: 'filter', values: new Map(), operators: new Map(), groups: new Map() },
      withCount: undefined,
      page: {},
    });
  });

  test.each([
    ['debug=1', 'debug'],
    ['traceId=1', 'traceId'],
    ['trace id=1', 'trace id'],
    ['_private=1', '_private'],
    ['include[a]=b', 'include[a]'],
    ['sort[a]=b', 'sort[a]'],
    ['fields=a', 'fields'],
    ['fields[a][b]=c', 'fields[a][b]'],
    ['filter=a', 'filter'],
    ['filter[]=a', 'filter[]'],
    ['filter[a][b]=c', 'filter[a][b]'],
    ['filter[a=b', 'filter[a'],
    ['page=1', 'page'],
    ['page[number]=1', 'page[number]'],
    ['sort=a&sort=b', 'sort'],
    ['page[limit]=1&page[limit]=2', 'page[limit]'],
    ['filter[x]=a&filter[x]=b', 'filter[x]'],
    ['filter[x][]=a&filter[x]=b', 'filter[x]'],
    ['filter[x]=a&filter[x][]=b', 'filter[x][]'],
    ['include=a,,b', 'include'],
    ['include=a.', 'include'],
    ['sort=-', 'sort'],
    ['sort=a,', 'sort'],
    ['page[offset]=-1', 'page[offset]'],
    ['page[limit]=0', 'page[limit]'],
    ['page[limit]=+5', 'page[limit]'],
    ['page[limit]=0x10', 'page[limit]'],
    ['page[limit]=99999999999999999999', 'page[limit]'],
  ])('%s is a 400 with source.parameter %j', (search, parameter) => {
    let thrown: unknown;
    try {
      parse(search);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BadRequestError);
    expect((thrown as BadRequestError).source).toEqual({ parameter });
  });

  test('implementation-specific names are accepted once allowed, with or without brackets', () => {
    expect(() => parse('traceId=1&traceId[deep]=2', ['traceId'])).not.toThrow();
  });

  test('an all-lowercase name stays reserved even when allowed', () => {
    expect(() => parse('debug=1', ['debug'])).toThrow(BadRequestError);
  });
});

describe('parseSort', () => {
  test.each([
    ['title', [{ name: 'title', direction: 'asc' }]],
    ['-title', [{ name: 'title', direction: 'desc' }]],
    [
      'author.name,-id',
      [
        { name: 'author.name', direction: 'asc' },
        { name: 'id', direction: 'desc' },
      ],
    ],
  ])('%s', (value, terms) => {
    expect(parseSort(value)).toEqual(terms);
  });
});

describe('checkQueryEncoding', () => {
  test.each([
    ['a bad UTF-8 sequence', '?filter[title]=%E0%A4%25A', 'filter[title]'],
    ['a non-hex escape', '?filter[title]=%zz', 'filter[title]'],
    ['a lone %', '?filter[title]=50%', 'filter[title]'],
    ['a % at the end of the name', '?filter[title%=a', 'filter[title%'],
    ['an encoded name with a bad value', '?filter%5Bname%5D=%FF&sort=name', 'filter[name]'],
    ['the second parameter', '?sort=name&page[limit]=%', 'page[limit]'],
  ])('400 for %s, naming the parameter', (_, search, parameter) => {
    let thrown: unknown;
    try {
      checkQueryEncoding(search);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BadRequestError);
    expect((thrown as BadRequestError).source).toEqual({ parameter });
  });

  test.each([
    ['?filter[title]=50%25'],
    ['?filter[title]=%C3%A9t%C3%A9+%2B'],
    ['?filter%5Btitle%5D=a'],
    ['filter[title]=%41'],
  ])('accepts %s', (search) => {
    expect(() => checkQueryEncoding(search)).not.toThrow();
  });
});
