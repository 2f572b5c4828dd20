/**
 * The instrumentation hook (`instrument`) and the `Server-Timing` header (`serverTiming`) on the
 * demo's generated API over its in-memory data layers, with real Requests: the hook hears every
 * stage of a request (parse, authorize, each data-layer call by name, serialize; each Atomic
 * operation with stages of its own) and its outcome; data-layer calls run inside their span;
 * an API without either option traces nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Attribute,
  type Instrumentation,
  JsonApi,
  JsonApiError,
  type JsonApiOptions,
  type RequestStart,
  type RouteInfo,
  Show,
  type SpanOutcome,
  type StageStart,
  type TraceSpan,
  defineResource,
} from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
import { type DataLayers, createApi } from '../../examples/blog/generated/index.js';
import { memoryIdempotency, memoryStore, memoryTables } from '../../examples/blog/memory.js';
import { seedRows } from '../../examples/blog/seed.js';
import { JSON_API, request } from '../support/request.js';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

/** A span as the recorder saw it. */
interface Recorded {
  label: string;
  start?: StageStart;
  route?: RouteInfo;
  outcome?: SpanOutcome;
  ends: number;
  children: Recorded[];
}

/** An instrumentation that records each request's span tree; `run` makes the span current in `current`. */
function recorder() {
  const requests: Array<{ start: RequestStart; span: Recorded }> = [];
  const current = new AsyncLocalStorage<string>();
  const follow = (node: Recorded): TraceSpan => ({
    stage(start) {
      const label =
        start.kind === 'data'
          ? `${start.name} ${start.type ?? ''}${start.relationship ? `.${start.relationship}` : ''}`.trim()
          : start.kind;
      const child: Recorded = { label, start, ends: 0, children: [] };
      node.children.push(child);
      return follow(child);
    },
    routed(route) {
      node.route = route;
    },
    run: (work) => current.run(node.label, work),
    end(outcome) {
      node.ends++;
      node.outcome = outcome;
    },
  });
  const instrument: Instrumentation = {
    request(start) {
      const span: Recorded = { label: 'request', ends: 0, children: [] };
      requests.push({ start, span });
      return follow(span);
    },
  };
  return { requests, instrument, current };
}

/** A span's tree as labels: `[label, [children...]]`, leaves as their label. */
function shape(node: Recorded): unknown {
  return node.children.length === 0 ? node.label : [node.label, node.children.map(shape)];
}

/** Every span of a tree, depth first. */
function all(node: Recorded): Recorded[] {
  return [node, ...node.children.flatMap(all)];
}

/** The demo's API over its in-memory data layers (`alter`: changes to them, before they are bound). */
function demo(options: JsonApiOptions = {}, alter?: (dataLayers: DataLayers) => void) {
  const { dataLayers, transaction } = memoryStore(memoryTables(seedRows(6)));
  alter?.(dataLayers);
  const api = createApi(dataLayers, {
    transaction,
    idempotency: { store: memoryIdempotency(), scope: (ctx) => ctx.getAttribute('user') },
    ...options,
  });
  return { api };
}

