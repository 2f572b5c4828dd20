/**
 * Hostile input against the demo over HTTP (SQLite): malformed, truncated, non-object, deeply
 * nested and oversized bodies; wrong Content-Type and lying Content-Length (raw sockets, as
 * fetch will not lie); include 1,000 deep and with 10,000 paths; absurd page numbers;
 * prototype, quote, semicolon and SQL names for sort, filter, fields and include; NUL and
 * invalid UTF-8 in paths and parameters; ids with `../`; repeated parameters; 10,000 Atomic
 * Operations.
 *
 * Every one gets a 4xx JSON:API errors document (validated against the JSON:API schema) with
 * the status named here, within seconds; none is a 5xx; the database is byte-for-byte what it
 * was; Object.prototype is untouched. The exceptions are requests Node's HTTP parser refuses
 * before any application code runs (raw bytes that are not HTTP, a Content-Length that
 * contradicts the body, a URL longer than Node's 16 KiB header limit): Node answers those with
 * a bare 400 or 431 itself, which is asserted as such; the same requests made in-process get
 * the runtime's JSON:API answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atomic } from 'jsonapi-gen';
import { kyselyTransaction } from '@jsonapi-gen/kysely';
import { openDatabase } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { createStore } from '../../examples/blog/store.js';
import { json } from '../support/validate.js';
import { rawRequest } from './support.js';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = `${JSONAPI}; ext="https://jsonapi.org/ext/atomic"`;
const MiB = 1024 * 1024;

const NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  "a'b",
  'a"b',
  'a;b',
  "x'; DROP TABLE articles; --",
  '1 OR 1=1',
  'title--',
  'title;',
  '`title`',
  'articles.title',
  '$where',
];

/** Every table of a SQLite file, as one string. */
function dumpFile(file: string): string {
  const db = new SQLite(file, { readonly: true });
  try {
    return JSON.stringify(
      ['people', 'articles', 'comments', 'tags', 'article_tags'].map((t) =>
        db.prepare(`select * from ${t} order by rowid`).all(),
      ),
    );
  } finally {
    db.close();
  }
}

