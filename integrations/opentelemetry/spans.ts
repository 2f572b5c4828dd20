import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import type { Instrumentation, RequestStart, RouteInfo, SpanOutcome, StageStart, TraceSpan } from 'jsonapi-gen';

/** Options of `openTelemetry`. */
export interface OpenTelemetryOptions {
  /** The tracer the spans are made with. Default: the global tracer provider's `@jsonapi-gen/opentelemetry`. */
  tracer?: Tracer;
  /**
   * Whether `parse`, `authorize` and `serialize` get spans too. Default: false: a request has its
   * span and those of its data-layer calls (and Atomic operations) only. With true, three spans
   * more per request, each costing about what a data-layer call's does (docs/performance.md).
   */
  stages?: boolean;
}

/**
 * The API's `instrument` option on OpenTelemetry: one server span per request (named
 * `GET articles` once routed, with the HTTP method, route, status, and the JSON:API resource
 * type, endpoint and `include`), a child span per data-layer call (`results articles`,
 * `loadRelated articles.author`) and per Atomic operation, and with `stages: true` per stage
 * (`parse`, `authorize`, `serialize`), errors recorded on the span that threw them. Each data-layer call runs with its span active,
 * so the spans a database driver's instrumentation opens nest under it (with a context manager
 * registered, as the Node SDK does). A request whose context has no span yet continues the
 * trace its `traceparent` header names.
 *
 * @example
 * import { createApi } from './generated/index.js';
 * import { store } from './store.js';
 * const api = createApi(store, { instrument: openTelemetry() });
 * // With spans for the parse, authorize and serialize stages too:
 * const detailed = createApi(store, { instrument: openTelemetry({ stages: true }) });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Instrumentation {
  const tracer = options.tracer ?? trace.getTracer('@jsonapi-gen/opentelemetry');
  const stages = options.stages ?? false;
  return {
    request(request) {
      const active = context.active();
      const parent = trace.getSpan(active) ? active : propagation.extract(active, request, HEADERS);
      const span = tracer.startSpan(
        request.method,
        { kind: SpanKind.SERVER, attributes: urlAttributes(request) },
        parent,
      );
      return new RequestSpan(tracer, stages, span, parent, request.method);
    },
  };
}

/** Reads the propagation headers (`traceparent`, `tracestate`, `baggage`) of a request. */
const HEADERS: TextMapGetter<RequestStart> = {
  keys: () => ['traceparent', 'tracestate', 'baggage'],
  get: (request, key) => request.header(key) ?? undefined,
};

/** `http.request.method`, `url.scheme`, `url.path` and `url.query` of a request. */
function urlAttributes(request: RequestStart): Attributes {
  const url = request.url;
  const scheme = url.indexOf('://');
  const path = url.indexOf('/', scheme + 3);
  const query = url.indexOf('?');
  const attributes: Attributes = { 'http.request.method': request.method, 'url.scheme': url.slice(0, scheme) };
  if (path >= 0 && (query < 0 || path < query)) attributes['url.path'] = url.slice(path, query < 0 ? undefined : query);
  if (query >= 0) attributes['url.query'] = url.slice(query + 1);
  return attributes;
}

/**
 * A span of the runtime's trace: its OpenTelemetry span, and the context that has it current
 * (made when first needed: only data-layer calls and operations run in theirs, or have stages).
 */
class StageSpan implements TraceSpan {
  protected readonly tracer: Tracer;
  protected readonly span: Span;
  /** Whether parse, authorize and serialize get spans (`OpenTelemetryOptions.stages`). */
  readonly #stages: boolean;
  readonly #parent: Context;
  #context: Context | undefined;

  constructor(tracer: Tracer, stages: boolean, span: Span, parent: Context) {
    this.tracer = tracer;
    this.#stages = stages;
    this.span = span;
    this.#parent = parent;
  }

  protected get context(): Context {
    return (this.#context ??= trace.setSpan(this.#parent, this.span));
  }

  stage(stage: StageStart): TraceSpan {
    if (!this.#stages && stage.kind !== 'data' && stage.kind !== 'operation') return UNTRACED;
    const span = this.tracer.startSpan(stageName(stage), { attributes: stageAttributes(stage) }, this.context);
    return new StageSpan(this.tracer, this.#stages, span, this.context);
  }

  /** An Atomic operation, once routed, is named and described as a request is. */
  routed(route: RouteInfo): void {
    this.span.updateName(`${route.method} ${route.type ?? route.route}`);
    this.span.setAttributes(routeAttributes(route));
  }

  run<T>(work: () => T): T {
    return context.with(this.context, work);
  }

  end(outcome: SpanOutcome): void {
    if (outcome.status !== undefined) this.span.setAttribute('http.response.status_code', outcome.status);
    if (outcome.error !== undefined) failed(this.span, outcome.error);
    this.span.end();
  }
}

/**
 * A request's server span: named by the request's own method (HEAD stays HEAD) and its type;
 * only a 5xx makes it an error (a 4xx is the client's, as HTTP's semantic conventions have it).
 */
class RequestSpan extends StageSpan {
  readonly #method: string;

  constructor(tracer: Tracer, stages: boolean, span: Span, parent: Context, method: string) {
    super(tracer, stages, span, parent);
    this.#method = method;
  }

  override routed(route: RouteInfo): void {
    this.span.updateName(`${this.#method} ${route.type ?? route.route}`);
    this.span.setAttributes(routeAttributes(route));
  }

  override end(outcome: SpanOutcome): void {
    const status = outcome.status ?? 500;
    this.span.setAttribute('http.response.status_code', status);
    if (status >= 500) {
      this.span.setAttribute('error.type', String(status));
      if (outcome.error !== undefined) failed(this.span, outcome.error);
      else this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

/** A stage that gets no span. */
const UNTRACED: TraceSpan = { stage: () => UNTRACED, end: () => undefined };

function stageName(stage: StageStart): string {
  if (stage.kind !== 'data') return stage.name;
  const of = stage.type === undefined ? '' : ` ${stage.type}${stage.relationship ? `.${stage.relationship}` : ''}`;
  return stage.name + of;
}

/** The attributes of the stages that are not data-layer calls: the same each time. */
const STAGE_ATTRIBUTES: Readonly<Record<string, Attributes>> = {
  parse: { 'jsonapi.stage': 'parse' },
  authorize: { 'jsonapi.stage': 'authorize' },
  serialize: { 'jsonapi.stage': 'serialize' },
  operation: { 'jsonapi.stage': 'operation' },
};

function stageAttributes(stage: StageStart): Attributes {
  if (stage.kind !== 'data') return STAGE_ATTRIBUTES[stage.kind]!;
  const attributes: Attributes = { 'jsonapi.stage': stage.kind };
  if (stage.kind === 'data') attributes['jsonapi.data_layer.call'] = stage.name;
  if (stage.type !== undefined) attributes['jsonapi.resource_type'] = stage.type;
  if (stage.relationship !== undefined) attributes['jsonapi.relationship'] = stage.relationship;
  return attributes;
}

function routeAttributes(route: RouteInfo): Attributes {
  const attributes: Attributes = { 'http.route': route.route, 'jsonapi.endpoint': route.endpoint };
  if (route.type !== undefined) attributes['jsonapi.resource_type'] = route.type;
  if (route.include !== undefined) attributes['jsonapi.include'] = route.include;
  return attributes;
}

/** Records what a span's work threw, and marks the span failed. */
function failed(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.recordException(String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}
