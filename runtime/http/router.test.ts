import { describe, expect, test } from 'vitest';
import { BadRequestError } from '../core/errors.js';
import { matchRoute } from './router.js';

describe('matchRoute', () => {
  test.each([
    ['/articles', '', { type: 'articles', linkage: false }],
    ['/articles/', '', { type: 'articles', linkage: false }],
    ['/articles/1', '', { type: 'articles', id: '1', linkage: false }],
    ['/articles/1/author', '', { type: 'articles', id: '1', relationship: 'author', linkage: false }],
    ['/articles/1/relationships/author', '', { type: 'articles', id: '1', relationship: 'author', linkage: true }],
    ['/articles/a%2Fb', '', { type: 'articles', id: 'a/b', linkage: false }],
    ['/api/articles/1', '/api', { type: 'articles', id: '1', linkage: false }],
    ['/api/v1/articles', '/api/v1', { type: 'articles', linkage: false }],
  ])('%s below %j', (path, base, route) => {
    expect(matchRoute(path, base)).toEqual(route);
  });

  test.each([
    ['/', ''],
    ['', ''],
    ['//articles', ''],
    ['/articles//author', ''],
    ['/articles/1/links/author', ''],
    ['/articles/1/relationships/author/x', ''],
    ['/articles', '/api'],
    ['/apiary/articles', '/api'],
    ['/api', '/api'],
    ['/api/', '/api'],
  ])('%s below %j matches nothing', (path, base) => {
    expect(matchRoute(path, base)).toBeNull();
  });

  test('a malformed percent-encoding is a 400', () => {
    expect(() => matchRoute('/articles/%E0%A4%A', '')).toThrow(BadRequestError);
  });
});
