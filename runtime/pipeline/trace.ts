import type { Context } from '../dsl/context.js';
import type { HttpResult } from '../http/result.js';
import type {
  Instrumentation,
  RequestStart,
  RouteInfo,
  SpanOutcome,
  StageKind,
  StageStart,
  TraceSpan,
} from './instrumentation.js';

/** The stages a `Server-Timing` header names, in its order (`db`: the data-layer calls). */
const METRICS = ['parse', 'authorize', 'db', 'serialize'] as const;
type Metric = (typeof METRICS)[number];

/**
 * The durations of one response's stages, for its `Server-Timing` header: shared by the
 * operations of an Atomic Operations batch, which add up.
 */
export class Timings {
  readonly started = performance.now();
  readonly #spent: Record<Metric, number | undefined> = {
    parse: undefined,
    authorize: undefined,
    db: undefined,
    serialize: undefined,
  };
  /** Data-layer calls in flight: `db` is the time during which at least one was (calls overlap). */
  #calls = 0;
  #callsSince = 0;

  add(metric: Metric, ms: number): void {
    this.#spent[metric] = (this.#spent[metric] ?? 0) + ms;
  }

  callStarted(now: number): void {
    if (this.#calls++ === 0) this.#callsSince = now;
  }

  callEnded(now: number): void {
    if (--this.#calls === 0) this.add('db', now - this.#callsSince);
  }

  /** `parse;dur=0.12, db;dur=1.40, ..., total;dur=2.05`: the stages that ran, then the whole. */
  header(): string {
    const metrics = METRICS.filter((m) => this.#spent[m] !== undefined).map((m) => `${m};dur=${ms(this.#spent[m]!)}`);
    metrics.push(`total;dur=${ms(performance.now() - this.started)}`);
    return metrics.join(', ');
  }
}

/** Milliseconds with two decimals (what the header's readers show). */
const ms = (value: number) => value.toFixed(2);

/** Where what the instrumentation throws goes (the API's `onError`): never into the request. */
type OnError = (error: unknown) => void;

/**
 * One request's trace as the runtime keeps it: the instrumentation's span (when the API has
 * `instrument`) and the `Server-Timing` durations (when it has `serverTiming`). An Atomic
 * operation gets a trace of its own under its batch's (`operation`). Only made when the API
 * traces: an API without either option makes none. A call of the instrumentation that throws
 * is reported to `onError`, and the request goes on (that span left out).
 */
export class Trace {
  readonly #span: TraceSpan | undefined;
  readonly #timings: Timings | undefined;
  readonly #onError: OnError;
  /** Every stage begun: those not ended when the request ends (a callback threw past them) end with it. */
  readonly #stages: Stage[] = [];

  constructor(span: TraceSpan | undefined, timings: Timings | undefined, onError: OnError) {
    this.#span = span;
    this.#timings = timings;
    this.#onError = onError;
  }

  /**
   * The trace of a request at the top (not an Atomic operation's twin).
   *
   * @example
   * import { memoryRequest } from '../http/request.js';
   * const request = memoryRequest('GET', 'http://localhost/articles', {});
   * const trace = Trace.start(undefined, true, request, (error) => console.error(error));
   */
  static start(
    instrumentation: Instrumentation | undefined,
    serverTiming: boolean,
    request: RequestStart,
    onError: OnError,
  ): Trace {
    let span: TraceSpan | undefined;
    try {
      span = instrumentation?.request(request);
    } catch (error) {
      onError(error);
    }
    return new Trace(span, serverTiming ? new Timings() : undefined, onError);
  }

  /** A child span of this trace's, or none when the instrumentation threw. */
  #child(start: StageStart): TraceSpan | undefined {
    try {
      return this.#span?.stage(start);
    } catch (error) {
      this.#onError(error);
      return undefined;
    }
  }

  /** A stage starts. */
  begin(kind: 'parse' | 'authorize' | 'serialize'): Stage {
    return this.#begin(kind, STAGES[kind]);
  }

  /** A data-layer call starts (`start`: its name, type and relationship). */
  beginCall(start: StageStart): Stage {
    return this.#begin('data', start);
  }

  #begin(kind: StageKind, start: StageStart): Stage {
    const stage = new Stage(kind, this.#child(start), this.#timings, this.#onError);
    this.#stages.push(stage);
    return stage;
  }

  /** An Atomic operation starts: a trace of its own, whose stages count in the batch's timings. */
  operation(): Trace {
    return new Trace(this.#child(STAGES.operation), this.#timings, this.#onError);
  }

  /** The request (or operation) is routed. */
  routed(route: RouteInfo): void {
    try {
      this.#span?.routed?.(route);
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Runs `work` as the span's (context propagation), or as it is. */
  run<T>(work: () => T): T {
    const span = this.#span;
    return span?.run ? span.run(work) : work();
  }

  /** Ends the stages left open (one threw past them) with what was thrown. */
  endStages(error: unknown): void {
    for (const stage of this.#stages) stage.end(error);
  }

  /** The request (or operation) ended: stages left open end with it. */
  end(status: number, error?: unknown): void {
    this.endStages(error);
    try {
      this.#span?.end(error === undefined ? { status } : { status, error });
    } catch (thrown) {
      this.#onError(thrown);
    }
  }

  /** `result` with its `Server-Timing` header, when the API sends one. */
  withTiming(result: HttpResult): HttpResult {
    if (!this.#timings) return result;
    return {
      status: result.status,
      headers: { ...result.headers, 'server-timing': this.#timings.header() },
      body: result.body,
    };
  }
}

/** The starts of the stages that are not data-layer calls: the same each time. */
const STAGES: Readonly<Record<'parse' | 'authorize' | 'serialize' | 'operation', StageStart>> = Object.freeze({
  parse: Object.freeze({ kind: 'parse', name: 'parse' }),
  authorize: Object.freeze({ kind: 'authorize', name: 'authorize' }),
  serialize: Object.freeze({ kind: 'serialize', name: 'serialize' }),
  operation: Object.freeze({ kind: 'operation', name: 'operation' }),
});

/** One stage of a trace, begun: ended once (later calls to `end` do nothing). */
export class Stage {
  readonly #kind: StageKind;
  readonly #span: TraceSpan | undefined;
  readonly #timings: Timings | undefined;
  readonly #onError: OnError;
  /** When it began, for the timings (read only when there are timings). */
  readonly #started: number;
  #ended = false;

  constructor(kind: StageKind, span: TraceSpan | undefined, timings: Timings | undefined, onError: OnError) {
    this.#kind = kind;
    this.#span = span;
    this.#timings = timings;
    this.#onError = onError;
    this.#started = timings ? performance.now() : 0;
    if (kind === 'data') timings?.callStarted(this.#started);
  }

  /** Runs `work` as the stage's span's (a data-layer call: the driver's spans nest under it). */
  run<T>(work: () => T): T {
    const span = this.#span;
    return span?.run ? span.run(work) : work();
  }

  end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const timings = this.#timings;
    if (timings) {
      const now = performance.now();
      const kind = this.#kind;
      if (kind === 'data') timings.callEnded(now);
      else if (kind !== 'operation') timings.add(kind, now - this.#started);
    }
    try {
      this.#span?.end(error === undefined ? ENDED : { error });
    } catch (thrown) {
      this.#onError(thrown);
    }
  }
}

/** The outcome of a stage that ended well. */
const ENDED: SpanOutcome = Object.freeze({});

/** Each context's trace, for the data-layer calls, which see only their context. */
const traces = new WeakMap<Context, Trace>();

/** Ties `context` to the trace its data-layer calls report to. */
export function traceContext(context: Context, trace: Trace): void {
  traces.set(context, trace);
}

/** The trace a context's data-layer calls report to, if any. */
export function traceOf(context: unknown): Trace | undefined {
  return typeof context === 'object' && context !== null ? traces.get(context as Context) : undefined;
}
