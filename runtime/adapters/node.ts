import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { type Materializable, forwardSlots } from '../lazy.js';
import { READ_BODY } from '../payload.js';
import { responseParts } from '../response.js';

/** Anything that answers a Fetch request: `api.fetch`, or a wrapper that adds attributes. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Options of `toNodeHandler`. */
export interface NodeHandlerOptions {
  /** The origin of request URLs (links are built from it). Default: `http://` plus the Host header. */
  origin?: string;
  /**
   * Called when the handler throws (`api.fetch` never does) or the response body fails midway;
   * the client gets a bare 500 that says nothing of the error. Default: `console.error`.
   */
  onError?: (error: unknown) => void;
}

/** A Node request as frameworks hand it over: Express adds `originalUrl` and, after a body parser, `body`. */
type FrameworkRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

/**
 * Serves a Fetch handler on `node:http`, and on frameworks built on it (Express; Fastify with
 * `reply.hijack()`): each Node request becomes a `Request`, each `Response` is written back.
 * Under Express's `app.use('/api', ...)` the mount path is kept (`req.originalUrl`), so links
 * carry it.
 *
 * The bridge costs next to nothing: the `Request` is built lazily (its method, URL and headers
 * are read from the Node request on demand, its body only when the handler reads it, its
 * `signal` only when asked for), and a `Response` made from a string (every JSON:API
 * document) is written to the socket as that string, with a Content-Length, never through a
 * stream. Anything else streams, with backpressure.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeHandler(api)).listen(3000);
 * // with attributes from your own auth:
 * createServer(toNodeHandler((req) => api.fetch(req, { attributes: { user: userOf(req) } })));
 */
export function toNodeHandler(
  target: FetchHandler | { fetch: FetchHandler },
  options: NodeHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const handle = typeof target === 'function' ? target : target.fetch;
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  return async (req, res) => {
    try {
      const response = await handle(toRequest(req, options.origin, undefined, res));
      // A body left unread (an early 413 or 415) would be parsed as the next request on this
      // connection: close it after the response instead.
      if (!req.complete) res.shouldKeepAlive = false;
      if (!writeOwn(response, res)) await writeResponse(response, res);
    } catch (error) {
      if (clientGone(res)) return; // nobody is listening any more
      onError(error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '21' });
        res.end('Internal Server Error');
      } else {
        res.destroy();
      }
    }
  };
}

/** The client went away before the response was complete. */
function clientGone(res: ServerResponse): boolean {
  return !res.writableFinished && (res.destroyed || !res.socket || res.socket.destroyed);
}

/**
 * A Fetch `Request` for a Node request; the body streams only when the request has one and
 * the handler reads it. `signal` (default: aborted when `res` closes before the response is
 * complete, if `res` is given) is created only when read.
 */
export function toRequest(req: IncomingMessage, origin?: string, signal?: AbortSignal, res?: ServerResponse): Request {
  const request = new NodeRequest(req, origin, signal, res);
  return LAZY ? (request as unknown as Request) : request.materialize();
}

/**
 * A `Request` (for `instanceof` and every method of `Request.prototype`) that reads the Node
 * request on demand. `method`, `url`, `headers` and `signal` are its own; anything else (the
 * body, `clone()`, `text()`, `new Request(request)`) goes to a real `Request` built on first
 * use, through the internal slots of the platform's `Request`.
 */
class NodeRequest implements Materializable<Request> {
  readonly #req: FrameworkRequest;
  readonly #origin: string | undefined;
  readonly #res: ServerResponse | undefined;
  #signal: AbortSignal | undefined;
  #url: string | undefined;
  #headers: Headers | undefined;
  #real: Request | undefined;
  /** The body, once `READ_BODY` has read it. */
  #bytes: Uint8Array | undefined;

  constructor(req: IncomingMessage, origin: string | undefined, signal: AbortSignal | undefined, res: ServerResponse | undefined) {
    this.#req = req;
    this.#origin = origin;
    this.#signal = signal;
    this.#res = res;
  }

  get method(): string {
    return this.#req.method ?? 'GET';
  }

  get url(): string {
    if (this.#url === undefined) {
      const req = this.#req;
      const path = req.originalUrl ?? req.url ?? '/';
      const origin = this.#origin ?? `http://${req.headers.host ?? 'localhost'}`;
      this.#url = (origin.endsWith('/') ? origin.replace(/\/+$/, '') : origin) + path;
    }
    return this.#url;
  }

  get headers(): Headers {
    if (this.#headers === undefined && this.#real) this.#headers = this.#real.headers;
    return (this.#headers ??= new NodeHeaders(this.#req.rawHeaders));
  }

  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      const res = this.#res;
      if (res) {
        if (clientGone(res)) controller.abort();
        else res.once('close', () => !res.writableFinished && controller.abort());
      }
      this.#signal = controller.signal;
    }
    return this.#signal;
  }

