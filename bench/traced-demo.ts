/**
 * The demo traced as bench/tracing-http.ts compares it (bench/serve.ts starts it for the kinds
 * `demo-server-timing`, `demo-hook`, `demo-sdk-raw`, `demo-sdk-spans`, `demo-otel-bare`,
 * `demo-context`, `demo-otel` and `demo-otel-stages`), on the OpenTelemetry SDK as a Node
 * service sets it up, its spans dropped.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { type Attributes, ROOT_CONTEXT, type Span, type Tracer, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from '@jsonapi-gen/opentelemetry';
import type { Instrumentation, TraceSpan } from 'jsonapi-gen';
import { type Demo, type DemoOptions, startDemo } from '../examples/blog/server.js';

/**
 * A tracer of the OpenTelemetry SDK as a Node service sets it up (a batch span processor; with
 * `contextManager`, the AsyncLocalStorage context manager the Node SDK registers) whose exporter
 * drops every span: what tracing costs the server, without an exporter's work.
 */
function droppingTracer(contextManager: boolean): Tracer {
  if (contextManager) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = {
    export: (_spans: unknown, done: (result: { code: ExportResultCode }) => void) =>
      done({ code: ExportResultCode.SUCCESS }),
    shutdown: () => Promise.resolve(),
  };
  return new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }).getTracer('bench');
}

/**
 * `instrumentation` with each request served in an OpenTelemetry context first, as a service
 * whose HTTP server OpenTelemetry's instrumentation already traces serves it; with no
 * `instrumentation`, that context alone (the context manager's cost, without the adapter).
 */
function inContext(instrumentation?: Instrumentation): Instrumentation {
  const quiet: TraceSpan = { stage: () => quiet, end: () => undefined };
  return {
    request(start) {
      const span = instrumentation?.request(start) ?? quiet;
      const run = span.run?.bind(span);
      return {
        stage: (stage) => span.stage(stage),
        routed: (route) => span.routed?.(route),
        run: (work) => context.with(context.active(), () => (run ? run(work) : work())),
        end: (outcome) => span.end(outcome),
      };
    },
  };
}

/**
 * The spans `openTelemetry()` makes (a server span, one per data-layer call, the same names
 * and attributes), made and ended with nothing else: what the SDK's spans cost by themselves.
 */
function sdkSpansOnly(tracer: Tracer): Instrumentation {
  return {
    request(start) {
      const request = tracer.startSpan(start.method, { attributes: { 'http.request.method': start.method } });
      const parent = trace.setSpan(ROOT_CONTEXT, request);
      const untraced: TraceSpan = { stage: () => untraced, end: () => undefined };
      return {
        stage(stage) {
          if (stage.kind !== 'data') return untraced;
          const attributes: Attributes = { 'jsonapi.data_layer.call': stage.name };
          if (stage.type !== undefined) attributes['jsonapi.resource_type'] = stage.type;
          const span = tracer.startSpan(`${stage.name} ${stage.type ?? ''}`, { attributes }, parent);
          return { stage: () => untraced, end: () => span.end() };
        },
        routed: (route) => request.setAttributes({ 'http.route': route.route, 'jsonapi.endpoint': route.endpoint }),
        end: ({ status }) => {
          request.setAttribute('http.response.status_code', status ?? 500);
          request.end();
        },
      };
    },
  };
}

/**
 * Five spans per request as `openTelemetry()` makes for route b, made by the SDK from Node's
 * own HTTP server events (`diagnostics_channel`), with no instrument option: the API untraced,
 * the spans' cost alone. The request's span ends with its response.
 */
function rawSdkSpans(tracer: Tracer): void {
  const open = new WeakMap<ServerResponse, Span>();
  const data = { 'jsonapi.data_layer.call': 'results', 'jsonapi.resource_type': 'articles' };
  subscribe('http.server.request.start', (message) => {
    const { request, response } = message as { request: { method?: string }; response: ServerResponse };
    const method = request.method ?? 'GET';
    const span = tracer.startSpan(method, { attributes: { 'http.request.method': method } });
    const parent = trace.setSpan(ROOT_CONTEXT, span);
    for (let i = 0; i < 4; i++) tracer.startSpan('results articles', { attributes: data }, parent).end();
    open.set(response, span);
  });
  subscribe('http.server.response.finish', (message) => {
    const { response } = message as { response: ServerResponse };
    open.get(response)?.end();
  });
}

/** A hook that makes no span and reads no clock: what the runtime's tracing machinery costs by itself. */
function emptyHook(): Instrumentation {
  const span: TraceSpan = { stage: () => span, end: () => undefined };
  return { request: () => span };
}

/**
 * The demo on the SQLite `file`, traced as `kind` says.
 *
 * @example
 * const demo = await startTracedDemo('demo-otel', '/tmp/blog.sqlite');
 */
export function startTracedDemo(kind: string, file: string): Promise<Demo> {
  const demo = (tracing: DemoOptions['tracing']) => startDemo({ port: 0, db: file, seed: 1, tracing });
  switch (kind) {
    case 'demo-server-timing':
      return demo({ serverTiming: true });
    case 'demo-hook':
      return demo({ instrument: emptyHook() });
    case 'demo-sdk-raw':
      rawSdkSpans(droppingTracer(false));
      return demo(undefined);
    case 'demo-context':
      droppingTracer(true);
      return demo({ instrument: inContext() });
    case 'demo-otel':
    case 'demo-otel-stages':
      return demo({
        instrument: inContext(openTelemetry({ tracer: droppingTracer(true), stages: kind === 'demo-otel-stages' })),
      });
    case 'demo-otel-bare':
      return demo({ instrument: openTelemetry({ tracer: droppingTracer(false) }) });
    case 'demo-sdk-spans':
      return demo({ instrument: sdkSpansOnly(droppingTracer(false)) });
    default:
      throw new Error(`unknown traced demo "${kind}"`);
  }
}
