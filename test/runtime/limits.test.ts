import { describe, expect, it } from 'vitest';
import {
  Attribute,
  Create,
  DEFAULT_LIMITS,
  JsonApi,
  JsonApiErrors,
  UnprocessableEntityError,
  atomic,
  defineResource,
} from 'jsonapi-gen';
import { json } from '../support/validate.js';
import { store } from '../support/write-host.js';

const many = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i));

describe('limits', () => {
  it.each([
    [
      'include with too many paths',
      `include=${many(21, () => 'author').join(',')}`,
      'include',
      DEFAULT_LIMITS.includePaths,
    ],
    [
      'include 1,000 levels deep',
      `include=${many(1000, () => 'author').join('.')}`,
      'include',
      DEFAULT_LIMITS.includeDepth,
    ],
    [
      'include with 10,000 paths',
      `include=${many(10_000, () => 'tags').join(',')}`,
      'include',
      DEFAULT_LIMITS.includePaths,
    ],
    ['too many sort keys', `sort=${many(6, (i) => `k${i}`).join(',')}`, 'sort', DEFAULT_LIMITS.sortKeys],
    [
      'too many list filter values',
      many(101, (i) => `filter[title][]=${i}`).join('&'),
      'filter[title][]',
      DEFAULT_LIMITS.filterValues,
    ],
    ['a page offset past the bound', 'page[offset]=100001', 'page[offset]', DEFAULT_LIMITS.pageOffset],
  ])('%s → 400 naming the limit', async (_name, search, parameter, limit) => {
    const { api } = store({ limits: { urlLength: 1_000_000 } });
    const response = await api.fetch(new Request(`http://localhost/articles?${search}`));
    expect(response.status).toBe(400);
    expect((await json(response)).errors[0]).toMatchObject({
      code: 'limit_exceeded',
      source: { parameter },
      meta: { limit },
    });
  });

  it('refuses a URL over the length limit with 414', async () => {
    const { api } = store();
    const response = await api.fetch(new Request(`http://localhost/articles?x=${'a'.repeat(9000)}`));
    expect(response.status).toBe(414);
    expect((await json(response)).errors[0].code).toBe('limit_exceeded');
  });

  it('refuses a body declared over the limit before reading it (413)', async () => {
    const { api, tables } = store();
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(32));
      },
    });
    const response = await api.fetch(
      new Request('http://localhost/tags', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json', 'content-length': String(2 * 1024 * 1024) },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect((await json(response)).errors[0]).toMatchObject({
      source: { header: 'Content-Length' },
      meta: { limit: DEFAULT_LIMITS.bodyBytes },
    });
    expect(pulled).toBeLessThanOrEqual(2);
    expect(tables.tags).toHaveLength(2);
  });

  it('stops reading a streamed body as soon as it passes the limit (413)', async () => {
    const { api } = store();
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(32));
      },
    });
    const response = await api.fetch(
      new Request('http://localhost/tags', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(20);
  });

  it.each([
    ['deeply nested JSON', `{"data":${'['.repeat(5000)}${']'.repeat(5000)}}`],
    ['invalid UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
    ['truncated JSON', '{"data":{"type":"tags","attributes":{"name":"x"'],
    ['JSON that is not an object', '"tags"'],
  ])('%s → 400, nothing written', async (_name, body) => {
    const { api, tables } = store();
    const response = await api.fetch(
      new Request('http://localhost/tags', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body,
      }),
    );
    expect(response.status).toBe(400);
    await json(response);
    expect(tables.tags).toHaveLength(2);
  });

  it('takes its limits from the JsonApi options, also for Atomic Operations', async () => {
    const { api } = store({ extensions: [atomic()], limits: { operations: 2, sortKeys: 1 } });
    expect((await api.fetch(new Request('http://localhost/articles?sort=a,b'))).status).toBe(400);
    const response = await api.fetch(
      new Request('http://localhost/operations', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"' },
        body: JSON.stringify({
          'atomic:operations': many(3, (i) => String(i)).map((i) => ({ op: 'remove', ref: { type: 'tags', id: i } })),
        }),
      }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].meta).toEqual({ limit: 2 });
  });

  it('limits.errors caps the errors of one answer, from the request document and from whatever a data layer throws', async () => {
    const { send } = store({ limits: { errors: 5 } });
    const attributes = Object.fromEntries(many(50, (i) => `a${i}`).map((name) => [name, 1]));
    const response = await send('POST', '/articles', {
      data: {
        type: 'articles',
        attributes: { title: 'X', ...attributes },
        relationships: { author: { data: { type: 'people', id: '1' } } },
      },
    });
    expect(response.status).toBe(422);
    const { errors } = await json(response);
    expect(errors.map((e: { code: string }) => e.code)).toEqual([
      'unknown_field',
      'unknown_field',
      'unknown_field',
      'unknown_field',
      'unknown_field',
      'too_many_errors',
    ]);
    expect(errors[5]).toMatchObject({ status: '422', meta: { limit: 5 } });

    // A data layer's own JsonApiErrors: the first ones, and one error counting the rest.
    const api = new JsonApi({ onError: () => {}, limits: { errors: 10 } });
    api.resource({
      ...defineResource({ type: 'notes', fields: [Attribute.make('text').writable()], endpoints: [Create.make()] }),
      create: () => {
        throw new JsonApiErrors(
          many(1000, (i) => `problem ${i}`).map((detail) => new UnprocessableEntityError({ detail })),
        );
      },
    });
    const thrown = await api.fetch(
      new Request('http://localhost/notes', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({ data: { type: 'notes', attributes: { text: 'x' } } }),
      }),
    );
    expect(thrown.status).toBe(422);
    const document = await json(thrown);
    expect(document.errors).toHaveLength(11);
    expect(document.errors[10]).toMatchObject({ code: 'too_many_errors', meta: { limit: 10, more: 990 } });
  });
});
