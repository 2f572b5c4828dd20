import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

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
 * `reply.hijack()`): each Node request becomes a `Request`, each
 * `Response` is streamed back. Under Express's `app.use('/api', ...)` the mount path is kept
 * (`req.originalUrl`), so links carry it.
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
    // Aborted when the client goes away before the response is complete.
    const controller = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) controller.abort();
    };
    res.once('close', onClose);
    try {
      const response = await handle(toRequest(req, options.origin, controller.signal));
      await writeResponse(response, res);
    } catch (error) {
      if (controller.signal.aborted) return; // nobody is listening any more
      onError(error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '21' });
        res.end('Internal Server Error');
      } else {
        res.destroy();
      }
    } finally {
      res.off('close', onClose);
    }
  };
}

/** A Fetch `Request` for a Node request; the body streams only when the request has one. */
export function toRequest(req: IncomingMessage, origin?: string, signal?: AbortSignal): Request {
  const framework = req as FrameworkRequest;
  const path = framework.originalUrl ?? req.url ?? '/';
  const url = (origin ?? `http://${req.headers.host ?? 'localhost'}`).replace(/\/+$/, '') + path;
  const headers = new Headers();
  const raw = req.rawHeaders;
  // HTTP/2 pseudo-headers (":path") are not header names a Request accepts.
  for (let i = 0; i < raw.length; i += 2) if (!raw[i]!.startsWith(':')) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  const hasBody =
    method !== 'GET' && method !== 'HEAD' && (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (signal) init.signal = signal;
  if (hasBody) {
    const parsed = alreadyRead(framework);
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
  return new Request(url, init);
}

/** The body a framework's parser consumed (`req.body`), as bytes or text; undefined when the stream is unread. */
function alreadyRead(req: FrameworkRequest): BodyInit | undefined {
  if (!req.readableEnded && !req.readableDidRead) return undefined;
  const body = req.body;
  if (body === undefined || body === null) return '';
  if (typeof body === 'string' || body instanceof Uint8Array) return body as BodyInit;
  return JSON.stringify(body);
}

/**
 * Writes a Fetch `Response` to a Node response. A body that arrives in one chunk (any
 * `new Response(string)`, so every JSON:API document) is sent with a Content-Length; a longer
 * stream is sent chunked, with backpressure, and cancelled when the client goes away.
 */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  let closed = false; // before the end, 'close' means the client went away
  const onClose = () => (closed = true);
  res.once('close', onClose);
  try {
    const first = await reader.read();
    const second = first.done ? first : await reader.read();
    if (second.done) {
      const body = first.value ?? new Uint8Array(0);
      if (!response.headers.has('content-length')) headers['content-length'] = String(body.byteLength);
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
