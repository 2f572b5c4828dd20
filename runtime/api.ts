import type { Extension, ExtensionHost } from './atomic/operations.js';
import { DEFAULT_LIMITS, type Limits } from './core/limits.js';
import { Context, type HandleOptions } from './dsl/context.js';
import { type IdempotencyOptions, serveIdempotently } from './write/idempotency.js';
import type { Outbox } from './dsl/outbox.js';
import { JsonApiError, JsonApiErrors, MethodNotAllowedError, NotFoundError, cappedErrors } from './core/errors.js';
import { Relationship } from './dsl/fields.js';
import { serveCollection } from './read/collection.js';
import { serveCreate } from './write/create.js';
import { serveDelete } from './write/delete.js';
import { type AfterCommit, type RequestState, type Settled, settle } from './pipeline/state.js';
import { serveRelated } from './read/related.js';
import { serveRelationshipWrite } from './write/relationship.js';
import { serveShow } from './read/show.js';
import { serveUpdate } from './write/update.js';
import { MEDIA_TYPE, negotiateAccept, negotiateContentType, negotiateExtension } from './http/negotiate.js';
import { readJson } from './write/body.js';
import { checkQueryEncoding, parseQuery } from './query/parse.js';
import { RegisteredResource, type ResourceLookup } from './registry/registry.js';
import { relatedIssues } from './dsl/declaration-rules.js';
import type { ResourceDefinition } from './dsl/resource.js';
import { type HttpRequest, fromFetch } from './http/request.js';
import { type HttpResult, toResponse, withoutBody } from './http/result.js';
import { jsonResult } from './pipeline/respond.js';
import { type Route, matchRoute } from './http/router.js';
import { RequestGate } from './http/gate.js';
import { checkCost, readCost } from './read/cost.js';
import { type RequestTarget, parseTarget } from './http/target.js';
import type { Instrumentation, RouteInfo, TracedEndpoint } from './pipeline/instrumentation.js';
import { Trace, traceContext } from './pipeline/trace.js';
import { tracedDefinition } from './pipeline/traced-data-layer.js';

/** Options of a `JsonApi`. */
export interface JsonApiOptions {
  /** Where the API is mounted, such as `/api/v1`; every link carries it. Default: the root. */
  basePath?: string;
  /**
   * Called with every unexpected error before it becomes a 500 whose body says nothing of it.
   * Default: `console.error`.
   */
  onError?: (error: unknown) => void;
  /** Implementation-specific query parameters the API accepts and ignores (camelCase names). */
  queryParameters?: readonly string[];
  /**
   * Runs each write request (POST, PATCH, DELETE) as one unit: every data-layer call of the
   * request happens inside `run`, so when any part fails, nothing is written. `context` is the
   * request's (for an Atomic Operations batch, the batch's): bind the transaction to
   * `context.unitOfWork`, which the context of every data-layer call of `run` shares. The
   * Kysely integration provides one; without it, writes run as they come.
   *
   * @example
   * import { db } from './db.js';
   * new JsonApi({ transaction: (run) => db.transaction().execute(() => run()) });
   */
  transaction?: <T>(run: () => Promise<T>, context: Context) => Promise<T>;
  /** Bounds on what one request may ask; see `Limits` for each default. */
  limits?: Partial<Limits>;
  /** Extensions the API serves, such as `atomic()` (Atomic Operations at `POST /operations`). */
  extensions?: readonly Extension[];
  /**
   * The `Cache-Control` of successful reads, by the resource type of the URL (a related or
   * relationship URL counts as its owner's). Default: `private, no-cache` for every type
   * (responses may depend on the caller; a cache must revalidate, which the `ETag` makes cheap).
   *
   * @example
   * new JsonApi({ cacheControl: (type) => (type === 'tags' ? 'public, max-age=60' : 'private, no-cache') });
   */
  cacheControl?: (type: string, context: Context) => string;
  /**
   * Idempotent retries: `POST` to a collection or an extension with an `Idempotency-Key` header
   * runs once per key and caller; a retry gets the first response (see `IdempotencyStore`).
   *
   * @example
   * import { kyselyIdempotency } from '@jsonapi-gen/kysely';
   * import { db } from './db.js';
   * new JsonApi({ idempotency: { store: kyselyIdempotency(db), scope: (ctx) => ctx.getAttribute('user') } });
   */
  idempotency?: IdempotencyOptions;
  /**
   * Follows each request as it is served: the span `instrument.request` returns hears of its
   * route, its stages (parse, authorize, each data-layer call, serialize; each operation of an
   * Atomic Operations batch) and its outcome. Each data-layer call runs inside its stage's span
   * (`TraceSpan.run`). Without it, nothing is traced and nothing is paid for it.
   *
   * @example
   * import { openTelemetry } from '@jsonapi-gen/opentelemetry';
   * new JsonApi({ instrument: openTelemetry() });
   */
  instrument?: Instrumentation;
  /**
   * Sends a `Server-Timing` header with each response of `fetch`, `serve`, the Node adapter and
   * `handle` (not on what `handle` rejects with): the milliseconds spent parsing, authorizing,
   * in data-layer calls (`db`: while at least one was running) and serializing, then the whole
   * (`total`). It tells anyone who sees the response how long each stage took: turn it on where
   * that is fine (development, or behind a proxy that removes it). Default: off.
   *
   * @example
   * new JsonApi({ serverTiming: process.env.NODE_ENV !== 'production' });
   */
  serverTiming?: boolean;
  /**
   * A transactional outbox: one entry per successful create, update and delete of its types,
   * written inside the write's transaction (see `Outbox`; the stores provide one each).
   *
   * @example
   * import { kyselyOutbox, kyselyTransaction } from '@jsonapi-gen/kysely';
   * import { db } from './db.js';
   * new JsonApi({ transaction: kyselyTransaction(db), outbox: kyselyOutbox(db, { types: ['articles'] }) });
   */
  outbox?: Outbox;
}

