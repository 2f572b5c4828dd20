/**
 * `@jsonapi-gen/opentelemetry` with the OpenTelemetry SDK and its in-memory exporter, on the
 * demo's generated API over the Kysely store on SQLite: the span tree of a request (the request
 * span; parse, authorize, each data-layer call, serialize under it), the spans a driver opens
 * while a data-layer call runs nested under that call's span, attributes, errors, Atomic
 * operations, and a trace continued from `traceparent`.
 */
import { type Span, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTelemetry } from '@jsonapi-gen/opentelemetry';
import type { JsonApi } from 'jsonapi-gen';
import { type OpenDatabase, migrate, openDatabase } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { kyselyTransaction } from '@jsonapi-gen/kysely';
import { JSON_API, request } from '../support/request.js';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
const contextManager = new AsyncLocalStorageContextManager();
let database: OpenDatabase;
let api: JsonApi;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // A driver's instrumentation, as small as it gets: a span per SQLite statement, opened as the
  // statement runs, under whatever span is current then.
  database = openDatabase({
    onStatement: (sql) => tracer.startSpan('sqlite', { attributes: { 'db.query.text': sql } }).end(),
  });
  await migrate(database.db, 'sqlite');
  await seed(database.db, 12);
  exporter.reset();
  api = createApi(createStore(database.db), {
    instrument: openTelemetry({ tracer, stages: true }),
    transaction: kyselyTransaction(database.db),
  });
});

afterAll(async () => {
  await database.close();
  context.disable();
  propagation.disable();
});

beforeEach(() => {
  exporter.reset();
});

/** The finished spans as a tree from the root: `[name, children]`, children in start order. */
function tree(spans: readonly ReadableSpan[], root: ReadableSpan): unknown {
  const children = spans
    .filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  return children.length === 0 ? root.name : [root.name, children.map((child) => tree(spans, child))];
}

function rootOf(spans: readonly ReadableSpan[]): ReadableSpan {
  const roots = spans.filter((s) => s.kind === SpanKind.SERVER);
  expect(roots).toHaveLength(1);
  return roots[0]!;
}

