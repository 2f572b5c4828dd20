/**
 * The request the pipeline reads: method, URL, header lookup and a body reader. Adapters build
 * it from what their platform hands over (`fromFetch` for a Fetch `Request`, the Node adapter
 * straight from `IncomingMessage`), so nothing has to pass as a platform object.
 */

/**
 * A request as the runtime reads it.
 *
 * @example
 * const request: HttpRequest = fromFetch(new Request('http://localhost/articles'));
 * request.header('accept'); // null
 */
export interface HttpRequest {
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  /** Every value of a header, joined by ", " (as `Headers.get`), or null. */
  header(name: string): string | null;
  /** The body's bytes, read once; undefined once it passes `limit` bytes (the rest is left unread). */
  body(limit: number): Promise<Uint8Array | undefined>;
  /** Whether the client went away: a cheap look, for the pipeline's checks between stages. */
  readonly aborted: boolean;
  /** Aborted when the client goes away (an adapter may build it on first use). */
  readonly signal: AbortSignal;
  /** The Fetch `Request` (for callbacks that read `ctx.request`), built on first use. */
  toRequest(): Request;
}

/**
 * A Fetch `Request` as the pipeline reads it.
 *
 * @example
 * declare const api: JsonApi;
 * declare const request: Request;
 * const result = await api.serve(fromFetch(request));
 */
export function fromFetch(request: Request): HttpRequest {
  return {
    method: request.method,
    url: request.url,
    header: (name) => request.headers.get(name),
    body: (limit) => readStream(request.body, limit),
    get aborted() {
      return request.signal.aborted;
    },
    signal: request.signal,
    toRequest: () => request,
  };
}

/**
 * `request` with its body already read as `bytes` (and, when given, another header lookup): for
 * the pipeline to run a request whose body something read first.
 *
 * @example
 * declare const request: HttpRequest;
 * const bytes = await request.body(1_000_000);
 * const inner = withBody(request, bytes, (name) => (name === 'idempotency-key' ? null : request.header(name)));
 */
export function withBody(
  request: HttpRequest,
  bytes: Uint8Array | undefined,
  header: (name: string) => string | null = (name) => request.header(name),
): HttpRequest {
  let real: Request | undefined;
  return {
    method: request.method,
    url: request.url,
    header,
    body: bodyOf(bytes),
    get aborted() {
      return request.aborted;
    },
    get signal() {
      return request.signal;
    },
    toRequest: () =>
      (real ??= new Request(request.url, {
        method: request.method,
        headers: headersOf(request.toRequest().headers, header),
        body: bytes as BodyInit | undefined,
      })),
  };
}

/**
 * A request made up in memory (an Atomic Operations twin, a test): a string body, a header record.
 *
 * @example
 * const twin = memoryRequest('POST', 'http://localhost/articles', { 'content-type': MEDIA_TYPE }, '{"data":...}');
 */
export function memoryRequest(
  method: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  body?: string,
): HttpRequest {
  const bytes = body === undefined ? undefined : UTF8.encode(body);
  let real: Request | undefined;
  return {
    method,
    url,
    header: (name) => headers[name.toLowerCase()] ?? null,
    body: bodyOf(bytes),
    aborted: false,
    signal: NEVER_ABORTED,
    toRequest: () => (real ??= new Request(url, { method, headers, body: bytes as BodyInit | undefined })),
  };
}

const UTF8 = new TextEncoder();

/** The signal of a request made up in memory: nobody can go away. */
const NEVER_ABORTED = new AbortController().signal;

/** The body reader of bytes read already: undefined past `limit`, as a streamed body would be. */
function bodyOf(bytes: Uint8Array | undefined): HttpRequest['body'] {
  return (limit) => Promise.resolve(bytes !== undefined && bytes.byteLength > limit ? undefined : bytes);
}

/** A copy of `headers` holding what `header` answers for each name. */
function headersOf(headers: Headers, header: (name: string) => string | null): Headers {
  const copy = new Headers();
  headers.forEach((_, name) => {
    const value = header(name);
    if (value !== null) copy.set(name, value);
  });
  return copy;
}

/** A body stream's bytes; undefined once past `limit` (the stream is cancelled). */
async function readStream(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | undefined> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
