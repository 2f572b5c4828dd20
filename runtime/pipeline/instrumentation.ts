/**
 * The instrumentation hook (the API's `instrument` option): what the runtime tells a tracer
 * about each request as it serves it. Our own small interface, so that the runtime depends on no
 * tracing library; `@jsonapi-gen/opentelemetry` implements it on OpenTelemetry.
 */

/**
 * Follows the requests of an API: `request` is called as each request starts, and the span it
 * returns hears of the request's stages and how it ended. What its methods throw goes to the
 * API's `onError`; the request is served all the same (that span left out).
 *
 * @example
 * const log: Instrumentation = {
 *   request(request) {
 *     const started = performance.now();
 *     const span: TraceSpan = {
 *       stage: (stage) => ({ stage: span.stage, end: ({ error }) => console.log(stage.name, stage.type ?? '', error ?? '') }),
 *       end: ({ status }) => console.log(request.method, request.url, status, performance.now() - started),
 *     };
 *     return span;
 *   },
 * };
 * new JsonApi({ instrument: log });
 */
export interface Instrumentation {
  /** A request starts; the span returned follows it to its end. */
  request(request: RequestStart): TraceSpan;
}

/** A request as it starts: what is known before it is routed. */
export interface RequestStart {
  readonly method: string;
  /** The full URL. */
  readonly url: string;
  /** A request header's value, or null (for trace context propagation: `traceparent`). */
  header(name: string): string | null;
}

/**
 * What a span covers: `parse` (the request read and checked: route, media types, query, and
 * for a write in a transaction its body), `authorize` (the endpoint's visibility callbacks),
 * `data` (one data-layer call), `serialize` (the document written as JSON text), `operation`
 * (one operation of an Atomic Operations batch, with stages of its own).
 */
export type StageKind = 'parse' | 'authorize' | 'data' | 'serialize' | 'operation';

/** The data-layer methods the runtime reports a `data` stage for. */
export type DataLayerCall =
  | 'find'
  | 'findMany'
  | 'exist'
  | 'results'
  | 'count'
  | 'loadRelated'
  | 'countRelated'
  | 'can'
  | 'create'
  | 'update'
  | 'delete'
  | 'addToRelationship'
  | 'removeFromRelationship';

/** A stage as it starts. */
export interface StageStart {
  readonly kind: StageKind;
  /** The kind, or for a `data` stage the data-layer method called. */
  readonly name: StageKind | DataLayerCall;
  /** The resource type whose data layer is called (absent for `exist`, which several share). */
  readonly type?: string;
  /** The relationship a `loadRelated` or `countRelated` call reads. */
  readonly relationship?: string;
}

/** The endpoint a request (or an Atomic operation) reached. */
export type TracedEndpoint =
  'index' | 'show' | 'create' | 'update' | 'delete' | 'related' | 'relationship' | 'extension';

/** What a request (or an Atomic operation) addresses, known once it is routed. */
export interface RouteInfo {
  /** GET for HEAD too. */
  readonly method: string;
  /** The route's template, base path included: `/api/articles/{id}/relationships/author`. */
  readonly route: string;
  /** The resource type of the URL (a related or relationship URL's owner); absent for an extension. */
  readonly type?: string;
  readonly endpoint: TracedEndpoint;
  /** The `include` query parameter as sent, when there is one. */
  readonly include?: string;
}

/** How a span's work ended. */
export interface SpanOutcome {
  /** The response's status, for a request or an Atomic operation (499: the client went away). */
  readonly status?: number;
  /**
   * What the work threw: a `JsonApiError` (or `JsonApiErrors`) when the request was refused, or
   * the unexpected error behind a 500.
   */
  readonly error?: unknown;
}

/**
 * One span of a request's trace: the request, or one of its stages. Every span is ended once.
 *
 * @example
 * const quiet: TraceSpan = { stage: () => quiet, end: () => undefined };
 */
export interface TraceSpan {
  /** A stage of this span's work starts (a request's, or an Atomic operation's). */
  stage(stage: StageStart): TraceSpan;
  /** The request (or Atomic operation) is routed; called at most once. */
  routed?(route: RouteInfo): void;
  /**
   * Runs `work` with this span as the current one, so that spans opened inside it (a database
   * driver's) are its children; the runtime runs each data-layer call, and each request, in it.
   */
  run?<T>(work: () => T): T;
  end(outcome: SpanOutcome): void;
}
