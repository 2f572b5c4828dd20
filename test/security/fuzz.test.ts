/**
 * Property-based fuzzing of the demo's API in-process (the generated `createApi` on the demo's
 * store and a seeded SQLite database, exactly as `startDemo` builds it): fast-check generates
 * methods, paths, query strings (known and unknown parameter families, prototype names, NUL,
 * invalid percent-encoding, huge numbers) and bodies (arbitrary JSON, JSON:API-shaped documents
 * with hostile member names, Atomic Operations, raw bytes), as anonymous or signed-in users.
 *
 * Properties, for every request: the status is below 500 and `onError` never fires; a 4xx
 * carries a JSON:API errors document whose error statuses agree; a 4xx leaves every table as
 * it was; after the run, Object.prototype is untouched. Bounded and reproducible: 200 runs
 * per property, fixed seeds, a time limit.
 */
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atomic, type JsonApi } from 'jsonapi-gen';
import { kyselyTransaction } from '@jsonapi-gen/kysely';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { userOf } from '../../examples/blog/server.js';
import { documentErrors } from '../support/validate.js';
import { dump } from './support.js';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = `${JSONAPI}; ext="https://jsonapi.org/ext/atomic"`;
const RUNS = 200;

const hostileNames = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  "a'b",
  'a"b',
  'a;b',
  'x; DROP TABLE articles',
  '',
  ' ',
  '\u0000',
  'ä',
  '😀',
  '[',
  ']',
  '.',
  '..',
  '-',
  ',',
];
const typeNames = ['articles', 'people', 'comments', 'tags', 'operations', ...hostileNames];
const fieldNames = [
  'title',
  'body',
  'status',
  'createdAt',
  'author',
  'comments',
  'tags',
  'articles',
  'name',
  'email',
  'article',
  'search',
  'id',
  'type',
  ...hostileNames,
];

/** A name: mostly from the vocabularies, sometimes anything. */
const name = (vocabulary: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...vocabulary) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );

/** A value: ids, numbers at the edges, names, anything. */
const value = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '0',
    '-1',
    '-5',
    '1e99',
    'abc',
    '',
    '9007199254740993',
    '99999999999999999999',
    'NaN',
    'draft',
    'published',
    '%00',
    '%FF',
    '%',
    "1' OR '1'='1",
  ),
  fc.integer({ min: -10, max: 200 }).map(String),
  name(fieldNames),
  fc.array(name(fieldNames), { maxLength: 6 }).map((names) => names.join(',')),
  fc.array(name(fieldNames), { maxLength: 6 }).map((names) => names.join('.')),
  fc.string({ maxLength: 20 }),
);

