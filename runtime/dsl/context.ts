import { type HttpRequest, fromFetch } from '../http/request.js';
import type { RequestTarget } from '../http/target.js';

/**
 * The types of the attributes a host attaches to requests, declared once by the host through
 * module augmentation; `getAttribute` then answers with them everywhere (a name not declared
 * here is `unknown`).
 *
 * @example
 * declare module 'jsonapi-gen' {
 *   interface ContextAttributes { user: string }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty on purpose: hosts fill it by declaration merging
export interface ContextAttributes {}

/** The type of the attribute `K`: as `ContextAttributes` declares it, else `unknown`. */
export type AttributeOf<K extends string> = K extends keyof ContextAttributes ? ContextAttributes[K] : unknown;

/**
 * The attributes a host attaches to one request, wherever it sets them (`api.handle`,
 * `api.fetch` and `api.serve` options, `toNodeHandler`'s `attributes`, `new Context`). Once the
 * host declares `ContextAttributes`, they are checked against it: a name it does not declare, or
 * a value of another type, fails to compile where the attributes are set. Every attribute is
 * optional, since not every request has one (an anonymous request has no `user`; `getAttribute`
 * then answers undefined). A host that declares no `ContextAttributes` may attach any names and
 * values (read back as `unknown`).
 *
 * @example
 * declare module 'jsonapi-gen' {
 *   interface ContextAttributes { user: string }
 * }
 * declare const api: JsonApi;
 * declare const request: Request;
 * await api.handle(request, { attributes: { user: '7' } }); // compiles; so does `{}`
 * await api.handle(request, { attributes: { user: 7 } });   // compile error: not a string
 * await api.handle(request, { attributes: { usr: '7' } });  // compile error: not declared
 */
export type RequestAttributes = [keyof ContextAttributes] extends [never]
  ? Readonly<Record<string, unknown>>
  : Readonly<Partial<ContextAttributes>>;

/** Per-request options of `handle`, `fetch` and `serve`. */
export interface HandleOptions {
  /** Values the host attaches to the request (the user, a tenant), read with `ctx.getAttribute`; see `RequestAttributes`. */
  attributes?: RequestAttributes;
}

/**
 * What every data-layer call and callback receives: the request and the attributes the host
 * attached to it (Fetch requests have none of their own). Their types come from
 * `ContextAttributes`.
 *
 * @example
 * declare const api: JsonApi;
 * declare const request: Request;
 * Show.make().visible((ctx) => ctx.getAttribute('user') !== undefined);
 * await api.handle(request, { attributes: { user: '7' } });
 */
export class Context {
  /** The request being served, as the runtime reads it (method, URL, headers). */
  readonly http: HttpRequest;
  /**
   * Whether the client made this write conditional with `If-Match` and the runtime found the
   * model's version current: a versioned data layer must then write only while the version is
   * still the one it read (see `Versioned`).
   */
  ifMatch = false;
  /**
   * What every context of one unit of work shares: the request itself, or for each operation of
   * an Atomic Operations batch, the batch. The API's `transaction` hook gets the context whose
   * unit its transaction spans, so a data layer finds the transaction by `ctx.unitOfWork`
   * (a WeakMap key) rather than through an async context.
   *
   * @example
   * import type { Transaction } from 'kysely';
   * import { db, type Database } from './db.js';
   * const open = new WeakMap<object, Transaction<Database>>();
   * new JsonApi({ transaction: (run, ctx) => db.transaction().execute(async (trx) => { open.set(ctx.unitOfWork, trx); return run(); }) });
   * const executor = (ctx: Context) => open.get(ctx.unitOfWork) ?? db;
   */
  readonly unitOfWork: object;
  readonly #attributes: Readonly<Record<string, unknown>>;
  #url: URL | undefined;
  #target: RequestTarget | undefined;

  /**
   * `target`: the request URL's parts when the caller has read them already (from
   * `request.url`); `unitOfWork`: the unit this request belongs to (default: its own).
   */
  constructor(
    request: HttpRequest | Request,
    attributes: RequestAttributes = {},
    target?: RequestTarget,
    unitOfWork?: object,
  ) {
    this.http = request instanceof Request ? fromFetch(request) : request;
    this.unitOfWork = unitOfWork ?? this;
    this.#attributes = attributes;
    this.#target = target;
    if (target instanceof URL) this.#url = target;
  }

  /** An attribute the host attached with `api.handle(request, { attributes })`, or undefined. */
  getAttribute<K extends string>(name: K): AttributeOf<K> | undefined {
    return Object.hasOwn(this.#attributes, name) ? (this.#attributes[name] as AttributeOf<K>) : undefined;
  }

  /** The Fetch `Request` being served; under the Node adapter, built on first use. */
  get request(): Request {
    return this.http.toRequest();
  }

  /**
   * Aborted when the client goes away before the response is complete: hand it to what takes
   * an `AbortSignal` (a `fetch`, a driver's query). The runtime itself stops between stages
   * (see `throwIfAborted`), so that no data-layer call follows once it is aborted.
   *
   * @example
   * declare const ctx: Context;
   * const found = await fetch('https://search.example.com/?q=json', { signal: ctx.signal });
   */
  get signal(): AbortSignal {
    return this.http.signal;
  }

  /**
   * Throws an `AbortError` when the client went away, as `AbortSignal.throwIfAborted` does; a
   * cheap look (no signal is built): what a data layer calls before each statement.
   *
   * @example
   * import { db } from './db.js';
   * async function findArticle(id: number, ctx: Context) {
   *   ctx.throwIfAborted();
   *   return db.selectFrom('articles').selectAll().where('id', '=', id).executeTakeFirst();
   * }
   */
  throwIfAborted(): void {
    if (this.http.aborted) throw new DOMException('The client went away', 'AbortError');
  }

  /** The request method. */
  get method(): string {
    return this.http.method;
  }

  /** A request header's value, or null; cheaper than `request.headers` where no `Request` exists yet. */
  header(name: string): string | null {
    return this.http.header(name);
  }

  /** The request URL, parsed once. */
  get url(): URL {
    return (this.#url ??= new URL(this.http.url));
  }

  /** The request URL's origin, path and query: what links are made of, read without a `URL` when it can be (see `parseTarget`). */
  get target(): RequestTarget {
    return (this.#target ??= this.url);
  }
}