const asUser = { attributes: { user: '1' } };
const newArticle = (title: string) =>
  JSON.stringify({
    data: {
      type: 'articles',
      attributes: { title, body: 'Body' },
      relationships: { author: { data: { type: 'people', id: '1' } } },
    },
  });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the instrumentation hook', () => {
  it('hears every stage of GET with include, the data-layer calls named, and the outcome', async () => {
    const { requests, instrument } = recorder();
    const { api } = demo({ instrument });
    const response = await api.fetch(request('/articles?include=author&page[limit]=2'));
    expect(response.status).toBe(200);
    expect(requests).toHaveLength(1);
    const [{ start, span }] = requests as [(typeof requests)[0]];
    expect(start.method).toBe('GET');
    expect(start.url).toBe('http://localhost/articles?include=author&page[limit]=2');
    expect(span.route).toEqual({
      method: 'GET',
      route: '/articles',
      type: 'articles',
      endpoint: 'index',
      include: 'author',
    });
    // The count is asked for before the page's results (they may run at once), then the include.
    expect(shape(span)).toEqual([
      'request',
      ['parse', 'authorize', 'count articles', 'results articles', 'loadRelated articles.author', 'serialize'],
    ]);
    expect(span.outcome).toEqual({ status: 200 });
    for (const node of all(span)) expect(node.ends, node.label).toBe(1);
    expect(span.children.map((c) => c.outcome)).toEqual(span.children.map(() => ({})));
    expect(span.children.find((c) => c.label === 'loadRelated articles.author')!.start).toEqual({
      kind: 'data',
      name: 'loadRelated',
      type: 'articles',
      relationship: 'author',
    });
  });

  it('hears every stage of POST: the linkage looked up, create, and 201', async () => {
    const { requests, instrument } = recorder();
    const { api } = demo({ instrument });
    const response = await api.fetch(
      request('/articles', {
        method: 'POST',
        headers: { 'content-type': JSON_API, accept: JSON_API },
        body: newArticle('Traced'),
      }),
      asUser,
    );
    expect(response.status).toBe(201);
    const { span } = requests[0]!;
    expect(span.route).toEqual({ method: 'POST', route: '/articles', type: 'articles', endpoint: 'create' });
    expect(shape(span)).toEqual(['request', ['parse', 'authorize', 'find people', 'create articles', 'serialize']]);
    expect(span.outcome).toEqual({ status: 201 });
  });

  it('reports a refusal and a data layer that throws as the outcome, on the stage that failed', async () => {
    const { requests, instrument } = recorder();
    const errors: unknown[] = [];
    const failure = new Error('the disk is on fire');
    const { api } = demo({ instrument, onError: (error) => errors.push(error) }, (dataLayers) => {
      const results = dataLayers.articles.results.bind(dataLayers.articles);
      dataLayers.articles.results = (query, ctx) =>
        ctx.getAttribute('user') === 'arsonist' ? Promise.reject(failure) : results(query, ctx);
    });

    // 403: the endpoint's callbacks (the data layer's `can`) refuse.
    expect((await api.fetch(request('/articles/1', { method: 'DELETE' }), { attributes: { user: '2' } })).status).toBe(
      403,
    );
    const refused = requests[0]!.span;
    expect(refused.route?.endpoint).toBe('delete');
    expect(shape(refused)).toEqual(['request', ['parse', 'find articles', 'authorize', 'can articles']]);
    const authorize = refused.children.find((c) => c.label === 'authorize')!;
    expect(authorize.outcome?.error).toBeInstanceOf(JsonApiError);
    expect((authorize.outcome!.error as JsonApiError).status).toBe(403);
    expect(refused.outcome?.status).toBe(403);
    expect(refused.outcome?.error).toBe(authorize.outcome!.error);

    // 404 before any stage but parse: the parse stage ends with it.
    expect((await api.fetch(request('/nothing'))).status).toBe(404);
    const unknown = requests[1]!.span;
    expect(shape(unknown)).toEqual(['request', ['parse']]);
    expect(unknown.route).toBeUndefined();
    expect((unknown.children[0]!.outcome!.error as JsonApiError).status).toBe(404);
    expect(unknown.outcome?.status).toBe(404);

    // 500: the data layer's `results` throws.
    expect((await api.fetch(request('/articles'), { attributes: { user: 'arsonist' } })).status).toBe(500);
    const failed = requests[2]!.span;
    const results = failed.children.find((c) => c.label === 'results articles')!;
    expect(results.outcome).toEqual({ error: failure });
    expect(failed.outcome).toEqual({ status: 500, error: failure });
    expect(errors).toEqual([failure]);
    for (const node of requests.flatMap((r) => all(r.span))) expect(node.ends, node.label).toBe(1);
  });

  it('runs each data-layer call inside its span (for context propagation)', async () => {
    const { instrument, current } = recorder();
    const seen: Array<string | undefined> = [];
    const { api } = demo({ instrument }, (dataLayers) => {
      const find = dataLayers.people.find.bind(dataLayers.people);
      dataLayers.people.find = async (id, ctx) => {
        await Promise.resolve();
        seen.push(current.getStore());
        return find(id, ctx);
      };
    });
    expect((await api.fetch(request('/people/1'))).status).toBe(200);
    expect(seen).toEqual(['find people']);
  });

  it('traces a data layer that is a class: its methods keep their `this` (private fields)', async () => {
    class Notes {
      readonly #rows = new Map([['1', { id: 1, title: 'First' }]]);
      readonly #schema = defineResource({ type: 'notes', fields: [Attribute.make('title')], endpoints: [Show.make()] });
      type() {
        return this.#schema.type();
      }
      fields() {
        return this.#schema.fields();
      }
      endpoints() {
        return this.#schema.endpoints();
      }
      find(id: string) {
        return this.#rows.get(id) ?? null;
      }
    }
    const { requests, instrument } = recorder();
    const api = new JsonApi({ instrument }).resource(new Notes());
    const response = await api.fetch(request('/notes/1'));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { attributes: unknown } }).data.attributes).toEqual({ title: 'First' });
    expect(shape(requests[0]!.span)).toEqual(['request', ['parse', 'authorize', 'find notes', 'serialize']]);
  });

  it('follows each Atomic operation under its batch, with stages of its own', async () => {
    const { requests, instrument } = recorder();
    const { api } = demo({ instrument });
    const response = await api.fetch(
      request('/operations', {
        method: 'POST',
        headers: { 'content-type': ATOMIC, accept: ATOMIC },
        body: JSON.stringify({
          'atomic:operations': [
            { op: 'add', data: { type: 'tags', attributes: { name: 'traced' } } },
            { op: 'remove', ref: { type: 'comments', id: '1' } },
          ],
        }),
      }),
      asUser,
    );
    expect(response.status).toBe(200);
    const { span } = requests[0]!;
    expect(span.route).toEqual({ method: 'POST', route: '/operations', endpoint: 'extension' });
    expect(shape(span)).toEqual([
      'request',
      [
        ['operation', ['parse', 'authorize', 'create tags', 'serialize']],
        ['operation', ['parse', 'find comments', 'authorize', 'delete comments']],
        'serialize',
      ],
    ]);
    const [add, remove] = span.children as [Recorded, Recorded];
    expect(add.route).toEqual({ method: 'POST', route: '/tags', type: 'tags', endpoint: 'create' });
    expect(add.outcome).toEqual({ status: 201 });
    expect(remove.route).toEqual({ method: 'DELETE', route: '/comments/{id}', type: 'comments', endpoint: 'delete' });
    expect(remove.outcome).toEqual({ status: 204 });
    expect(span.outcome).toEqual({ status: 200 });
  });

  it('ends a failed Atomic operation with its error, and the batch with it', async () => {
    const { requests, instrument } = recorder();
    const { api } = demo({ instrument });
    const response = await api.fetch(
      request('/operations', {
        method: 'POST',
        headers: { 'content-type': ATOMIC, accept: ATOMIC },
        body: JSON.stringify({
          'atomic:operations': [
            { op: 'add', data: { type: 'tags', attributes: { name: 'kept?' } } },
            { op: 'remove', ref: { type: 'comments', id: '999' } },
          ],
        }),
      }),
      asUser,
    );
    expect(response.status).toBe(404);
    const { span } = requests[0]!;
    const [add, remove] = span.children as [Recorded, Recorded];
    expect(add.outcome).toEqual({ status: 201 });
    expect(remove.outcome?.status).toBe(404);
    expect((remove.outcome?.error as JsonApiError).status).toBe(404);
    expect(span.outcome?.status).toBe(404);
    for (const node of all(span)) expect(node.ends, node.label).toBe(1);
  });

  it('follows a request with an Idempotency-Key once', async () => {
    const { requests, instrument } = recorder();
    const { api } = demo({ instrument });
    const post = () =>
      request('/articles', {
        method: 'POST',
        headers: { 'content-type': JSON_API, 'idempotency-key': 'k-1' },
        body: newArticle('Once'),
      });
    expect((await api.fetch(post(), asUser)).status).toBe(201);
    expect(requests).toHaveLength(1);
    expect(shape(requests[0]!.span)).toEqual([
      'request',
      ['parse', 'authorize', 'find people', 'create articles', 'serialize'],
    ]);
    expect(requests[0]!.span.outcome).toEqual({ status: 201 });
  });

  it('an instrumentation that throws never fails a request: what it throws goes to onError', async () => {
    const broken = new Error('the tracer is broken');
    const errors: unknown[] = [];
    const throwing: TraceSpan = {
      stage: () => {
        throw broken;
      },
      routed: () => {
        throw broken;
      },
      end: () => {
        throw broken;
      },
    };
    for (const instrument of [
      {
        request: () => {
          throw broken;
        },
      },
      { request: () => throwing },
    ]) {
      const { api } = demo({ instrument, serverTiming: true, onError: (error) => errors.push(error) });
      const response = await api.fetch(request('/articles?include=author'));
      expect(response.status).toBe(200);
      expect(response.headers.get('server-timing')).toContain('db;dur=');
      expect((await api.handle(request('/articles/1'))).status).toBe(200);
    }
    expect(errors.length).toBeGreaterThan(2);
    expect(errors.every((error) => error === broken)).toBe(true);
  });

  it('an API without instrument or serverTiming makes no trace: no clock is read, no header sent', async () => {
    const { api } = demo();
    const clock = vi.spyOn(performance, 'now');
    const response = await api.fetch(request('/articles?include=author,tags'));
    expect(response.status).toBe(200);
    expect(response.headers.has('server-timing')).toBe(false);
    expect(clock).not.toHaveBeenCalled();
    // The same API with the header reads the clock at each stage.
    const timed = demo({ serverTiming: true }).api;
    expect((await timed.fetch(request('/articles?include=author,tags'))).status).toBe(200);
    expect(clock).toHaveBeenCalled();
  });
});

