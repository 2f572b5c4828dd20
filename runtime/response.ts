import { type Materializable, forwardSlots } from './lazy.js';

/**
 * The platform's `Response`, as it was when the runtime loaded: a server library may replace
 * the global with a class of its own later (@hono/node-server does), and stand-ins must build
 * the class whose slots they forward.
 */
const PlatformResponse = globalThis.Response;

/** What a response of the runtime is made of, before any `Response` is built. */
export interface ResponseParts {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

/**
 * A `Response` of a string (every JSON:API document) or of nothing, built only when something
 * reads more than its status: a server adapter that knows it (`responseParts`) writes the
 * string straight to the socket, and the `Response` with its stream and `Headers` is never made.
 */
class StringResponse implements Materializable<Response> {
  readonly #parts: ResponseParts;
  #real: Response | undefined;

  constructor(parts: ResponseParts) {
    this.#parts = parts;
  }

  get status(): number {
    return this.#parts.status;
  }

  get ok(): boolean {
    return this.#parts.status >= 200 && this.#parts.status <= 299;
  }

  get statusText(): string {
    return '';
  }

  get type(): ResponseType {
    return 'default';
  }

  get url(): string {
    return '';
  }

  get redirected(): boolean {
    return false;
  }

  get bodyUsed(): boolean {
    return this.#real?.bodyUsed ?? false;
  }

  /** The real `Response`'s headers: from here on, they (and its body) are what counts. */
  get headers(): Headers {
    return this.materialize().headers;
  }

  materialize(): Response {
    const { body, status, headers } = this.#parts;
    return (this.#real ??= new PlatformResponse(body, { status, headers }));
  }

  /** The parts of `response` when it is an untouched `StringResponse`. */
  static parts(response: unknown): ResponseParts | undefined {
    return typeof response === 'object' && response !== null && #parts in response && response.#real === undefined ? response.#parts : undefined;
  }
}

/**
 * Whether stand-ins are used; elsewhere `stringResponse` builds real responses. Only on Node,
 * where the Node adapter writes the parts and undici keeps a response's state in slots we can
 * forward: Bun's and Deno's servers read the whole Response anyway (nothing to save), and
 * Deno's writes slots of its own onto it.
 */
const ON_NODE = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node !== undefined && !('Deno' in globalThis) && !('Bun' in globalThis);
const LAZY = ON_NODE && forwardSlots(StringResponse, PlatformResponse, new PlatformResponse('probe'), () => {
  const probe = new StringResponse({ status: 201, headers: { 'content-type': 'text/plain', 'x-a': 'b' }, body: 'probe' }) as unknown as Response;
  const copy = probe.clone();
  return probe instanceof PlatformResponse && copy.status === 201 && copy.headers.get('x-a') === 'b' && !probe.bodyUsed && probe.headers.get('content-type') === 'text/plain';
});

/**
 * A `Response` of `body` (a string, or null for none): on platforms that allow it, a stand-in
 * that builds the real one only when read (see `StringResponse`).
 *
 * @example
 * const response = stringResponse({ status: 200, headers: { 'content-type': MEDIA_TYPE }, body: '{}' });
 */
export function stringResponse(parts: ResponseParts): Response {
  return LAZY ? (new StringResponse(parts) as unknown as Response) : new PlatformResponse(parts.body, { status: parts.status, headers: parts.headers });
}

/**
 * The status, headers and body of a response `stringResponse` made, while nothing has read
 * its headers or body (after that the `Response` itself counts); undefined for any other.
 *
 * @example
 * const parts = responseParts(await api.fetch(request));
 * if (parts) res.writeHead(parts.status, parts.headers).end(parts.body);
 */
export function responseParts(response: Response): ResponseParts | undefined {
  return StringResponse.parts(response);
}

/**
 * The same response without its body (HEAD), headers kept.
 *
 * @example
 * return request.method === 'HEAD' ? withoutBody(response) : response;
 */
export function withoutBody(response: Response): Response {
  const parts = responseParts(response);
  if (parts) return stringResponse({ ...parts, body: null });
  return new PlatformResponse(null, { status: response.status, headers: response.headers });
}

/**
 * 204 No Content.
 *
 * @example
 * return noContent();
 */
export function noContent(): Response {
  return stringResponse({ status: 204, headers: {}, body: null });
}
