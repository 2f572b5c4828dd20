import { describe, expect, test } from 'vitest';
import { documentErrors, json } from '../support/validate.js';

// The validator the whole suite leans on must itself reject what the spec rejects.
describe('test/support/validate', () => {
  test.each([
    ['a null primary data', { jsonapi: { version: '1.1' }, data: null }],
    [
      'a resource object',
      { data: { type: 'tags', id: '1', attributes: { name: 'x' }, links: { self: 'http://localhost/tags/1' } } },
    ],
    ['an errors document', { errors: [{ status: '404', title: 'Not Found' }] }],
  ])('accepts %s', (_, document) => {
    expect(documentErrors(document)).toEqual([]);
  });

  test.each([
    ['no top-level member', {}],
    ['data and errors together', { data: null, errors: [{ status: '400' }] }],
    ['a scalar as data', { data: 1 }],
    ['a link that is not a URI', { data: { type: 'tags', id: '1', links: { self: 'not a uri' } } }],
    ['included without data', { included: [], meta: {} }],
    ['an unknown top-level member', { data: null, extra: 1 }],
  ])('rejects %s', (_, document) => {
    expect(documentErrors(document)).not.toEqual([]);
  });

  test('json() insists on the JSON:API media type', async () => {
    const response = new Response('{"data":null}', { headers: { 'content-type': 'application/json' } });
    await expect(json(response)).rejects.toThrow(/Content-Type/);
  });
});