/** A `Server-Timing` header's metrics, checked well-formed: name and milliseconds, in order. */
function metrics(header: string | null): Array<[string, number]> {
  expect(header).toMatch(/^[a-z]+;dur=\d+\.\d\d(, [a-z]+;dur=\d+\.\d\d)*$/);
  return header!.split(', ').map((metric) => {
    const [name, dur] = metric.split(';dur=') as [string, string];
    return [name, Number(dur)];
  });
}

describe('the Server-Timing header', () => {
  it('is sent only with serverTiming on: each stage that ran, then the total, on reads, writes and errors', async () => {
    const untimed = await demo({ instrument: recorder().instrument }).api.fetch(request('/articles/1'));
    expect(untimed.status).toBe(200);
    expect(untimed.headers.has('server-timing')).toBe(false);

    const { api } = demo({ serverTiming: true });
    const read = await api.fetch(request('/articles?include=author'));
    expect(read.status).toBe(200);
    const timings = metrics(read.headers.get('server-timing'));
    expect(timings.map(([name]) => name)).toEqual(['parse', 'authorize', 'db', 'serialize', 'total']);
    const total = timings.at(-1)![1];
    for (const [, ms] of timings) expect(ms).toBeLessThanOrEqual(total);

    const created = await api.fetch(
      request('/articles', { method: 'POST', headers: { 'content-type': JSON_API }, body: newArticle('Timed') }),
      asUser,
    );
    expect(created.status).toBe(201);
    expect(metrics(created.headers.get('server-timing')).map(([name]) => name)).toEqual([
      'parse',
      'authorize',
      'db',
      'serialize',
      'total',
    ]);

    const missing = await api.fetch(request('/articles/999'));
    expect(missing.status).toBe(404);
    expect(metrics(missing.headers.get('server-timing')).map(([name]) => name)).toEqual([
      'parse',
      'authorize',
      'db',
      'total',
    ]);

    // `handle` too, on what it resolves with; HEAD keeps it.
    const head = await api.handle(request('/articles/1', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(metrics(head.headers.get('server-timing')).map(([name]) => name)).toContain('db');
  });

  it('is sent through the Node adapter', async () => {
    const { api } = demo({ serverTiming: true });
    const handler = toNodeHandler(api);
    // Node ignores what a listener returns; the adapter's promise never rejects.
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/articles/1?include=author`);
      expect(response.status).toBe(200);
      expect(metrics(response.headers.get('server-timing')).map(([name]) => name)).toEqual([
        'parse',
        'authorize',
        'db',
        'serialize',
        'total',
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('adds up the stages of every operation of an Atomic Operations batch', async () => {
    const { api } = demo({ serverTiming: true, instrument: recorder().instrument });
    const response = await api.fetch(
      request('/operations', {
        method: 'POST',
        headers: { 'content-type': ATOMIC, accept: ATOMIC },
        body: JSON.stringify({
          'atomic:operations': [
            { op: 'add', data: { type: 'tags', attributes: { name: 'a' } } },
            { op: 'add', data: { type: 'tags', attributes: { name: 'b' } } },
          ],
        }),
      }),
      asUser,
    );
    expect(response.status).toBe(200);
    const timings = new Map(metrics(response.headers.get('server-timing')));
    expect([...timings.keys()]).toEqual(['parse', 'authorize', 'db', 'serialize', 'total']);
    expect(timings.get('parse')! + timings.get('db')! + timings.get('serialize')!).toBeLessThanOrEqual(
      timings.get('total')! + 0.03,
    );
  });
});