/** A query string: JSON:API families with any brackets, other names, repeats, raw percent escapes. */
const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('include', 'sort', 'page[limit]', 'page[offset]', 'page[size]', 'page', 'fields', 'filter'),
        name(typeNames).map((t) => `fields[${t}]`),
        name(fieldNames).map((f) => `filter[${f}]`),
        name(fieldNames).map((f) => `filter[${f}][]`),
        name(fieldNames).map((f) => `filter[${f}][x]`),
        name(hostileNames),
        fc.string({ maxLength: 10 }),
      ),
      value,
      fc.boolean(),
    ),
    { maxLength: 6 },
  )
  .map((pairs) =>
    pairs
      .map(([key, v, encode]) => {
        // Raw `%XX` escapes stay raw (NUL, invalid UTF-8); everything else is encoded or sent as is.
        const enc = (s: string) =>
          encode ? encodeURIComponent(s) : s.replace(/[#&= ]/g, (c) => encodeURIComponent(c));
        return `${enc(key)}=${enc(v)}`;
      })
      .join('&'),
  );

const segment = fc.oneof(
  fc.constantFrom('1', '2', '3', '999', '0', '-1', 'abc', '%00', '%FF', '..%2F1', 'relationships'),
  name(fieldNames).map(encodeURIComponent),
);
const path = fc.oneof(
  fc.constantFrom('/articles', '/people', '/comments', '/tags', '/operations', '/'),
  fc.tuple(name(typeNames), segment).map(([t, id]) => `/${encodeURIComponent(t)}/${id}`),
  fc
    .tuple(name(typeNames), segment, name(fieldNames))
    .map(([t, id, r]) => `/${encodeURIComponent(t)}/${id}/${encodeURIComponent(r)}`),
  fc
    .tuple(name(typeNames), segment, name(fieldNames))
    .map(([t, id, r]) => `/${encodeURIComponent(t)}/${id}/relationships/${encodeURIComponent(r)}`),
);

const identifier = fc.record(
  { type: name(typeNames), id: fc.oneof(value, fc.integer(), fc.constant(null)) },
  { requiredKeys: [] },
);
const members = fc.dictionary(name(fieldNames), fc.oneof(fc.jsonValue({ maxDepth: 2 }), value), { maxKeys: 5 });
const resource = fc.record(
  {
    type: name(typeNames),
    id: fc.oneof(value, fc.integer()),
    lid: fc.string({ maxLength: 4 }),
    attributes: fc.oneof(members, fc.jsonValue({ maxDepth: 2 })),
    relationships: fc.oneof(
      fc.dictionary(
        name(fieldNames),
        fc.record(
          { data: fc.oneof(identifier, fc.array(identifier, { maxLength: 4 }), fc.constant(null)) },
          { requiredKeys: [] },
        ),
        { maxKeys: 3 },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    meta: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);
const operation = fc.record(
  {
    op: fc.oneof(fc.constantFrom('add', 'update', 'remove'), fc.string({ maxLength: 5 })),
    ref: fc.record(
      { type: name(typeNames), id: value, lid: fc.string({ maxLength: 4 }), relationship: name(fieldNames) },
      { requiredKeys: [] },
    ),
    href: path,
    data: fc.oneof(resource, fc.array(identifier, { maxLength: 3 }), identifier, fc.constant(null)),
  },
  { requiredKeys: [] },
);

/** Nearly valid: a known type with its own field names, values of any kind, ids that may exist. */
const attributeValue = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('draft', 'published', 'Caching in practice, part 4', 'databases'),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.jsonValue({ maxDepth: 1 }),
);
const knownId = fc.oneof(fc.integer({ min: 1, max: 12 }).map(String), fc.constantFrom('999', 'x', '0'));
const nearlyValid = fc
  .record({
    type: fc.constantFrom('articles', 'comments', 'tags', 'people'),
    id: fc.option(knownId, { nil: undefined }),
    attributes: fc.dictionary(
      fc.constantFrom('title', 'body', 'status', 'name', 'email', 'createdAt', 'id'),
      attributeValue,
      { maxKeys: 4 },
    ),
    author: fc.option(fc.record({ type: fc.constantFrom('people', 'tags'), id: knownId }), { nil: undefined }),
    article: fc.option(fc.record({ type: fc.constant('articles'), id: knownId }), { nil: undefined }),
    tags: fc.option(fc.array(fc.record({ type: fc.constantFrom('tags', 'articles'), id: knownId }), { maxLength: 4 }), {
      nil: undefined,
    }),
  })
  .map(({ type, id, attributes, author, article, tags }) => {
    const relationships: Record<string, unknown> = {};
    if (author) relationships.author = { data: author };
    if (article) relationships.article = { data: article };
    if (tags) relationships.tags = { data: tags };
    return { type, ...(id !== undefined && { id }), attributes, relationships };
  });

/** A body: nothing, JSON:API-shaped, operations, any JSON, or raw text and bytes. */
const body = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: nearlyValid.map((data) => JSON.stringify({ data })) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.record({ op: fc.constantFrom('add', 'update', 'remove'), data: nearlyValid }), {
        minLength: 1,
        maxLength: 3,
      })
      .map((ops) => JSON.stringify({ 'atomic:operations': ops })),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.record({ type: fc.constantFrom('tags', 'articles'), id: knownId }), { maxLength: 5 })
      .map((data) => JSON.stringify({ data })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record(
        { data: fc.oneof(resource, fc.array(identifier, { maxLength: 4 }), identifier, fc.constant(null)) },
        { requiredKeys: [] },
      )
      .map((d) => JSON.stringify(d)),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ 'atomic:operations': fc.array(operation, { maxLength: 4 }) }, { requiredKeys: [] })
      .map((d) => JSON.stringify(d)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((d) => JSON.stringify(d)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  // A prototype member spelled literally (JSON.stringify would not write one).
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"data":{"type":"tags","attributes":{"__proto__":{"polluted":1},"name":"p"}}}',
      '{"__proto__":{"polluted":1}}',
      '{"atomic:operations":[{"op":"add","data":{"type":"tags","attributes":{"name":"q","constructor":{"prototype":{"polluted":1}}}}}]}',
    ),
  },
);

const request = fc.record({
  method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'),
  path,
  query: queryString,
  body,
  contentType: fc.constantFrom(JSONAPI, JSONAPI, ATOMIC, 'application/json', undefined, `${JSONAPI}; charset=utf-8`),
  user: fc.constantFrom(undefined, '1', '2', '999', 'abc', ' '),
});