/**
 * A JSON:API server on Fetch `Request` and `Response`.
 *
 * @example
 * import { articles } from './schema.js';
 * import { store } from './store.js';
 * const api = new JsonApi({ basePath: '/api' });
 * api.resource({ ...articles, ...store.articles });
 * export default { fetch: api.fetch }; // Bun, Deno, Cloudflare, Hono: c => api.fetch(c.req.raw)
 */
export class JsonApi {
  readonly #resources = new Map<string, RegisteredResource>();
  readonly #basePath: string;
  readonly #onError: (error: unknown) => void;
  readonly #queryParameters: ReadonlySet<string>;
  readonly #transaction: JsonApiOptions['transaction'];
  readonly #cacheControl: JsonApiOptions['cacheControl'];
  readonly #idempotency: IdempotencyOptions | undefined;
  readonly #outbox: Outbox | undefined;
  /** The extensions by the path they answer at (basePath included); the first one declared wins. */
  readonly #extensionAt = new Map<string, Extension>();
  readonly #limits: Readonly<Limits>;
  /** The bound on concurrent work: every request served at the top (not an Atomic operation's twin) takes a turn. */
  readonly #gate: RequestGate;
  readonly #extensionUris: ReadonlySet<string>;
  readonly #instrument: Instrumentation | undefined;
  readonly #serverTiming: boolean;
  /** Whether requests are traced (`instrument` or `serverTiming`): checked once per request, nothing else is paid without. */
  readonly #tracing: boolean;
  #checked = false;
  readonly #lookup: ResourceLookup = (type) => this.#resources.get(type);

