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

  /** `url`: the request URL when the caller has parsed it already (it must be `request.url`). */
  constructor(request: Request, attributes: Readonly<Record<string, unknown>> = {}, url?: URL) {
    this.request = request;
    this.#attributes = attributes;
    this.#url = url;
  }

  /** An attribute the host attached with `api.handle(request, { attributes })`. */
  getAttribute<T = unknown>(name: string): T | undefined {
    return Object.hasOwn(this.#attributes, name) ? (this.#attributes[name] as T) : undefined;
  }

  /** The request URL, parsed once. */
  get url(): URL {
    return (this.#url ??= new URL(this.request.url));
  }
}
