/**
 * The Node adapter: `toNodeHandler(api)` serves a `JsonApi` on `node:http`, Express and Fastify.
 *
 * @module jsonapi-gen/node
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { HandleOptions, RequestAttributes } from '../dsl/context.js';
import type { HttpRequest } from '../http/request.js';
import type { HttpResult } from '../http/result.js';

/** Anything that answers a Fetch request: `api.fetch`, or a wrapper of your own. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** What serves the runtime's own request value: a `JsonApi` (its `serve` never rejects). */
export interface Server {
  serve(request: HttpRequest, options?: HandleOptions): Promise<HttpResult>;
}

/** Options of `toNodeHandler`. */
export interface NodeHandlerOptions {
  /** The origin of request URLs (links are built from it). Default: `http://` plus the Host header. */
  origin?: string;
  /**
   * Called when the handler throws (`api.fetch` never does) or the response body fails midway;
   * the client gets a bare 500 that says nothing of the error. Default: `console.error`.
   */
  onError?: (error: unknown) => void;
  /**
   * The context attributes of a request (the user, a tenant), from the Node request (under
   * Express, what its middleware put there) or the runtime's request value (its `header(name)`).
   * Only with a `JsonApi`; a Fetch handler passes its own. Checked against `ContextAttributes`
   * (see `RequestAttributes`).
   *
   * @example
   * declare const api: JsonApi;
   * toNodeHandler(api, { attributes: (req, request) => ({ user: request.header('x-user') ?? undefined }) });
   */
  attributes?: (req: IncomingMessage, request: HttpRequest) => RequestAttributes;
  /**
   * A request body the API answered without reading to its end (a 413 past `limits.bodyBytes`,
   * a 415) is read on and thrown away before the answer goes out, up to `bytes` (default 8 MiB)
   * and for up to `ms` (default 2000): closing a socket while the client is still sending resets
   * it, and the client loses the answer (EPIPE, ECONNRESET). The connection closes after the
   * answer. A body declared (Content-Length) longer than `bytes` is not read at all, and one
   * that goes on past the bound is cut: such a client may see a reset instead of the 413.
   *
   * @example
   * declare const api: JsonApi;
   * toNodeHandler(api, { drain: { bytes: 16 * 1024 * 1024, ms: 5000 } });
   */
  drain?: { bytes?: number; ms?: number };
}

/** The defaults of `NodeHandlerOptions.drain`. */
const DRAIN_BYTES = 8 * 1024 * 1024;
const DRAIN_MS = 2000;

/** A Node request as frameworks hand it over: Express adds `originalUrl` and, after a body parser, `body`. */
type FrameworkRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

/**
 * Serves a `JsonApi` (or any Fetch handler) on `node:http`, and on frameworks built on it
 * (Express; Fastify with `reply.hijack()`). Under Express's `app.use('/api', ...)` the mount
 * path is kept (`req.originalUrl`), so links carry it.
 *
 * Given a `JsonApi`, the adapter hands it the Node request as the runtime's own request value
 * (headers read on demand, the body read straight from the stream) and writes its result to
 * the socket as one string with a Content-Length: no Fetch `Request`, `Headers` or `Response`
 * is built unless a callback asks for `ctx.request`. Given a Fetch handler, each request
 * becomes a `Request` and each `Response` is written back, streamed with backpressure.
 *
 * @example
 * import { createServer, type IncomingMessage } from 'node:http';
 * declare const api: JsonApi;
 * declare function userOf(req: IncomingMessage): string | undefined; // the host's authentication
 * createServer(toNodeHandler(api, { attributes: (req) => ({ user: userOf(req) }) })).listen(3000);
 * // or any Fetch handler:
 * createServer(toNodeHandler((request) => api.fetch(request, { attributes: { user: '7' } })));
 */