  constructor(options: JsonApiOptions = {}) {
    this.#basePath = (options.basePath ?? '').replace(/\/+$/, '');
    if (this.#basePath && !this.#basePath.startsWith('/'))
      throw new TypeError(`basePath must start with "/": ${options.basePath}`);
    this.#onError = options.onError ?? ((error) => console.error(error));
    this.#queryParameters = new Set(options.queryParameters ?? []);
    this.#transaction = options.transaction;
    this.#cacheControl = options.cacheControl;
    this.#idempotency = options.idempotency;
    this.#outbox = options.outbox;
    const extensions = options.extensions ?? [];
    for (const extension of extensions) {
      const path = this.#basePath + extension.path;
      if (!this.#extensionAt.has(path)) this.#extensionAt.set(path, extension);
    }
    this.#limits = Object.freeze({ ...DEFAULT_LIMITS, ...options.limits });
    this.#gate = new RequestGate(this.#limits);
    this.#extensionUris = new Set(extensions.map((e) => e.uri));
    this.#instrument = options.instrument;
    this.#serverTiming = options.serverTiming === true;
    this.#tracing = this.#instrument !== undefined || this.#serverTiming;
  }

  /**
   * Registers a resource under its type. Throws when the resource is malformed or lacks a
   * data-layer method an enabled endpoint needs.
   */
  resource(definition: ResourceDefinition): this {
    let registered = new RegisteredResource(definition);
    // Traced, the data layer's calls report to their request's trace (checked as given first, so that its errors read the same).
    if (this.#tracing) registered = new RegisteredResource(tracedDefinition(definition));
    if (this.#resources.has(registered.type)) throw new TypeError(`resource "${registered.type}" is registered twice`);
    this.#resources.set(registered.type, registered);
    this.#checked = false;
    return this;
  }

  /** The registered resources' types. */
  get types(): string[] {
    return [...this.#resources.keys()];
  }

  /**
   * Serves a Fetch request. Resolves with the response, or rejects with what went wrong: pass
   * that to `error()` (or use `fetch`, which does both).
   *
   * @example
   * declare const api: JsonApi;
   * const response = await api.handle(new Request('http://localhost/articles'), { attributes: { user: '7' } });
   */
  handle = (request: Request, options: HandleOptions = {}): Promise<Response> =>
    (this.#tracing ? this.#traced(fromFetch(request), options, true) : this.#handle(fromFetch(request), options)).then(
      toResponse,
    );

  /**
   * Serves the runtime's own request value and never rejects: anything thrown becomes an error
   * result. What adapters call (the Node adapter builds the request straight from Node's).
   *
   * @example
   * declare const api: JsonApi;
   * const result = await api.serve(memoryRequest('GET', 'http://localhost/articles/1', {}));
   * result.status; // 200
   */
  serve = (request: HttpRequest, options: HandleOptions = {}): Promise<HttpResult> =>
    this.#tracing
      ? this.#traced(request, options, false)
      : this.#handle(request, options).catch((thrown: unknown) => this.#failure(request, thrown));

  /**
   * A request served under its trace, from start to answer: `serve`'s (an error becomes its
   * result) or, with `rethrow`, `handle`'s.
   */
  async #traced(request: HttpRequest, options: HandleOptions, rethrow: boolean): Promise<HttpResult> {
    const trace = Trace.start(this.#instrument, this.#serverTiming, request, this.#onError);
    let result: HttpResult;
    try {
      result = await trace.run(() => this.#handle(request, options, trace));
    } catch (thrown) {
      trace.endStages(thrown);
      if (rethrow) {
        trace.end(request.aborted ? 499 : errorStatus(thrown), thrown);
        throw thrown;
      }
      result = this.#failure(request, thrown);
      trace.end(result.status, thrown);
      return trace.withTiming(result);
    }
    trace.end(result.status);
    return trace.withTiming(result);
  }

  #handle = (request: HttpRequest, options: HandleOptions, trace?: Trace): Promise<HttpResult> => {
    // Not async: the promise of #serve is handed on as it is, one promise and turn fewer a request.
    try {
      this.#checkRelationships();
      if (request.url.length > this.#limits.urlLength) {
        throw new JsonApiError(414, {
          detail: `URLs may be at most ${this.#limits.urlLength} characters`,
          code: 'limit_exceeded',
          meta: { limit: this.#limits.urlLength },
        });
      }
      const url = parseTarget(request.url);
      const extension = this.#extensionAt.get(url.pathname);
      if (this.#idempotency && request.method === 'POST' && request.header('idempotency-key') !== null) {
        if (extension || matchRoute(url.pathname, this.#basePath)?.id === undefined) {
          const context = new Context(request, options.attributes, url);
          // The first run is served as `serve` would, under this request's trace.
          return serveIdempotently(request, context, this.#idempotency, this.#limits, (inner) =>
            this.#handle(inner, options, trace).catch((thrown: unknown) => this.#failure(inner, thrown)),
          );
        }
      }
      return extension
        ? this.#serveExtensionInTurn(extension, request, options, trace)
        : this.#serve(request, options, url, true, undefined, undefined, trace);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rejects with what was thrown, as it is, as an async function would
      return Promise.reject(error);
    }
  };

  #serve = async (
    request: HttpRequest,
    options: HandleOptions,
    url: RequestTarget,
    transactional: boolean,
    unitOfWork?: object,
    batchAfterCommit?: AfterCommit,
    trace?: Trace,
  ): Promise<HttpResult> => {
    // A stage that throws stays open: the trace ends it with the request, and its error.
    const parsing = trace?.begin('parse');
    const route = matchRoute(url.pathname, this.#basePath);
    const resource = route && this.#resources.get(route.type);
    if (!route || !resource) throw new NotFoundError({ detail: `Nothing is served at ${url.pathname}` });
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    trace?.routed(routeInfo(this.#basePath, resource, route, method, url));
    const allowed = allowedMethods(resource, route);
    if (!allowed.includes(method)) {
      if (allowed.length === 0) throw new NotFoundError({ detail: `Nothing is served at ${url.pathname}` });
      throw new MethodNotAllowedError(allowed, { detail: `${request.method} is not allowed here` });
    }
    negotiateAccept(request.header('accept'), this.#extensionUris);
    const hasBody = method === 'POST' || method === 'PATCH' || (method === 'DELETE' && route.linkage);
    if (hasBody) negotiateContentType(request.header('content-type'), this.#extensionUris);
    // The body is read before the transaction begins, so that no transaction (on SQLite, the
    // one connection) waits on a slow client; its errors surface where the handler reads it.
    const body = hasBody ? settle(readJson(request, this.#limits)) : undefined;
    let read: Settled<unknown> | undefined;
    if (body && transactional && this.#transaction) read = await body;
    // Only a `%` can be a bad escape: the common query pays one scan for it.
    if (url.search.includes('%')) checkQueryEncoding(url.search);
    const context = new Context(request, options.attributes, url, unitOfWork);
    if (trace) traceContext(context, trace);
    const baseUrl = url.origin + this.#basePath;
    const state: RequestState = {
      context,
      route,
      resource,
      query: parseQuery(url.searchParams, this.#queryParameters, this.#limits),
      limits: this.#limits,
      lookup: this.#lookup,
      baseUrl,
      method,
      body: read ?? body,
      cacheControl: this.#cacheControl,
      afterCommit: batchAfterCommit ?? [],
      trace,
      outbox: this.#outbox,
    };
    parsing?.end();
    // Every request served at the top takes a turn; an Atomic operation's twin (not
    // transactional) runs in its batch's.
    const gate = transactional ? this.#gate : undefined;
    if (gate) {
      const cost = method === 'GET' ? readCost(state) : 1;
      checkCost(state, cost);
      // (A waiting request whose client goes away is dropped by the gate, never started.)
      if (!gate.tryEnter(cost)) await gate.wait(cost, request);
    }
    try {
      const response =
        method === 'GET' || !this.#transaction || !transactional
          ? await this.#dispatch(state, method)
          : await this.#transaction(() => this.#dispatch(state, method), context);
      // Committed (an Atomic operation's twin leaves its hooks to the batch).
      if (!batchAfterCommit && state.afterCommit.length > 0) await this.#runAfterCommit(state.afterCommit);
      return request.method === 'HEAD' ? withoutBody(response) : response;
    } finally {
      gate?.leave();
    }
  };

  /**
   * Turns anything thrown into a JSON:API errors response. Unexpected errors become a 500 that
   * leaks nothing; they are passed to `onError`.
   *
   * @example
   * declare const api: JsonApi;
   * declare const request: Request;
   * const response = await api.handle(request).catch(api.error);
   */
  error = (thrown: unknown): Response => toResponse(this.#errorResult(thrown));

  /**
   * `handle`, with anything thrown turned into an error response: it never rejects.
   *
   * @example
   * declare const api: JsonApi;
   * export default { fetch: api.fetch };
   */
  fetch = (request: Request, options?: HandleOptions): Promise<Response> =>
    this.serve(fromFetch(request), options).then(toResponse);

  /** What `serve` answers when the pipeline threw. */
  #failure(request: HttpRequest, thrown: unknown): HttpResult {
    // The client went away (its adapter aborted the request): not a server error, and nobody
    // is left to read an answer.
    if (request.aborted) return { status: 499, headers: {}, body: null };
    const result = this.#errorResult(thrown);
    // HEAD is GET without a body, errors included.
    return request.method === 'HEAD' ? withoutBody(result) : result;
  }

  #errorResult(thrown: unknown): HttpResult {
    let errors =
      thrown instanceof JsonApiErrors ? thrown.errors : thrown instanceof JsonApiError ? [thrown] : undefined;
    if (!errors || errors.length === 0) {
      this.#onError(thrown);
      return jsonResult({ jsonapi: { version: '1.1' }, errors: [new JsonApiError(500).toObject()] }, 500);
    }
    const status = thrown instanceof JsonApiErrors ? thrown.status : errors[0]!.status;
    // Whoever threw them, an answer lists at most `limits.errors` (the runtime's own checks stop
    // there and add one error saying so: hence the + 1).
    if (errors.length > this.#limits.errors + 1) errors = cappedErrors(errors, this.#limits.errors).errors;
    const headers = Object.assign({}, ...errors.map((e) => e.headers)) as Record<string, string>;
    return jsonResult({ jsonapi: { version: '1.1' }, errors: errors.map((e) => e.toObject()) }, status, headers);
  }

  /** An extension's request (an Atomic Operations batch, a write: cost 1), in its turn. */
  async #serveExtensionInTurn(
    extension: Extension,
    request: HttpRequest,
    options: HandleOptions,
    trace: Trace | undefined,
  ): Promise<HttpResult> {
    const gate = this.#gate;
    if (!gate.tryEnter(1)) await gate.wait(1, request);
    try {
      return await this.#serveExtension(extension, request, options, trace);
    } finally {
      gate.leave();
    }
  }

  async #serveExtension(
    extension: Extension,
    request: HttpRequest,
    options: HandleOptions,
    trace: Trace | undefined,
  ): Promise<HttpResult> {
    trace?.routed({ method: request.method, route: this.#basePath + extension.path, endpoint: 'extension' });
    if (request.method !== 'POST')
      throw new MethodNotAllowedError(['POST'], { detail: `${request.method} is not allowed here` });
    negotiateExtension(request, extension.uri);
    // The batch is one unit of work: its operations' contexts share the batch context's unit,
    // and their after-commit hooks run once the whole batch committed.
    let unitOfWork: object | undefined;
    const afterCommit: AfterCommit = [];
    const host: ExtensionHost = {
      basePath: this.#basePath,
      limits: this.#limits,
      serve: (inner, innerOptions) =>
        trace
          ? traceOperation(trace.operation(), (operation) =>
              this.#serve(inner, innerOptions, parseTarget(inner.url), false, unitOfWork, afterCommit, operation),
            )
          : this.#serve(inner, innerOptions, parseTarget(inner.url), false, unitOfWork, afterCommit),
      transaction: (run, outer, outerOptions) => {
        const batch = new Context(outer, outerOptions.attributes);
        unitOfWork = batch.unitOfWork;
        return this.#transaction ? this.#transaction(run, batch) : run();
      },
      respond: (document, status) => {
        const serializing = trace?.begin('serialize');
        const body = JSON.stringify({ jsonapi: { version: '1.1', ext: [extension.uri] }, ...document });
        serializing?.end();
        return { status, headers: { 'content-type': `${MEDIA_TYPE}; ext="${extension.uri}"`, vary: 'Accept' }, body };
      },
    };
    const result = await extension.handle(request, options, host);
    if (afterCommit.length > 0) await this.#runAfterCommit(afterCommit);
    return result;
  }

  /** Runs after-commit hooks in order; what one throws goes to `onError`, the write stays answered as committed. */
  async #runAfterCommit(tasks: AfterCommit): Promise<void> {
    for (const task of tasks) {
      try {
        await task();
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  #dispatch(state: RequestState, method: string): Promise<HttpResult> {
    const { route, resource } = state;
    if (route.id === undefined) {
      if (method === 'POST') return serveCreate(state);
      return serveCollection(state, {
        resource,
        index: resource.endpoint('index'),
        start: () => resource.definition.query!(state.context),
        identifiersOnly: false,
      });
    }
    if (route.relationship !== undefined) {
      if (method !== 'GET') return serveRelationshipWrite(state, route.id, route.relationship, method);
      return serveRelated(state, route.id, route.relationship);
    }
    if (method === 'DELETE') return serveDelete(state, route.id);
    if (method === 'PATCH') return serveUpdate(state, route.id);
    return serveShow(state, route.id);
  }

  /**
   * What only every resource together tells (a relationship to a registered type, paths naming
   * the related resource's attributes): the declaration rules' `relatedIssues`, checked once, at
   * the first request.
   */
  #checkRelationships(): void {
    if (this.#checked) return;
    const problems: string[] = [];
    const declared = new Map([...this.#resources].map(([type, resource]) => [type, resource.definition]));
    for (const resource of this.#resources.values()) {
      for (const issue of relatedIssues(resource.definition, declared))
        problems.push(`resource "${resource.type}": ${issue.message}`);
    }
    if (problems.length > 0) throw new TypeError(problems.join('; '));
    this.#checked = true;
  }
}

/** An Atomic operation served under its own trace, ended with its status (or the error it throws). */
async function traceOperation(trace: Trace, serve: (trace: Trace) => Promise<HttpResult>): Promise<HttpResult> {
  try {
    const result = await trace.run(() => serve(trace));
    trace.end(result.status);
    return result;
  } catch (error) {
    trace.end(errorStatus(error), error);
    throw error;
  }
}

/** The status of the error response a thrown value becomes. */
function errorStatus(thrown: unknown): number {
  return thrown instanceof JsonApiErrors || thrown instanceof JsonApiError ? thrown.status : 500;
}

/**
 * What a routed request addresses, for its trace: the endpoint it reaches, its route's template
 * (`{id}` for the id) and its `include` parameter as sent.
 */
function routeInfo(
  basePath: string,
  resource: RegisteredResource,
  route: Route,
  method: string,
  url: RequestTarget,
): RouteInfo {
  const collection = `${basePath}/${resource.typeSegment}`;
  const member = `${collection}/{id}`;
  const [template, endpoint]: [string, TracedEndpoint] =
    route.id === undefined
      ? [collection, method === 'POST' ? 'create' : 'index']
      : route.relationship === undefined
        ? [member, method === 'PATCH' ? 'update' : method === 'DELETE' ? 'delete' : 'show']
        : route.linkage
          ? [`${member}/relationships/${route.relationship}`, 'relationship']
          : [`${member}/${route.relationship}`, 'related'];
  const include = url.search === '' ? null : url.searchParams.get('include');
  const info = { method, route: template, type: resource.type, endpoint };
  return include === null ? info : { ...info, include };
}

/** The methods a route answers, from the endpoints its resource enables. */
function allowedMethods(resource: RegisteredResource, route: Route): readonly string[] {
  if (route.id === undefined) return resource.collectionMethods;
  if (route.relationship === undefined) return resource.resourceMethods;
  // Read-only relationships and POST/DELETE on to-one ones are refused with 403 by the handler.
  if (!(resource.fields.get(route.relationship) instanceof Relationship)) return [];
  const methods = resource.endpoints.has('show') ? ['GET', 'HEAD'] : [];
  if (route.linkage && resource.endpoints.has('update')) methods.push('PATCH', 'POST', 'DELETE');
  return methods;
}
