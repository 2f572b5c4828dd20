import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** Anything that answers a Fetch request: `api.fetch`, or a wrapper that adds attributes. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Options of `toNodeHandler`. */
export interface NodeHandlerOptions {
  /** The origin of request URLs (links are built from it). Default: `http://` plus the Host header. */
  origin?: string;
}

/**
 * Serves a Fetch handler on `node:http`: each Node request becomes a `Request`, each `Response`
 * is written back.
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
  return async (req, res) => {
    try {
      const response = await handle(toRequest(req, options.origin));
      await writeResponse(response, res);
    } catch (error) {
      // The handler never throws when it is api.fetch; anything else still gets an answer.
      console.error(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    }
  };
}

/** A Fetch `Request` for a Node request; the body streams only when the request has one. */
export function toRequest(req: IncomingMessage, origin?: string): Request {
  const url = (origin ?? `http://${req.headers.host ?? 'localhost'}`) + (req.url ?? '/');
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  const hasBody =
    method !== 'GET' && method !== 'HEAD' && (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (hasBody) {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(url, init);
}

/** Writes a Fetch `Response` to a Node response. */
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
  const body = Buffer.from(await response.arrayBuffer());
  headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
