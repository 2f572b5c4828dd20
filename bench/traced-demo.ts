/**
 * The demo traced as bench/tracing-http.ts compares it (bench/serve.ts starts it for the kinds
 * `demo-server-timing`, `demo-context`, `demo-otel`, `demo-otel-stages`, `demo-otel-bare` and
 * `demo-sdk-spans`), on the OpenTelemetry SDK as a Node service sets it up, its spans dropped.
 */
import { type Attributes, ROOT_CONTEXT, type Tracer, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from '@jsonapi-gen/opentelemetry';
import type { Instrumentation, StageStart, TraceSpan } from 'jsonapi-gen';
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
  const names = new WeakMap<StageStart, { name: string; attributes: Attributes }>();
  return {
    request(start) {
      const request = tracer.startSpan(start.method, { attributes: { 'http.request.method': start.method } });
      const parent = trace.setSpan(ROOT_CONTEXT, request);
      const untraced: TraceSpan = { stage: () => untraced, end: () => undefined };
      return {
        stage(stage) {
          if (stage.kind !== 'data') return untraced;
          let described = names.get(stage);
          if (!described) {
            described = {
              name: `${stage.name} ${stage.type ?? ''}`,
              attributes: { 'jsonapi.data_layer.call': stage.name, 'jsonapi.resource_type': stage.type ?? '' },
            };
            names.set(stage, described);
          }
          const span = tracer.startSpan(described.name, { attributes: described.attributes }, parent);
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
