import { describe, expect, test } from 'vitest';
import { BadRequestError } from '../core/errors.js';
import { DEFAULT_LIMITS } from '../core/limits.js';
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

describe('filter groups', () => {
  test('or items, a not and nested groups reach their clause sets, each with its prefix', () => {
    const { filter } = parse(
      'filter[or][0][status]=draft&filter[or][1][author.name]=Ada&filter[not][tags.name]=x' +
        '&filter[and][1][or][1][not][status]=draft&filter[and][0][createdAt][gte]=2024',
    );
    const or = filter.groups.get('or')!;
    expect(or.items.get('0')!.values.get('status')).toBe('draft');
    expect(or.items.get('1')!.prefix).toBe('filter[or][1]');
    const not = filter.groups.get('not')!.items.get('')!;
    expect(not.prefix).toBe('filter[not]');
    expect(not.values.get('tags.name')).toBe('x');
    const and = filter.groups.get('and')!;
    expect(and.items.get('0')!.operators.get('createdAt')).toEqual(new Map([['gte', '2024']]));
    const deep = and.items.get('1')!.groups.get('or')!.items.get('1')!.groups.get('not')!.items.get('')!;
    expect(deep.prefix).toBe('filter[and][1][or][1][not]');
    expect(deep.values.get('status')).toBe('draft');
  });

  test('items may be labelled by name as well as by index, and lists work inside groups', () => {
    const { filter } = parse(
      'filter[or][drafts][status]=draft&filter[or][mine][author][]=1&filter[or][mine][author][]=2',
    );
    expect(filter.groups.get('or')!.items.get('mine')!.values.get('author')).toEqual(['1', '2']);
    expect([...filter.groups.get('or')!.items.keys()]).toEqual(['drafts', 'mine']);
  });

  test('a number opens an and-item at any level (filter[not][0][a]&filter[not][1][b] is not (a and b))', () => {
    const { filter } = parse('filter[not][0][status]=draft&filter[not][1][title]=x');
    const items = filter.groups.get('not')!.items.get('')!.groups.get('digits')!;
    expect(items.op).toBe('and');
    expect(items.items.get('1')!.values.get('title')).toBe('x');
  });

  test.each([
    ['filter[or][][status]=draft', 'filter[or][][status]'],
    ['filter[or]=draft', 'filter[or]'],
    ['filter[or][0]=draft', 'filter[or][0]'],
    ['filter[or][0][status][eq][x]=a', 'filter[or][0][status][eq][x]'],
    ['filter[or][0][status][like]=a', 'filter[or][0][status][like]'],
    ['filter[or][0][x]=a&filter[or][0][x]=b', 'filter[or][0][x]'],
  ])('%s is a 400 naming %s', (search, parameter) => {
    expect(() => parse(search)).toThrow(BadRequestError);
    try {
      parse(search);
    } catch (error) {
      expect((error as BadRequestError).source).toEqual({ parameter });
    }
  });

  test('nesting past the depth limit is a 400 naming the parameter, at the limit it is not', () => {
    const at = (depth: number) => `filter${'[not]'.repeat(depth)}[status]=draft`;
    expect(() => parse(at(6))).not.toThrow();
    let thrown: unknown;
    try {
      parse(at(7));
    } catch (error) {
      thrown = error;
    }
    expect((thrown as BadRequestError).source).toEqual({ parameter: `filter${'[not]'.repeat(7)}[status]` });
    expect((thrown as BadRequestError).code).toBe('limit_exceeded');
  });

  test('more clauses than the limit, counted at every level, is a 400 naming the first one past it', () => {
    const clauses = (n: number) => Array.from({ length: n }, (_, i) => `filter[or][${i}][title]=t${i}`).join('&');
    expect(() => parse(clauses(32))).not.toThrow();
    let thrown: unknown;
    try {
      parse(`${clauses(31)}&filter[not][a]=1&filter[b][gte]=2`);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as BadRequestError).source).toEqual({ parameter: 'filter[b][gte]' });
    expect((thrown as BadRequestError).meta).toEqual({ limit: 32 });
  });

  test('the limits are configurable', () => {
    const limits = { ...DEFAULT_LIMITS, filterClauses: 2, filterDepth: 1 };
    const query = (search: string) => parseQuery(new URLSearchParams(search), new Set(), limits);
    expect(() => query('filter[or][0][a]=1&filter[or][1][b]=2')).not.toThrow();
    expect(() => query('filter[or][0][a]=1&filter[or][1][b]=2&filter[c]=3')).toThrow(BadRequestError);
    expect(() => query('filter[or][0][not][a]=1')).toThrow(BadRequestError);
  });
});

describe('withCount', () => {
  test('is a comma list of names, outside the reserved families', () => {
    expect(parse('withCount=comments,tags').withCount).toEqual(['comments', 'tags']);
    expect(parse('withCount=').withCount).toEqual([]);
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