describe('openTelemetry({ stages: true })', () => {
  it('traces GET /articles?include=author: the request span, its stages and data-layer calls, the driver under each call', async () => {
    const response = await api.fetch(request('/articles?include=author'));
    expect(response.status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const root = rootOf(spans);
    expect(root.parentSpanContext).toBeUndefined();
    expect(tree(spans, root)).toEqual([
      'GET articles',
      [
        'parse',
        'authorize',
        ['count articles', ['sqlite']],
        ['results articles', ['sqlite']],
        ['loadRelated articles.author', ['sqlite']],
        'serialize',
      ],
    ]);
    // One trace; every other span's parent is in it.
    const ids = new Set(spans.map((s) => s.spanContext().spanId));
    for (const span of spans) {
      expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
      if (span !== root) expect(ids.has(span.parentSpanContext!.spanId), span.name).toBe(true);
    }
    expect(root.attributes).toEqual({
      'http.request.method': 'GET',
      'url.scheme': 'http',
      'url.path': '/articles',
      'url.query': 'include=author',
      'http.route': '/articles',
      'jsonapi.endpoint': 'index',
      'jsonapi.resource_type': 'articles',
      'jsonapi.include': 'author',
      'http.response.status_code': 200,
    });
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    const loader = spans.find((s) => s.name === 'loadRelated articles.author')!;
    expect(loader.attributes).toEqual({
      'jsonapi.stage': 'data',
      'jsonapi.data_layer.call': 'loadRelated',
      'jsonapi.resource_type': 'articles',
      'jsonapi.relationship': 'author',
    });
    expect(spans.find((s) => s.name === 'parse')!.attributes).toEqual({ 'jsonapi.stage': 'parse' });
  });

  it('traces POST /articles: the linkage to two types checked in one shared exist call, then create', async () => {
    const response = await api.fetch(
      request('/articles', {
        method: 'POST',
        headers: { 'content-type': JSON_API },
        body: JSON.stringify({
          data: {
            type: 'articles',
            attributes: { title: 'Traced', body: 'Body' },
            relationships: {
              author: { data: { type: 'people', id: '1' } },
              tags: { data: [{ type: 'tags', id: '1' }] },
            },
          },
        }),
      }),
      { attributes: { user: '1' } },
    );
    expect(response.status).toBe(201);
    const spans = exporter.getFinishedSpans();
    const root = rootOf(spans);
    // The transaction's own statements (BEGIN, COMMIT) run under the request span.
    const calls = spans.filter((s) => s.name !== 'sqlite' || s.parentSpanContext?.spanId !== root.spanContext().spanId);
    expect(tree(calls, root)).toEqual([
      'POST articles',
      [
        'parse',
        'authorize',
        ['exist', ['sqlite']],
        ['create articles', expect.arrayContaining(['sqlite'])],
        'serialize',
      ],
    ]);
    expect(spans.find((s) => s.name === 'exist')!.attributes).toEqual({
      'jsonapi.stage': 'data',
      'jsonapi.data_layer.call': 'exist',
    });
  });

  it('records errors: a data layer that throws fails its span and the request (500); a refusal only its stage', async () => {
    const failing = createStore(database.db);
    const failure = new Error('the disk is on fire');
    failing.people.find = () => Promise.reject(failure);
    const broken = createApi(failing, {
      instrument: openTelemetry({ tracer, stages: true }),
      onError: () => undefined,
    });
    expect((await broken.fetch(request('/people/1'))).status).toBe(500);
    let spans = exporter.getFinishedSpans();
    const root = rootOf(spans);
    expect(root.name).toBe('GET people');
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the disk is on fire' });
    expect(root.attributes['error.type']).toBe('500');
    const find = spans.find((s) => s.name === 'find people')!;
    expect(find.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(find.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the disk is on fire' });
    expect(find.events.map((e) => [e.name, e.attributes?.['exception.message']])).toEqual([
      ['exception', 'the disk is on fire'],
    ]);

    exporter.reset();
    // 403: user 2 may not delete article 1 (its author is 1); the client's error, not the server's.
    expect((await api.fetch(request('/articles/1', { method: 'DELETE' }), { attributes: { user: '2' } })).status).toBe(
      403,
    );
    spans = exporter.getFinishedSpans();
    const refused = rootOf(spans);
    expect(refused.name).toBe('DELETE articles');
    expect(refused.attributes['http.response.status_code']).toBe(403);
    expect(refused.attributes['http.route']).toBe('/articles/{id}');
    expect(refused.status.code).toBe(SpanStatusCode.UNSET);
    expect(spans.find((s) => s.name === 'authorize')!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('traces each Atomic operation under its batch, with its stages and the driver under its calls', async () => {
    const response = await api.fetch(
      request('/operations', {
        method: 'POST',
        headers: { 'content-type': ATOMIC, accept: ATOMIC },
        body: JSON.stringify({
          'atomic:operations': [{ op: 'add', data: { type: 'tags', attributes: { name: 'otel' } } }],
        }),
      }),
    );
    expect(response.status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const root = rootOf(spans);
    // Statements of the transaction itself (BEGIN, COMMIT) run under the request span.
    const tagged = tree(
      spans.filter((s) => s.name !== 'sqlite' || s.parentSpanContext?.spanId !== root.spanContext().spanId),
      root,
    );
    expect(tagged).toEqual([
      'POST /operations',
      [['POST tags', ['parse', 'authorize', ['create tags', ['sqlite']], 'serialize']], 'serialize'],
    ]);
    const operation = spans.find((s) => s.name === 'POST tags')!;
    expect(operation.attributes).toMatchObject({
      'http.route': '/tags',
      'jsonapi.endpoint': 'create',
      'http.response.status_code': 201,
    });
    expect(root.attributes).toMatchObject({ 'http.route': '/operations', 'jsonapi.endpoint': 'extension' });
  });

  it('continues the trace a traceparent header names when no span is current', async () => {
    const parent = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await api.fetch(
      request('/people/1', { headers: { traceparent: `00-${parent}-00f067aa0ba902b7-01`, accept: JSON_API } }),
    );
    expect(response.status).toBe(200);
    const root = rootOf(exporter.getFinishedSpans());
    expect(root.spanContext().traceId).toBe(parent);
    expect(root.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');

    // Inside a span of the host's (an HTTP instrumentation's), the request span is its child.
    exporter.reset();
    await tracer.startActiveSpan('host', async (host: Span) => {
      expect((await api.fetch(request('/people/1'))).status).toBe(200);
      host.end();
    });
    const spans = exporter.getFinishedSpans();
    const hostSpan = spans.find((s) => s.name === 'host')!;
    expect(rootOf(spans).parentSpanContext?.spanId).toBe(hostSpan.spanContext().spanId);
  });
});

describe('openTelemetry(), by default', () => {
  it('makes spans for the request and its data-layer calls only', async () => {
    const lean = createApi(createStore(database.db), { instrument: openTelemetry({ tracer }) });
    expect((await lean.fetch(request('/articles?include=author'))).status).toBe(200);
    const spans = exporter.getFinishedSpans();
    expect(tree(spans, rootOf(spans))).toEqual([
      'GET articles',
      [
        ['count articles', ['sqlite']],
        ['results articles', ['sqlite']],
        ['loadRelated articles.author', ['sqlite']],
      ],
    ]);
  });
});

describe('openTelemetry() without a tracer', () => {
  it('uses the global tracer provider', async () => {
    trace.setGlobalTracerProvider(provider);
    try {
      const global = createApi(createStore(database.db), { instrument: openTelemetry() });
      expect((await global.fetch(request('/tags/1'))).status).toBe(200);
      const root = rootOf(exporter.getFinishedSpans());
      expect(root.name).toBe('GET tags');
      expect(root.instrumentationScope.name).toBe('@jsonapi-gen/opentelemetry');
    } finally {
      trace.disable();
    }
  });
});
