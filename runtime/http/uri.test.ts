import { describe, expect, test } from 'vitest';
import { uriOf } from './uri.js';

describe('uriOf', () => {
  test.each([
    ['http://localhost/articles', 'http://localhost/articles'],
    ['http://localhost/articles?filter[status]=draft', 'http://localhost/articles?filter%5Bstatus%5D=draft'],
    ['http://localhost/a?x={|}^`', 'http://localhost/a?x=%7B%7C%7D%5E%60'],
    ['http://localhost/a?x=100%', 'http://localhost/a?x=100%25'],
    ['http://localhost/a?x=%5B', 'http://localhost/a?x=%5B'],
    ['http://localhost/a?x=%4', 'http://localhost/a?x=%254'],
    ['http://localhost/a?x=%zz%41&y=[1]', 'http://localhost/a?x=%25zz%41&y=%5B1%5D'],
    ['http://localhost/a?q=caf%C3%A9', 'http://localhost/a?q=caf%C3%A9'],
    ['http://localhost/a#fragment', 'http://localhost/a'],
  ])('%s becomes %s', (input, output) => {
    expect(uriOf(new URL(input))).toBe(output);
  });
});
