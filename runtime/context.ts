import type { RequestTarget } from './target.js';

/**
 * What every data-layer call and callback receives: the request and the attributes the host
 * attached to it (Fetch requests have none of their own).
 *
 * @example
 * Show.make().visible((ctx) => ctx.getAttribute('user') !== undefined);
 * await api.handle(request, { attributes: { user: '7' } });
 */
export class Context {
  /** The Fetch request being served. */
  readonly request: Request;
  readonly #attributes: Readonly<Record<string, unknown>>;
  #url: URL | undefined;
  #target: RequestTarget | undefined;

  /** `target`: the request URL's parts when the caller has read them already (from `request.url`). */
  constructor(request: Request, attributes: Readonly<Record<string, unknown>> = {}, target?: RequestTarget) {
    this.request = request;
    this.#attributes = attributes;
    this.#target = target;
    if (target instanceof URL) this.#url = target;
  }

  /** An attribute the host attached with `api.handle(request, { attributes })`. */
  getAttribute<T = unknown>(name: string): T | undefined {
    return Object.hasOwn(this.#attributes, name) ? (this.#attributes[name] as T) : undefined;
  }

  /** The request URL, parsed once. */
  get url(): URL {
    return (this.#url ??= new URL(this.request.url));
  }

  /** The request URL's origin, path and query: what links are made of, read without a `URL` when it can be (see `parseTarget`). */
  get target(): RequestTarget {
    return (this.#target ??= this.url);
  }
}
