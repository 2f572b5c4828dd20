import { describe, expect, it } from 'vitest';
import { Attribute, Show, ToOne, defineResource } from 'jsonapi-gen';
import { Context } from '../dsl/context.js';
import { DocumentBuilder } from './builder.js';
import type { TopLevelDocument } from '../core/vocabulary.js';
import { BuiltResource, documentJson } from './serialize.js';
import { RegisteredResource } from '../registry/registry.js';

/** A resource object as the builder makes one. */
function built(
  type: string,
  id: string,
  attributes?: Record<string, unknown>,
  relationships?: BuiltResource['relationships'],
): BuiltResource {
  const resource = new BuiltResource(type, id);
  if (attributes) resource.attributes = attributes;
  if (relationships) resource.relationships = relationships;
  resource.links = { self: `http://h/${type}/${id}` };
  return resource;
}

/** Strings JSON.stringify escapes or must keep as they are. */
const STRINGS = [
  '',
  'plain',
  'a "quoted" word',
  'back\\slash',
  'line\nbreak\ttab\r\u0000\u001f\u007f',
  '\u2028\u2029 separators',
  'emoji 😀 pair',
  'lone \ud800 high',
  'lone \udfff low',
  'reversed \udc00\ud800',
  'é ü 日本',
];

const VALUES: unknown[] = [
  ...STRINGS,
  0,
  -0,
  1.5,
  1e21,
  5e-324,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
  undefined,
  () => 1,
  Symbol('s'),
  new Date(Date.UTC(2024, 0, 5, 4)),
  [1, undefined, 'x"y', () => 1, null, [new Date(0)]],
  { nested: { deeper: 'a\\b', skip: undefined }, list: [] },
  Object.assign(Object.create(null) as object, { bare: 'no prototype' }),
  { toJSON: (key: string) => `under ${key}` },
  { toJSON: () => undefined },
  { toJSON: () => ({ made: 'by toJSON' }) },
  { toJSON: () => ({ toJSON: () => 'not called again', kept: 1 }) },
  [{ toJSON: (key: string) => `at ${key}` }],
  new (class Point {
    x = 1;
    y = 'two';
  })(),
  Object.assign(new String('boxed'), { extra: 1 }),
  new Number(7),
  JSON.parse('{"__proto__": "own", "ok": 1}'),
];

describe('documentJson', () => {
  it('writes what JSON.stringify writes, for every kind of attribute value', () => {
    VALUES.forEach((value, i) => {
      const document: TopLevelDocument = {
        jsonapi: { version: '1.1' },
        data: built('articles', '1', { value, after: 'x' }),
      };
      expect(documentJson(document), `value ${i}`).toBe(JSON.stringify(document));
    });
  });

  it("writes what JSON.stringify writes, for strings anywhere in the builder's objects", () => {
    for (const text of STRINGS) {
      const relationships = {
        [text || 'empty']: { links: { self: `s${text}`, related: `r${text}` }, data: [{ type: text, id: text }] },
        one: { links: { self: 's', related: 'r' }, data: { type: 'people', id: text } },
        none: { links: { self: 's', related: 'r' }, data: null },
        unloaded: { links: { self: 's', related: 'r' } },
      };
      const resource = built(text, text, { [text]: text }, relationships);
      resource.links = { self: text };
      const document: TopLevelDocument = {
        jsonapi: { version: '1.1' },
        links: { self: text, next: null },
        data: [resource],
        included: [resource],
        meta: { [text]: [text] },
      };
      expect(documentJson(document)).toBe(JSON.stringify(document));
    }
  });

  it('writes what JSON.stringify writes for documents of other shapes', () => {
    const documents: unknown[] = [
      { jsonapi: { version: '1.1' }, data: null },
      { jsonapi: { version: '1.1' }, data: [] },
      {
        jsonapi: { version: '1.1' },
        data: [
          { type: 'tags', id: '1' },
          { type: 'tags', id: '2', meta: { n: 1 } },
        ],
        links: { self: 'x' },
      },
      { jsonapi: { version: '1.1' }, data: { type: 'tags', id: '1' } },
      { jsonapi: { version: '1.1' }, errors: [{ status: '400', source: { parameter: 'include' } }] },
      { jsonapi: { version: '1.1' }, meta: { total: 3, skipped: undefined }, data: [built('tags', '1'), undefined] },
      {
        jsonapi: { version: '1.1' },
        data: built('tags', '1', Object.assign(Object.create(null) as object, { name: 'bare' })),
      },
      { jsonapi: { version: '1.1' }, data: built('tags', '1', { toJSON: () => ({ replaced: true }) }) },
      {
        jsonapi: { version: '1.1' },
        data: [{ toJSON: (key: string) => `at ${key}` }, { toJSON: () => undefined }],
        meta: { toJSON: (key: string) => key },
      },
      {},
    ];
    for (const document of documents) expect(documentJson(document as TopLevelDocument)).toBe(JSON.stringify(document));
  });

  it('keeps the order members were set in, and leaves out what JSON.stringify leaves out', () => {
    const resource = built('articles', '1', { b: 1, a: undefined, c: () => 1, 2: 'index first' });
    expect(documentJson({ jsonapi: { version: '1.1' }, data: resource })).toBe(
      '{"jsonapi":{"version":"1.1"},"data":{"type":"articles","id":"1","attributes":{"2":"index first","b":1},"links":{"self":"http://h/articles/1"}}}',
    );
  });

  it('throws on a bigint, as JSON.stringify does', () => {
    const document: TopLevelDocument = { jsonapi: { version: '1.1' }, data: built('articles', '1', { big: 1n }) };
    expect(() => JSON.stringify(document)).toThrow(TypeError);
    expect(() => documentJson(document)).toThrow(TypeError);
  });

  it('writes links unlooked only when the builder vouches for their parts', () => {
    const articles = new RegisteredResource({
      ...defineResource({
        type: 'articles',
        fields: [Attribute.make('title'), ToOne.make('author').type('people')],
        endpoints: [Show.make()],
      }),
      find: () => undefined,
      loadRelated: () => [],
    });
    const context = new Context(new Request('http://h/'));
    for (const base of ['http://h', 'http://h/a"b\\c', 'http://h/\ud800']) {
      const builder = new DocumentBuilder(context, () => articles, base, new Map());
      const document: TopLevelDocument = {
        jsonapi: { version: '1.1' },
        data: builder.serialize(articles, { id: 'x"1', title: 'a\nb' }),
      };
      expect(documentJson(document), base).toBe(JSON.stringify(document));
    }
    // Vouched for: written as they are (what JSON.stringify writes for plain links).
    const vouched = new BuiltResource('articles', '1', true);
    vouched.links = { self: 'http://h/articles/1' };
    expect(documentJson({ jsonapi: { version: '1.1' }, data: vouched })).toBe(
      JSON.stringify({ jsonapi: { version: '1.1' }, data: vouched }),
    );
  });
});