export function toNodeHandler(
  target: Server | FetchHandler | { fetch: FetchHandler },
  options: NodeHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const server = typeof target === 'object' && 'serve' in target ? target : undefined;
  const fetch = server ? undefined : typeof target === 'function' ? target : (target as { fetch: FetchHandler }).fetch;
  const attributes = options.attributes;
  const drainBytes = options.drain?.bytes ?? DRAIN_BYTES;
  const drainMs = options.drain?.ms ?? DRAIN_MS;
  return async (req, res) => {
    try {
      const request = new NodeRequest(req, res, options.origin);
      if (server) {
        const result = await server.serve(request, attributes ? { attributes: attributes(req, request) } : undefined);
        if (!req.complete) await finishUnread(req, res, drainBytes, drainMs);
        writeResult(res, result);
      } else {
        const response = await fetch!(request.toRequest());
        if (!req.complete) await finishUnread(req, res, drainBytes, drainMs);
        await writeResponse(response, res);
      }
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

/**
 * For a request whose body was left unread (an early 413 or 415): the connection closes after
 * the response (keeping it would mean reading the rest, however long), and before the response
 * the rest is read and thrown away, up to `bytes` and `ms`, so that closing does not reset a
 * connection the client is still sending on (which loses the response).
 */
function finishUnread(req: IncomingMessage, res: ServerResponse, bytes: number, ms: number): Promise<void> {
  res.shouldKeepAlive = false;
  const declared = req.headers['content-length'];
  if (req.destroyed || (declared !== undefined && Number(declared) > bytes)) return Promise.resolve();
  return new Promise((resolve) => {
    let left = bytes;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      req.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      left -= chunk.byteLength;
      if (left < 0) done();
    };
    const timer = setTimeout(done, ms);
    req.on('data', onData);
    req.on('end', done);
    req.on('close', done);
    req.on('error', done);
    req.resume();
  });
}

/** The client went away before the response was complete. */
function clientGone(res: ServerResponse): boolean {
  return !res.writableFinished && (res.destroyed || !res.socket || res.socket.destroyed);
}

/**
 * A Fetch `Request` for a Node request; its body streams only when read. `signal` (default:
 * aborted when `res` closes before the response is complete, if `res` is given).
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(async (req, res) => {
 *   const request = toRequest(req, 'https://api.example', undefined, res);
 *   // ...
 * });
 */
export function toRequest(req: IncomingMessage, origin?: string, signal?: AbortSignal, res?: ServerResponse): Request {
  return new NodeRequest(req, res, origin, signal).toRequest();
}

/** The runtime's request value of a Node request: method, URL and headers read on demand, the body from the stream. */
class NodeRequest implements HttpRequest {
  readonly #req: FrameworkRequest;
  readonly #res: ServerResponse | undefined;
  readonly #origin: string | undefined;
  #signal: AbortSignal | undefined;
  #url: string | undefined;
  #real: Request | undefined;
  /** The body, once `body()` has read it. */
  #bytes: Uint8Array | undefined;

  constructor(req: IncomingMessage, res: ServerResponse | undefined, origin: string | undefined, signal?: AbortSignal) {
    this.#req = req;
    this.#res = res;
    this.#origin = origin;
    this.#signal = signal;
  }

  get method(): string {
    return this.#req.method ?? 'GET';
  }

  get url(): string {
    if (this.#url === undefined) {
      const req = this.#req;
      const path = req.originalUrl ?? req.url ?? '/';
      // From the raw headers: `req.headers` would build Node's header object for this one read.
      const origin = this.#origin ?? `http://${this.header('host') ?? 'localhost'}`;
      this.#url = (origin.endsWith('/') ? origin.replace(/\/+$/, '') : origin) + path;
    }
    return this.#url;
  }

  get aborted(): boolean {
    return this.#signal?.aborted ?? (this.#res !== undefined && clientGone(this.#res));
  }

  /** Built on first use (most requests never ask): aborted when the client goes away before the response is complete. */
  get signal(): AbortSignal {
    return (this.#signal ??= this.#abortSignal());
  }

  /** As `Headers.get`: every value of the name, in order, joined by ", ", outer whitespace trimmed. */
  header(name: string): string | null {
    const raw = this.#req.rawHeaders;
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

  /** The body's bytes straight from the Node stream (or what a framework's body parser read). */
  body(limit: number): Promise<Uint8Array | undefined> {
    if (this.#bytes) return Promise.resolve(this.#bytes);
    const req = this.#req;
    if (req.readableDidRead || req.readableEnded) {
      const parsed = alreadyRead(req);
      const bytes = typeof parsed === 'string' ? Buffer.from(parsed) : parsed;
      return Promise.resolve(bytes.byteLength > limit ? undefined : (this.#bytes = bytes));
    }
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

  /** The Fetch `Request`, built once: with the bytes `body()` read, or streaming the Node request. */
  toRequest(): Request {
    if (this.#real) return this.#real;
    const req = this.#req;
    const method = this.method;
    const headers = new Headers();
    const raw = req.rawHeaders;
    // HTTP/2 pseudo-headers (":path") are not header names a Request accepts.
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.charCodeAt(0) !== 58) headers.append(raw[i]!, raw[i + 1]!);
    const hasBody =
      method !== 'GET' &&
      method !== 'HEAD' &&
      (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
    const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: this.signal };
    if (hasBody && (this.#bytes || req.readableDidRead || req.readableEnded)) {
      // Read already (by `body()` or a framework's parser): hand over what was read.
      init.body = (this.#bytes ?? alreadyRead(req)) as BodyInit;
      headers.delete('content-length');
      headers.delete('transfer-encoding');
    } else if (hasBody) {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
    return (this.#real = new Request(this.url, init));
  }

  /** Aborted when the client goes away before the response is complete. */
  #abortSignal(): AbortSignal {
    const controller = new AbortController();
    const res = this.#res;
    if (res) {
      if (clientGone(res)) controller.abort();
      else res.once('close', () => !res.writableFinished && controller.abort());
    }
    return controller.signal;
  }
}

/** A header value without leading or trailing HTTP whitespace (tab, space, CR, LF), as `Headers` stores it. */
function trimWhitespace(value: string): string {
  const space = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
  return value.length > 0 && (space(value.charCodeAt(0)) || space(value.charCodeAt(value.length - 1)))
    ? value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '')
    : value;
}

/** The body a framework's parser consumed (`req.body`), as bytes or text. */
function alreadyRead(req: FrameworkRequest): Uint8Array | string {
  const body = req.body;
  if (body === undefined || body === null) return '';
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  return JSON.stringify(body);
}

/**
 * Writes a result at once: no body, or a string with its Content-Length. Headers go as one flat
 * [name, value, ...] list: Node stores them without building and walking an object (what that
 * saves is measured in bench/results.md, "One async model").
 *
 * @example
 * import { createServer } from 'node:http';
 * declare const api: JsonApi;
 * createServer(async (req, res) => writeResult(res, await api.serve(fromFetch(toRequest(req)))));
 */
export function writeResult(res: ServerResponse, result: HttpResult): void {
  const headers: string[] = [];
  for (const name in result.headers) headers.push(name, result.headers[name]!);
  writeText(res, result.status, headers, result.body, result.headers['content-length'] !== undefined);
}

function writeText(
  res: ServerResponse,
  status: number,
  headers: string[],
  text: string | null,
  hasLength: boolean,
): void {
  if (text !== null && !hasLength) headers.push('content-length', String(Buffer.byteLength(text)));
  res.writeHead(status, headers);
  if (text === null) res.end();
  else res.end(text);
}

/**
 * Writes a Fetch `Response` to a Node response. A body that arrives in one chunk is sent with
 * a Content-Length; a longer stream is sent chunked, with backpressure, and cancelled when the
 * client goes away.
 *
 * @example
 * import { createServer } from 'node:http';
 * declare const api: JsonApi;
 * createServer(async (req, res) => writeResponse(await api.fetch(toRequest(req)), res));
 */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  // Each Set-Cookie its own entry (Headers joins the others with commas, as HTTP allows).
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers.push(name, value);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push('set-cookie', cookie);
  const hasLength = response.headers.has('content-length');
  if (response.body === null) return writeText(res, response.status, headers, null, hasLength);
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