describe('hostile input against the demo over HTTP', () => {
  let dir: string;
  let file: string;
  let demo: Demo;
  let host: string;
  let before: string;
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-hostile-'));
    file = join(dir, 'blog.sqlite');
    demo = await startDemo({ port: 0, db: file, seed: 30, databaseUrl: null });
    host = new URL(demo.url).host;
    before = dumpFile(file);
  });
  afterAll(async () => {
    await demo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A request through fetch; asserts a 4xx JSON:API errors document with `status`. */
  async function refused(status: number, path: string, init: RequestInit & { user?: string } = {}): Promise<any> {
    const headers = new Headers(init.headers);
    if (init.user !== undefined) headers.set('authorization', `Bearer ${init.user}`);
    const response = await fetch(`${demo.url}${path}`, { ...init, headers, signal: AbortSignal.timeout(10_000) });
    expect(
      response.status,
      `${init.method ?? 'GET'} ${path.slice(0, 120)} (Content-Type: ${headers.get('content-type')})`,
    ).toBe(status);
    const document = await json(response);
    expect(document.errors?.length, 'an errors document').toBeGreaterThan(0);
    for (const error of document.errors) expect(error.status).toBe(String(status));
    return document;
  }

  /** `contentType: null` sends none (fetch then labels a string body text/plain; a byte body goes unlabelled). */
  const send = (
    method: string,
    path: string,
    body: string | Uint8Array,
    contentType: string | null = JSONAPI,
    user = '1',
  ) =>
    ({ method, body, user, headers: contentType === null ? {} : { 'content-type': contentType } }) as RequestInit & {
      user: string;
    };

  /** A raw HTTP/1.1 request with a body; `Connection: close` unless told. */
  const raw = (head: string, body: string | Buffer = '', options?: { halfClose?: boolean; timeoutMs?: number }) =>
    rawRequest(
      demo.url,
      Buffer.concat([
        Buffer.from(`${head.replace('{host}', host)}\r\n\r\n`, 'latin1'),
        Buffer.isBuffer(body) ? body : Buffer.from(body),
      ]),
      options,
    );

  const article = (attributes: Record<string, unknown> = { title: 'x' }) => ({
    data: { type: 'articles', attributes, relationships: { author: { data: { type: 'people', id: '1' } } } },
  });

  describe('request bodies', () => {
    const bodies: Array<[string, string, number]> = [
      ['truncated JSON', '{"data":{"type":"articles","attributes":{"title":"x"', 400],
      ['a lone brace', '{', 400],
      ['not JSON', 'data=1&type=articles', 400],
      ['empty', '', 400],
      ['whitespace', ' \n\t ', 400],
      ['an array', '[]', 400],
      ['a string', '"articles"', 400],
      ['a number', '1e999', 400],
      ['null', 'null', 400],
      ['true', 'true', 400],
      ['data null', '{"data":null}', 400],
      ['data an array', '{"data":[]}', 400],
      ['data a string', '{"data":"x"}', 400],
      ['a NUL', '{"data":\u0000}', 400],
      ['trailing garbage', `${JSON.stringify(article())}xyz`, 400],
      ['two documents', `${JSON.stringify(article())}${JSON.stringify(article())}`, 400],
      ['an unknown top-level member', '{"data":{"type":"articles"},"sql":"DROP TABLE articles"}', 400],
      ['a __proto__ member', '{"__proto__":{"polluted":true},"data":{"type":"articles"}}', 400],
      [
        '__proto__ as an attribute',
        JSON.stringify({
          data: {
            type: 'articles',
            attributes: JSON.parse('{"__proto__":{"polluted":true},"title":"x"}'),
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        }),
        422,
      ],
      [
        'constructor as an attribute',
        JSON.stringify(article({ title: 'x', constructor: { prototype: { polluted: true } } })),
        422,
      ],
      [
        '__proto__ as a relationship',
        '{"data":{"type":"articles","attributes":{"title":"x"},"relationships":{"__proto__":{"data":{"type":"people","id":"1"}},"author":{"data":{"type":"people","id":"1"}}}}}',
        422,
      ],
      ['a wrong type', JSON.stringify({ data: { type: '__proto__', attributes: { title: 'x' } } }), 409],
      ['an attribute of the wrong kind', JSON.stringify(article({ title: { $ne: null } })), 422],
      ['an enum outside its values', JSON.stringify(article({ title: 'x', status: "published' OR 1=1 --" })), 422],
      [
        'a relationship id with ../',
        JSON.stringify({
          data: {
            type: 'articles',
            attributes: { title: 'x' },
            relationships: { author: { data: { type: 'people', id: '../1' } } },
          },
        }),
        404,
      ],
      [
        'a relationship id with SQL',
        JSON.stringify({
          data: {
            type: 'articles',
            attributes: { title: 'x' },
            relationships: { author: { data: { type: 'people', id: '1 OR 1=1' } } },
          },
        }),
        404,
      ],
      [
        'a relationship id that is a number',
        JSON.stringify({
          data: {
            type: 'articles',
            attributes: { title: 'x' },
            relationships: { author: { data: { type: 'people', id: 1 } } },
          },
        }),
        400,
      ],
      [
        'a client-generated id',
        JSON.stringify({
          data: {
            type: 'articles',
            id: '999',
            attributes: { title: 'x' },
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        }),
        403,
      ],
      ['arrays nested 100,000 deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 400],
      ['objects nested 10,000 deep', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, 400],
      [
        'nesting hidden in an attribute',
        JSON.stringify(article({ title: JSON.parse(`${'['.repeat(40)}1${']'.repeat(40)}`) })),
        400,
      ],
    ];
    it.each(bodies)('POST /articles with %s: %i', async (_, body, status) => {
      await refused(status, '/articles', send('POST', '/articles', body));
    });
    it.each(bodies.filter(([, , status]) => status === 400))(
      'PATCH /articles/1 and POST /operations with %s: 400',
      async (_, body) => {
        await refused(400, '/articles/1', send('PATCH', '/articles/1', body));
        await refused(400, '/operations', send('POST', '/operations', body, ATOMIC));
      },
    );

    it('invalid UTF-8 in a body: 400', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"data":{"type":"articles","attributes":{"title":"'),
        Buffer.from([0xff, 0xfe, 0xc0, 0xaf]),
        Buffer.from('"}}}'),
      ]);
      await refused(400, '/articles', send('POST', '/articles', new Uint8Array(bytes)));
    });

    it('wrong Content-Type: 415, whatever the body', async () => {
      for (const type of [
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        `${JSONAPI}; charset=utf-8`,
        `${JSONAPI}; ext="https://example.com/unknown"`,
        `${JSONAPI}; profile="x"; foo=bar`,
        'application/vnd.api+jsonx',
        ';;;',
        '"',
        `text/html, ${JSONAPI}`,
      ]) {
        await refused(415, '/articles', send('POST', '/articles', JSON.stringify(article()), type));
      }
      await refused(
        415,
        '/articles',
        send('POST', '/articles', new TextEncoder().encode(JSON.stringify(article())), null),
      );
      await refused(
        415,
        '/operations',
        send('POST', '/operations', JSON.stringify({ 'atomic:operations': [] }), JSONAPI),
      );
    });

    it('a body over the limit: 413, from Content-Length or while streaming (chunked)', async () => {
      const big = `{"data":{"type":"articles","attributes":{"title":"${'x'.repeat(MiB)}"}}}`;
      // Connection: close: after a 413 the server closes the connection anyway.
      const declared = await raw(
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nContent-Type: ${JSONAPI}\r\nContent-Length: ${Buffer.byteLength(big)}\r\nConnection: close`,
        big,
      );
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body).errors[0]).toMatchObject({
        status: '413',
        code: 'limit_exceeded',
        meta: { limit: MiB },
      });
      const chunk = 'x'.repeat(0x40000);
      const chunked = await raw(
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nContent-Type: ${JSONAPI}\r\nTransfer-Encoding: chunked\r\nConnection: close`,
        `${`40000\r\n${chunk}\r\n`.repeat(6)}0\r\n\r\n`,
      );
      expect(chunked.status).toBe(413);
      expect(chunked.headers['content-type']).toBe(JSONAPI);
      const lying = await raw(
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nContent-Type: ${JSONAPI}\r\nContent-Length: 99999999999\r\nConnection: close`,
        '{"data":1}',
      );
      expect(lying.status).toBe(413);
      const operations = await raw(
        `POST /operations HTTP/1.1\r\nHost: {host}\r\nContent-Type: ${ATOMIC}\r\nContent-Length: ${MiB + 1}\r\nConnection: close`,
        'x',
      );
      expect(operations.status).toBe(413);
    });

    it('Content-Length that contradicts the body, or is not a length: Node refuses it (bare 400), nothing is written', async () => {
      const body = JSON.stringify(article());
      const heads = [
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer 1\r\nContent-Type: ${JSONAPI}\r\nContent-Length: 5\r\nConnection: close`, // shorter: the rest is a bad request line
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer 1\r\nContent-Type: ${JSONAPI}\r\nContent-Length: abc\r\nConnection: close`,
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer 1\r\nContent-Type: ${JSONAPI}\r\nContent-Length: -1\r\nConnection: close`,
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer 1\r\nContent-Type: ${JSONAPI}\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close`,
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer 1\r\nContent-Type: ${JSONAPI}\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\nConnection: close`,
      ];
      for (const head of heads) {
        const response = await raw(head, body);
        expect(response.status, head).toBe(400);
      }
      // Longer than the body, then the client gives up: Node answers 400 for the incomplete message.
      const gaveUp = await raw(
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer 1\r\nContent-Type: ${JSONAPI}\r\nContent-Length: ${body.length + 100}`,
        body,
        { halfClose: true },
      );
      expect(gaveUp.status).toBe(400);
    });

    it('Content-Length longer than the body, connection left open: the server waits for that client only', async () => {
      const body = JSON.stringify(article());
      // Its outcome is taken at once: on a busy machine the timeout may fire before the fetch below returns.
      const stalled = raw(
        `POST /articles HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer 1\r\nContent-Type: ${JSONAPI}\r\nContent-Length: ${body.length + 100}`,
        body,
        { timeoutMs: 1000 },
      ).then(
        (answer) => `answered ${answer.status}`,
        (error: Error) => error.message,
      );
      // Everyone else is served meanwhile.
      const other = await fetch(`${demo.url}/articles?page[limit]=1`, { signal: AbortSignal.timeout(5000) });
      expect(other.status).toBe(200);
      expect(await stalled).toMatch(/no complete response/);
    });
  });

  describe('query parameters', () => {
    it('include 1,000 relationships deep, and more paths than allowed: 400 limit_exceeded', async () => {
      const deep = await refused(400, `/articles?include=${Array(1000).fill('author').join('.')}`);
      expect(deep.errors[0]).toMatchObject({ code: 'limit_exceeded', source: { parameter: 'include' } });
      const wide = await refused(400, `/articles?include=${Array(21).fill('author').join(',')}`);
      expect(wide.errors[0]).toMatchObject({ code: 'limit_exceeded', meta: { limit: 20 } });
      await refused(400, `/articles?include=${Array(1000).fill('x').join('.')}`);
      await refused(400, `/articles?include=${Array(5).fill('author.articles').join('.')}`);
    });

    it('include with 10,000 paths: 431 from Node over HTTP (its URL limit); the runtime answers 414 in-process', async () => {
      const include = Array(10_000).fill('author').join(',');
      const overHttp = await fetch(`${demo.url}/articles?include=${include}`, { signal: AbortSignal.timeout(10_000) });
      expect(overHttp.status).toBe(431);
      const database = openDatabase({ file });
      try {
        const api = createApi(createStore(database.db), {
          transaction: kyselyTransaction(database.db),
          extensions: [atomic()],
        });
        const response = await api.fetch(new Request(`http://localhost/articles?include=${include}`));
        expect(response.status).toBe(414);
        expect((await json(response)).errors[0]).toMatchObject({ code: 'limit_exceeded' });
        // Under the URL limit, the include limit answers.
        const fewer = await api.fetch(
          new Request(`http://localhost/articles?include=${Array(1000).fill('tags').join(',')}`),
        );
        expect(fewer.status).toBe(400);
        expect((await json(fewer)).errors[0]).toMatchObject({
          code: 'limit_exceeded',
          source: { parameter: 'include' },
        });
      } finally {
        await database.close();
      }
    });

    it.each([
      ['page[limit]', '1e99'],
      ['page[limit]', '-1'],
      ['page[limit]', 'abc'],
      ['page[limit]', '0'],
      ['page[limit]', ''],
      ['page[limit]', '99999999999999999999'],
      ['page[limit]', '1.5'],
      ['page[limit]', '0x10'],
      ['page[limit]', ' 5'],
      ['page[offset]', '-5'],
      ['page[offset]', '1e3'],
      ['page[offset]', '100001'],
      ['page[offset]', 'NaN'],
      ['page[size]', '51'],
      ['page[size]', '0'],
      ['page[after]', 'not-a-cursor'],
      ['page[number]', '2'],
      ['page', '5'],
    ])('%s=%s: 400', async (name, value) => {
      const document = await refused(400, `/articles?${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
      expect(document.errors[0].source.parameter).toBe(name);
    });

    it('a huge page[limit] that parses is capped at the maximum (50), not refused', async () => {
      const response = await fetch(`${demo.url}/articles?page[limit]=9007199254740991`);
      expect(response.status).toBe(200);
      const document = await json(response);
      expect(document.data).toHaveLength(Math.min(50, document.meta.total));
      expect(new URL(document.links.first).searchParams.get('page[limit]')).toBe('50');
    });

    it.each(NAMES)('the name %j as sort, filter, fields and include: 400; as a path segment: 404', async (name) => {
      const n = encodeURIComponent(name);
      await refused(400, `/articles?sort=${n}`);
      await refused(400, `/articles?sort=-${n}`);
      await refused(400, `/articles?filter[${n}]=1`);
      await refused(400, `/articles?filter[${n}][]=1`);
      await refused(400, `/articles?fields[${n}]=title`);
      await refused(400, `/articles?fields[articles]=${n}`);
      await refused(400, `/articles?include=${n}`);
      await refused(400, `/articles?include=author.${n}`);
      await refused(400, `/articles?${n}=1`);
      await refused(404, `/${n}`);
      await refused(404, `/articles/${n}`);
      await refused(404, `/articles/1/${n}`);
      await refused(404, `/articles/1/relationships/${n}`);
    });

    it('filter values with SQL are values: nothing matches, nothing changes', async () => {
      for (const value of ["x' OR '1'='1", '1; DELETE FROM articles; --', '%', '_', '\\', "')) OR 1=1 --", '\u0000']) {
        for (const filter of ['title', 'search', 'author']) {
          const response = await fetch(`${demo.url}/articles?filter[${filter}]=${encodeURIComponent(value)}`);
          expect(response.status, `${filter}=${value}`).toBe(200);
          const document = await json(response);
          // (SQLite ends a LIKE pattern at NUL, so a NUL search matches everything; PostgreSQL refuses NUL: 400.)
          if (value !== '%' && value !== '_' && value !== '\u0000')
            expect(document.data, `${filter}=${value}`).toEqual([]);
        }
      }
    });

    it('NUL and invalid UTF-8 in paths and parameters', async () => {
      await refused(404, '/articles/%00');
      await refused(404, '/articles/1%00');
      await refused(404, '/%00');
      await refused(404, '/articles/1/relationships/%00');
      await refused(400, '/articles/%FF');
      await refused(400, '/articles/%C0%AF');
      await refused(400, '/%ED%A0%80');
      await refused(400, '/articles/1/relationships/%E2%82');
      await refused(400, '/articles?filter[%00]=1');
      await refused(400, '/articles?sort=%00');
      await refused(400, '/articles?include=%FF');
      await refused(400, '/articles?fields[articles]=%C0%AF');
      await refused(400, '/articles?%00=1');
      await refused(400, '/articles?page[limit]=%00');
      // Raw bytes that are not HTTP: Node's parser answers before the application does.
      const rawPath = await raw(`GET /articles/\xff\xfe HTTP/1.1\r\nHost: {host}\r\nConnection: close`);
      expect(rawPath.status).toBe(400);
    });

    it('ids with ../ and encoded slashes name nothing', async () => {
      // (Bare `.` and `..` segments, encoded or not, are resolved by the URL parser before any server sees them.)
      for (const id of [
        '..%2F..%2Fetc%2Fpasswd',
        '..%2Fpeople',
        '1%2F..%2F2',
        '..%2F',
        '%2E%2E%2F1',
        '1%2Frelationships%2Fauthor',
        '%2F1',
        '..%5C1',
      ]) {
        await refused(404, `/articles/${id}`);
        await refused(404, `/articles/${id}/author`);
        await refused(
          404,
          `/articles/${id}`,
          send(
            'PATCH',
            `/articles/${id}`,
            JSON.stringify({ data: { type: 'articles', id: decodeURIComponent(id), attributes: { title: 'x' } } }),
          ),
        );
        await refused(404, `/articles/${id}`, { method: 'DELETE', user: '1' });
      }
    });

    it('a comma list counts its values against the limit, as the list form does: 101 values are 400, 100 are served', async () => {
      const values = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));
      for (const [parameter, query] of [
        ['filter[author]', `filter[author]=${values(101).join(',')}`],
        [
          'filter[author][]',
          values(101)
            .map((v) => `filter[author][]=${v}`)
            .join('&'),
        ],
        ['filter[tags.name][in]', `filter[tags.name][in]=${values(101).join(',')}`],
        ['filter[status][in]', `filter[status][in]=${Array(101).fill('draft').join(',')}`],
      ]) {
        const document = await refused(400, `/articles?${query}`, { user: '1' });
        expect(document.errors[0], query).toMatchObject({
          code: 'limit_exceeded',
          source: { parameter },
          meta: { limit: 100 },
        });
      }
      // 1,500 values, the size of the original report, go the same way.
      const long = await refused(400, `/articles?filter[author]=${values(1500).join(',')}`);
      expect(long.errors[0].source).toEqual({ parameter: 'filter[author]' });
      for (const query of [
        `filter[author]=${values(100).join(',')}`,
        values(100)
          .map((v) => `filter[author][]=${v}`)
          .join('&'),
        `filter[tags.name][in]=${values(100).join(',')}`,
      ]) {
        const response = await fetch(`${demo.url}/articles?${query}`);
        expect(response.status, query).toBe(200);
        await json(response);
      }
    });

    it('repeated parameters: 400', async () => {
      for (const query of [
        'sort=title&sort=title',
        'sort=title&sort=-title',
        'include=author&include=tags',
        'page[limit]=1&page[limit]=2',
        'page[offset]=0&page[offset]=0',
        'filter[title]=a&filter[title]=b',
        'filter[author][]=1&filter[author]=2',
        'filter[author]=1&filter[author][]=2',
        'fields[articles]=title&fields[articles]=body',
      ]) {
        await refused(400, `/articles?${query}`);
      }
    });
  });

  describe('Atomic Operations', () => {
    it('10,000 operations: 400 before any runs', async () => {
      const operations = Array.from({ length: 10_000 }, () => ({ op: 'remove', ref: { type: 'tags', id: '1' } }));
      const document = await refused(
        400,
        '/operations',
        send('POST', '/operations', JSON.stringify({ 'atomic:operations': operations }), ATOMIC),
      );
      expect(document.errors[0]).toMatchObject({ code: 'too_many_operations', meta: { limit: 100 } });
      await refused(
        400,
        '/operations',
        send('POST', '/operations', JSON.stringify({ 'atomic:operations': operations.slice(0, 101) }), ATOMIC),
      );
    });

    it('malformed operations: 400; a hostile one among valid ones rolls them all back', async () => {
      const add = { op: 'add', data: { type: 'tags', attributes: { name: 'hostile-test' } } };
      for (const [operations, status] of [
        [[{ op: 'drop', ref: { type: 'tags', id: '1' } }], 400],
        [[{ op: 'add' }], 400],
        [[{ op: 'remove', ref: { type: '__proto__', id: '1' } }], 404],
        [[{ op: 'remove', ref: { type: 'tags', id: '1', lid: 'x' } }], 400],
        [[{ op: 'remove', href: '/tags/..%2F..%2Fpeople%2F1' }], 404],
        [[{ op: 'remove', ref: { type: 'tags', id: '../people/1' } }], 404],
        [[{ op: 'remove', href: 'http://evil.example/%FF' }], 400],
        [[{ op: 'update', ref: { type: 'tags', lid: 'never' }, data: { type: 'tags', lid: 'never' } }], 400],
        [[add, { op: 'remove', ref: { type: 'tags', id: "1' OR 1=1" } }], 404],
        [[add, { op: 'add', data: { type: 'tags', attributes: { name: 'hostile-test' } } }], 409],
        [[add, { op: 'update', data: { type: 'articles', id: '1', attributes: { title: 'x' } } }], 403],
        [
          [
            add,
            JSON.parse('{"op":"add","data":{"type":"tags","attributes":{"__proto__":{"polluted":true},"name":"y"}}}'),
          ],
          422,
        ],
      ] as const) {
        await refused(
          status,
          '/operations',
          send('POST', '/operations', JSON.stringify({ 'atomic:operations': operations }), ATOMIC, '2'),
        );
      }
    });
  });

  describe('error documents are bounded (limits.errors, 100)', () => {
    /** 90,000 attributes the resource does not have: a body just under the 1 MiB limit. */
    const unknownAttributes = (n = 90_000) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, 0]));
    const withRelationships = (
      relationships: Record<string, unknown>,
      attributes: Record<string, unknown> = { title: 'x' },
    ) =>
      JSON.stringify({
        data: {
          type: 'articles',
          attributes,
          relationships: { author: { data: { type: 'people', id: '1' } }, ...relationships },
        },
      });

    /** The answer's errors, asserting its status, that it lists `listed` errors then one `too_many_errors`, and its size in bytes. */
    async function capped(status: number, path: string, body: string, contentType = JSONAPI): Promise<any[]> {
      const response = await fetch(`${demo.url}${path}`, {
        method: 'POST',
        body,
        headers: { 'content-type': contentType, authorization: 'Bearer 1' },
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(status);
      // Size first: validating a document of thousands of errors against the schema takes minutes.
      expect((await response.clone().arrayBuffer()).byteLength).toBeLessThan(32 * 1024);
      const document = await json(response);
      expect(document.errors).toHaveLength(101);
      expect(document.errors.at(-1)).toMatchObject({
        status: String(status),
        code: 'too_many_errors',
        meta: { limit: 100 },
      });
      return document.errors;
    }

    it('90,000 unknown attributes: 422 listing the first 100 and one saying checking stopped, in a small document', async () => {
      const body = JSON.stringify(article({ title: 'x', ...unknownAttributes() }));
      expect(body.length).toBeGreaterThan(900 * 1024);
      const errors = await capped(422, '/articles', body);
      expect(errors.slice(0, 100).map((e) => e.source.pointer)).toEqual(
        Array.from({ length: 100 }, (_, i) => `/data/attributes/a${i}`),
      );
      expect(errors[100].meta).toEqual({ limit: 100 });
    });

    it('checking stops past the limit: a read-only attribute after 200 unknown ones is never looked at (422, not 403)', async () => {
      const past = await capped(
        422,
        '/articles',
        JSON.stringify(article({ title: 'x', ...unknownAttributes(200), createdAt: '2024-01-01T00:00:00Z' })),
      );
      expect(past.map((e) => e.code)).not.toContain('read_only');
      // Under the limit every field is looked at, and the read-only one outranks the rest.
      await refused(
        403,
        '/articles',
        send(
          'POST',
          '/articles',
          JSON.stringify(article({ title: 'x', ...unknownAttributes(50), createdAt: '2024-01-01T00:00:00Z' })),
        ),
      );
    });

    it('5,000 identifiers of the wrong type (409) or of tags that do not exist (404): the first 100 and one more', async () => {
      const wrongType = await capped(
        409,
        '/articles',
        withRelationships({
          tags: { data: Array.from({ length: 5000 }, (_, i) => ({ type: 'people', id: String(i) })) },
        }),
      );
      expect(wrongType[99].source.pointer).toBe('/data/relationships/tags/data/99/type');
      const missing = await capped(
        404,
        '/articles',
        withRelationships({
          tags: { data: Array.from({ length: 5000 }, (_, i) => ({ type: 'tags', id: `missing-${i}` })) },
        }),
      );
      expect(missing[0]).toMatchObject({
        code: 'related_not_found',
        source: { pointer: '/data/relationships/tags/data/0' },
      });
      // The lookups ran anyway, so the answer counts what it leaves out.
      expect(missing[100].meta).toEqual({ limit: 100, more: 4900 });
    });

    it('Atomic Operations: an operation with 90,000 unknown attributes, and 100 bad operations, answer at most 101 errors', async () => {
      const add = (attributes: Record<string, unknown>) => ({
        op: 'add',
        data: { type: 'tags', attributes: { name: 'bounded', ...attributes } },
      });
      const one = await capped(
        422,
        '/operations',
        JSON.stringify({ 'atomic:operations': [add(unknownAttributes(85_000))] }),
        ATOMIC,
      );
      expect(one[0].source.pointer).toBe('/atomic:operations/0/data/attributes/a0');
      const many = await fetch(`${demo.url}/operations`, {
        method: 'POST',
        body: JSON.stringify({ 'atomic:operations': Array.from({ length: 100 }, () => add(unknownAttributes(500))) }),
        headers: { 'content-type': ATOMIC, authorization: 'Bearer 1' },
      });
      expect(many.status).toBe(422);
      // The batch stops at its first failing operation; that one's errors are capped.
      expect((await many.json()).errors.length).toBeLessThanOrEqual(101);
    });
  });

  it('after all of it: the data is unchanged, Object.prototype untouched, the server still serves', async () => {
    expect(dumpFile(file)).toBe(before);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const response = await fetch(`${demo.url}/articles?include=author`);
    expect(response.status).toBe(200);
  });
});