  /**
   * The body's bytes straight from the Node stream (no web stream, no real `Request`): what
   * the runtime's `readJson` asks for. Undefined once past `limit` bytes (the rest is left
   * unread, and the adapter closes the connection); null when the body must be read as usual
   * (the real `Request` exists, or a framework's parser read the stream). The bytes stay the
   * body of a `Request` built later.
   */
  [READ_BODY](limit: number): Promise<Uint8Array | undefined> | null {
    const req = this.#req;
    if (this.#real || this.#bytes || req.readableDidRead || req.readableEnded) return null;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > limit) {
          done();
          req.pause();
          resolve(undefined);
        } else chunks.push(chunk);
      };
      const onEnd = () => {
        done();
        resolve((this.#bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
      };
      const onError = (error: Error) => {
        done();
        reject(error);
      };
      const onClose = () => {
        done();
        reject(new Error('The client closed the connection before sending the whole body'));
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  }

  /** The real `Request`, built once. */
  materialize(): Request {
    if (this.#real) return this.#real;
    const req = this.#req;
    const method = this.method;
    const headers = new Headers(this.headers);
    const hasBody =
      method !== 'GET' && method !== 'HEAD' && (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
    const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: this.signal };
    if (hasBody && this.#bytes) {
      init.body = this.#bytes as BodyInit;
      headers.delete('transfer-encoding');
    } else if (hasBody) {
      const parsed = alreadyRead(req);
      if (parsed !== undefined) {
        // A body parser ran first; the stream is spent, so hand over what it read.
        init.body = parsed;
        headers.delete('content-length');
        headers.delete('transfer-encoding');
      } else {
        init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
        init.duplex = 'half';
      }
    }
    return (this.#real = new Request(this.url, init));
  }
}

/** A header name as Fetch accepts it (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * A request's headers: a real `Headers`, filled from the Node request's raw headers only when
 * something needs more than `get` or `has`. The runtime reads three or four headers a request,
 * and appending every header (each one validated and normalized) costs about ten times that.
 */
class NodeHeaders extends Headers {
  /** The raw headers (name, value, name, ...) until the `Headers` is filled. */
  #raw: string[] | undefined;

  constructor(raw: string[]) {
    super();
    this.#raw = raw;
  }

  /** From here on the `Headers` itself holds every header: the first thing but a read fills it. */
  #fill(): void {
    const raw = this.#raw;
    if (raw === undefined) return;
    this.#raw = undefined;
    // HTTP/2 pseudo-headers (":path") are not header names a Request accepts.
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.charCodeAt(0) !== 58) super.append(raw[i]!, raw[i + 1]!);
  }

  override get(name: string): string | null {
    const raw = this.#raw;
    // An invalid name goes to `Headers`, which throws as Fetch says.
    if (raw === undefined || !TOKEN.test(name)) {
      this.#fill();
      return super.get(name);
    }
    // As `Headers` does: every value of the name, in order, joined by ", ", outer whitespace trimmed.
    const lower = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const candidate = raw[i]!;
      if (candidate.length !== lower.length || candidate.toLowerCase() !== lower) continue;
      const v = trimWhitespace(raw[i + 1]!);
      value = value === null ? v : `${value}, ${v}`;
    }
    return value;
  }

  override has(name: string): boolean {
    return this.get(name) !== null;
  }

  /** Fills `headers` (for the methods below). */
  static fill(headers: NodeHeaders): void {
    headers.#fill();
  }
}

// Anything but a read (a change, an iteration, a copy through the iterator) fills the Headers
// first, then is the platform's own method. The iterator is then no longer `Headers.prototype.entries`,
// so a copy iterates it rather than reading the (still empty) internal list.
for (const name of ['append', 'delete', 'set', 'getSetCookie', 'forEach', 'entries', 'keys', 'values', Symbol.iterator] as const) {
  const method = Headers.prototype[name] as (this: Headers, ...args: unknown[]) => unknown;
  Object.defineProperty(NodeHeaders.prototype, name, {
    configurable: true,
    writable: true,
    value(this: NodeHeaders, ...args: unknown[]) {
      NodeHeaders.fill(this);
      return method.apply(this, args);
    },
  });
}

/** A header value without leading or trailing HTTP whitespace (tab, space, CR, LF), as `Headers` stores it. */
function trimWhitespace(value: string): string {
  return value.length > 0 && (isSpace(value.charCodeAt(0)) || isSpace(value.charCodeAt(value.length - 1)))
    ? value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '')
    : value;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Whether lazy requests work on this platform (see `forwardSlots`). */
const LAZY = forwardSlots(NodeRequest, Request, new Request('http://localhost/'), () => {
  // Check what hosts do with a request: copy it, clone it, read its body.
  const probe = new NodeRequest(
    { method: 'POST', url: '/p', headers: { host: 'h', 'content-length': '0' }, rawHeaders: ['Host', 'h', 'X-A', 'b'] } as unknown as IncomingMessage,
    undefined,
    undefined,
    undefined,
  ) as unknown as Request;
  const copy = new Request(probe, { method: 'PUT' });
  return probe instanceof Request && copy.url === 'http://h/p' && copy.headers.get('x-a') === 'b' && probe.clone().method === 'POST' && probe.bodyUsed === false;
});

/** The body a framework's parser consumed (`req.body`), as bytes or text; undefined when the stream is unread. */
function alreadyRead(req: FrameworkRequest): BodyInit | undefined {
  if (!req.readableEnded && !req.readableDidRead) return undefined;
  const body = req.body;
  if (body === undefined || body === null) return '';
  if (typeof body === 'string' || body instanceof Uint8Array) return body as BodyInit;
  return JSON.stringify(body);
}

/** The slot of the platform's `Response` that holds its body's source, when it has one we can read. */
const RESPONSE_STATE = (() => {
  try {
    const probe = new Response('probe');
    return Object.getOwnPropertySymbols(probe).find((slot) => {
      const state = (probe as unknown as Record<symbol, { body?: { source?: unknown } } | undefined>)[slot];
      return state?.body?.source === 'probe';
    });
  } catch {
    return undefined;
  }
})();

/** The string a `Response` was made from, if its body is that string, untouched. */
function stringBody(response: Response): string | undefined {
  if (RESPONSE_STATE === undefined) return undefined;
  const body = (response as unknown as Record<symbol, { body?: { source?: unknown; stream?: ReadableStream } } | undefined>)[RESPONSE_STATE]?.body;
  if (!body || typeof body.source !== 'string' || !body.stream || body.stream.locked || response.bodyUsed) return undefined;
  return body.source;
}

/**
 * Writes a Fetch `Response` to a Node response. A body made from a string (any
 * `new Response(string)`, so every JSON:API document) is written as that string, and a body
 * that arrives in one chunk is sent with a Content-Length; a longer stream is sent chunked,
 * with backpressure, and cancelled when the client goes away.
 */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  if (writeOwn(response, res)) return;
  // Each Set-Cookie its own entry (Headers joins the others with commas, as HTTP allows).
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers.push(name, value);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push('set-cookie', cookie);
  const hasLength = response.headers.has('content-length');
  if (response.body === null) return writeText(res, response.status, headers, null, hasLength);
  const text = stringBody(response);
  if (text !== undefined) return writeText(res, response.status, headers, text, hasLength);
  const reader = response.body.getReader();
  let closed = false; // before the end, 'close' means the client went away
  const onClose = () => (closed = true);
  res.once('close', onClose);
  try {
    const first = await reader.read();
    const second = first.done ? first : await reader.read();
    if (second.done) {
      const body = first.value ?? new Uint8Array(0);
      if (!hasLength) headers.push('content-length', String(body.byteLength));
      res.writeHead(response.status, headers);
      res.end(body);
      return;
    }
    res.writeHead(response.status, headers);
    let next: ReadableStreamReadResult<Uint8Array> = first;
    while (!next.done) {
      if (closed || res.destroyed) {
        await reader.cancel();
        return;
      }
      if (!res.write(next.value)) await drained(res);
      next = next === first ? second : await reader.read();
    }
    res.end();
  } finally {
    res.off('close', onClose);
    reader.releaseLock();
  }
}

/** Writes one of the runtime's own responses (status, header record and string: no `Response` was ever built) at once; false for any other. */
function writeOwn(response: Response, res: ServerResponse): boolean {
  const parts = responseParts(response);
  if (!parts) return false;
  const headers: string[] = [];
  for (const name in parts.headers) headers.push(name, parts.headers[name]!);
  writeText(res, parts.status, headers, parts.body, parts.headers['content-length'] !== undefined);
  return true;
}

/**
 * Writes a whole response at once: no body, or a string with its Content-Length (unless one is
 * set). Headers go as one flat [name, value, ...] list: Node stores them without building and
 * walking an object (measured on route c of the bench: about 9 µs a request less than an object
 * with the ETag and Cache-Control of a read).
 */
function writeText(res: ServerResponse, status: number, headers: string[], text: string | null, hasLength: boolean): void {
  if (text !== null && !hasLength) headers.push('content-length', String(Buffer.byteLength(text)));
  res.writeHead(status, headers);
  if (text === null) res.end();
  else res.end(text);
}

/** Resolves when `res` can take more, or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