describe('fuzzing the demo API', () => {
  let database: OpenDatabase;
  let api: JsonApi;
  const unexpected: unknown[] = [];
  /** Statuses seen, to show the runs reach past the first check. */
  const seen = new Map<number, number>();
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    database = openDatabase();
    await migrate(database.db, database.dialect);
    await seed(database.db, 10);
    // As startDemo builds it, with onError recording instead of logging.
    api = createApi(createStore(database.db), {
      transaction: kyselyTransaction(database.db),
      extensions: [atomic()],
      onError: (e) => unexpected.push(e),
    });
  });
  afterAll(async () => {
    await database?.close();
  });

  /** Serves one generated request as the demo does; returns status and body text. */
  async function serve(r: any): Promise<{ status: number; text: string }> {
    const headers = new Headers();
    if (r.contentType !== undefined) headers.set('content-type', r.contentType);
    if (r.user !== undefined) headers.set('authorization', `Bearer ${r.user}`);
    let url: string;
    try {
      url = new URL(`http://localhost${r.path}${r.query ? `?${r.query}` : ''}`).href;
    } catch {
      url = 'http://localhost/';
    }
    const init: RequestInit = { method: r.method, headers };
    if (r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD') init.body = r.body;
    const incoming = new Request(url, init);
    const user = userOf(incoming.headers.get('authorization'));
    const response = await api.fetch(incoming, { attributes: user === undefined ? {} : { user } });
    return { status: response.status, text: await response.text() };
  }

  const check = async (r: any) => {
    const before = await dump(database.db);
    const { status, text } = await serve(r);
    seen.set(status, (seen.get(status) ?? 0) + 1);
    expect(status, `${r.method} ${r.path}?${r.query}: ${text.slice(0, 300)}`).toBeLessThan(500);
    expect(unexpected).toEqual([]);
    if (status >= 400) {
      if (r.method !== 'HEAD') {
        const document = JSON.parse(text);
        expect(documentErrors(document), text).toEqual([]);
        expect(document.errors.length).toBeGreaterThan(0);
        const classes = new Set(document.errors.map((e: { status: string }) => e.status[0]));
        expect([...classes], text).toEqual([String(status)[0]]);
      }
      expect(await dump(database.db), `${r.method} ${r.path} wrote though it answered ${status}`).toBe(before);
    }
  };

  it(
    'any request: below 500, a valid errors document on 4xx, nothing written on 4xx',
    { timeout: 120_000 },
    async () => {
      await fc.assert(fc.asyncProperty(request, check), {
        numRuns: RUNS,
        seed: 0x5eed,
        interruptAfterTimeLimit: 90_000,
        markInterruptAsFailure: false,
      });
    },
  );

  it('query strings on every read endpoint: below 500, valid documents', { timeout: 120_000 }, async () => {
    const reads = fc.record({
      method: fc.constant('GET'),
      path: fc.constantFrom(
        '/articles',
        '/people',
        '/comments',
        '/tags',
        '/articles/1',
        '/people/1/articles',
        '/articles/2/relationships/tags',
        '/comments/1/article',
        '/tags/1/articles',
      ),
      query: queryString,
      body: fc.constant(undefined),
      contentType: fc.constant(undefined),
      user: fc.constantFrom(undefined, '1'),
    });
    await fc.assert(
      fc.asyncProperty(reads, async (r) => {
        await check(r);
        const { status, text } = await serve(r);
        if (status < 400) expect(documentErrors(JSON.parse(text)), text).toEqual([]);
      }),
      { numRuns: RUNS, seed: 0xbad, interruptAfterTimeLimit: 90_000, markInterruptAsFailure: false },
    );
  });

  it('bodies on every write endpoint, signed in: below 500, nothing written on 4xx', { timeout: 120_000 }, async () => {
    const writes = fc
      .record({
        method: fc.constantFrom('POST', 'PATCH', 'DELETE'),
        path: fc.constantFrom(
          '/articles',
          '/comments',
          '/tags',
          '/people',
          '/articles/1',
          '/comments/2',
          '/tags/3',
          '/people/1',
          '/articles/1/relationships/tags',
          '/comments/2/relationships/article',
          '/operations',
        ),
        query: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString }),
        body,
        contentType: fc.constant(undefined as string | undefined),
        user: fc.constantFrom('1', '2'),
      })
      .map((r) => ({ ...r, contentType: r.path === '/operations' ? ATOMIC : JSONAPI }));
    // Create and update requests whose document matches the endpoint's type and id, so that they
    // reach field validation, linkage checks and the database.
    const targeted = fc
      .tuple(
        fc.constantFrom('articles', 'comments', 'tags', 'people'),
        fc.boolean(),
        knownId,
        nearlyValid,
        fc.constantFrom('1', '2'),
      )
      .map(([type, create, id, data, user]) => ({
        method: create ? 'POST' : 'PATCH',
        path: create ? `/${type}` : `/${type}/${id}`,
        query: '',
        body: JSON.stringify({ data: create ? { ...data, type, id: undefined } : { ...data, type, id } }),
        contentType: JSONAPI,
        user,
      }));
    await fc.assert(fc.asyncProperty(fc.oneof(writes, targeted), check), {
      numRuns: RUNS,
      seed: 0xf00d,
      interruptAfterTimeLimit: 90_000,
      markInterruptAsFailure: false,
    });
  });

  it('the runs were not vacuous: successes, writes and many kinds of refusal', () => {
    const statuses = [...seen.keys()];
    expect(statuses).toContain(200);
    expect(statuses.some((s) => s === 201 || s === 204)).toBe(true);
    for (const status of [400, 403, 404, 405, 409, 415, 422]) expect(statuses, String(status)).toContain(status);
  });

  it('Object.prototype is untouched', () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
