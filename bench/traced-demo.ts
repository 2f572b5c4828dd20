/**
 * The demo traced as bench/tracing-http.ts compares it (bench/serve.ts starts it for the kinds
 * `demo-server-timing`, `demo-otel`, `demo-otel-stages`, `demo-context` and `demo-otel-request`),
 * on the OpenTelemetry SDK as a Node service sets it up, its spans dropped.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from '@jsonapi-gen/opentelemetry';
import type { Instrumentation, TraceSpan } from 'jsonapi-gen';
import { type Demo, type DemoOptions, startDemo } from '../examples/blog/server.js';

/**
 * A tracer of the OpenTelemetry SDK as a Node service sets it up (an AsyncLocalStorage context
 * manager, a batch span processor) whose exporter drops every span: what tracing costs the
 * server, without an exporter's work.
 */
function droppingTracer() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = {
    export: (_spans: unknown, done: (result: { code: ExportResultCode }) => void) =>
      done({ code: ExportResultCode.SUCCESS }),
    shutdown: () => Promise.resolve(),
  };
  return new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }).getTracer('bench');
}

/** No span at all, but each request served in an OpenTelemetry context (the context manager's cost). */
function contextOnly(): Instrumentation {
  droppingTracer();
  const span: TraceSpan = {
    stage: () => span,
    run: (work) => context.with(context.active(), work),
    end: () => undefined,
  };
  return { request: () => span };
}

/** `instrumentation` with its request spans only: what one span costs, against a request's five. */
function requestSpanOnly(instrumentation: Instrumentation): Instrumentation {
  const untraced: TraceSpan = { stage: () => untraced, end: () => undefined };
  return {
    request(start) {
      const span = instrumentation.request(start);
      return {
        stage: () => untraced,
        routed: (route) => span.routed?.(route),
        run: (work) => (span.run ? span.run(work) : work()),
        end: (outcome) => span.end(outcome),
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
    case 'demo-otel':
    case 'demo-otel-stages':
      return demo({ instrument: openTelemetry({ tracer: droppingTracer(), stages: kind === 'demo-otel-stages' }) });
    case 'demo-context':
      return demo({ instrument: contextOnly() });
    case 'demo-otel-request':
      return demo({ instrument: requestSpanOnly(openTelemetry({ tracer: droppingTracer() })) });
    default:
      throw new Error(`unknown traced demo "${kind}"`);
  }
}
