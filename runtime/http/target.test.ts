import { describe, expect, it } from 'vitest';
import { parseTarget } from './target.js';

/** Request URLs as adapters hand them over: raw paths and Host headers included. */
const HREFS = [
  'http://localhost/articles',
  'http://127.0.0.1:3000/articles/1',
  'https://api.example.com/v1/articles?include=author,tags&page[limit]=20',
  'http://localhost/articles?',
  'http://localhost/articles?filter[title]=a%20b&sort=-createdAt',
  'http://localhost/articles?q=caf%C3%A9&x={|}^`',
  "http://localhost/articles?q=it's",
  'http://localhost/articles?q=a b',
  'http://localhost/articles#fragment',
  'http://localhost/articles?x=1#fragment',
  'http://localhost/a/./b',
  'http://localhost/a/../b',
  'http://localhost/a/%2e%2E/b',
  'http://localhost/a/.hidden',
  'http://localhost/articles/caf%C3%A9',
  'http://localhost/articles/café',
  'http://localhost/a\\b',
  'http://localhost/a b',
  'http://localhost/a"b',
  'http://localhost/a`b{c}',
  "http://localhost/a'b",
  'http://localhost/a\tb',
  'http://localhost',
  'http://LOCALHOST:80/articles',
  'https://localhost:443/articles',
  'http://user:pass@localhost/articles',
  'http://127.1/articles',
  'http://[::1]:3000/articles',
  'http://xn--caf-dma.example/articles',
  'http://café.example/articles',
  'http://ho\tst/articles',
  'http://localhost?x=/y',
  'http://localhost#x/y',
  'HTTP://localhost/articles',
  'ftp://localhost/articles',
  'http://localhost//double//slash/',
  'http://localhost/articles?page[offset]=20&page[limit]=10&fields[articles]=title',
];

describe('parseTarget', () => {
  it.each(HREFS)('gives what URL gives for %s', (href) => {
    const url = new URL(href);
    const target = parseTarget(href);
    expect({
      origin: target.origin,
      pathname: target.pathname,
      search: target.search,
      params: [...target.searchParams],
    }).toEqual({
      origin: url.origin,
      pathname: url.pathname,
      search: url.search,
      params: [...url.searchParams],
    });
  });

  it('reads the common URL without the URL parser, and leaves the rest to it', () => {
    expect(parseTarget('http://127.0.0.1:3000/articles/1?include=author')).not.toBeInstanceOf(URL);
    expect(parseTarget('http://127.0.0.1:3000/articles/../1')).toBeInstanceOf(URL);
    expect(parseTarget('http://LOCALHOST:80/articles')).not.toBeInstanceOf(URL);
    expect(parseTarget('http://localhost/articles?q=a b')).toBeInstanceOf(URL);
  });

  it('throws as URL does on what is not a URL', () => {
    expect(() => parseTarget('http://exa mple/articles')).toThrow(TypeError);
    expect(() => parseTarget('not a url')).toThrow(TypeError);
  });
});
