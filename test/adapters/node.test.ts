/**
 * The Node adapter (`jsonapi-gen/node`) over real sockets: HEAD, streamed and pre-parsed
 * request bodies, large and streamed response bodies, several Set-Cookie headers, handlers
 * that throw, and clients that go away mid-request or mid-response.
 */
import {
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
  request as httpRequest,
} from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Attribute, Create, Index, JsonApi, Show, defineResource } from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createApi } from '../../examples/shared/api.js';
import { json, jsonError } from '../support/validate.js';
import { JSON_API } from './support.js';

const servers: Server[] = [];

/** Listens on a free loopback port; every server is closed after its test. */
async function listen(listener: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<string> {
  // Node ignores what a listener returns; the adapter's promise never rejects (what fails goes to onError).
  const server = createServer((req, res) => void listener(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A raw HTTP exchange, for what fetch hides (bodies of HEAD responses, repeated headers). */
function raw(
  url: string,
  method: string,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const book = (title: string) => ({
  data: {
    type: 'books',
    attributes: { title, year: 2000 },
    relationships: { author: { data: { type: 'authors', id: '2' } } },
  },
});

/** A body that arrives in several chunks, some time apart, without Content-Length. */
function trickle(text: string, parts: number, delayMs: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const size = Math.ceil(bytes.length / parts);
  let offset = 0;
  return new ReadableStream({
    async pull(controller) {
      if (offset >= bytes.length) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      controller.enqueue(bytes.slice(offset, (offset += size)));
    },
  });
}

/**
 * POSTs a book whose body never ends (`frame` wraps each 16 KiB of filler) over a raw socket;
 * resolves with what the server answered and whether it closed the connection within 5 s.
 */
async function sendEndlessly(
  origin: URL,
  framing: string,
  first: string,
  frame: (filler: string) => string,
): Promise<{ text: string; closed: boolean }> {
  const socket = connect(Number(origin.port), origin.hostname);
  socket.write(
    `POST /api/v1/books HTTP/1.1\r\nHost: ${origin.host}\r\nContent-Type: ${JSON_API}\r\n${framing}\r\n\r\n${first}`,
  );
  // Keep sending body bytes; the server must answer and close, not read the rest (past the adapter's drain bound).
  const filler = frame('x'.repeat(16 * 1024));
  const feeding = setInterval(() => socket.writable && socket.write(filler), 5);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const closed = await new Promise<boolean>((resolve) => {
    socket.on('close', () => resolve(true));
    socket.on('error', () => undefined);
    setTimeout(() => resolve(false), 5_000);
  });
  clearInterval(feeding);
  socket.destroy();
  return { text, closed };
}

describe('toNodeHandler', () => {
  test('HEAD gets the GET status and headers and no body bytes on the wire', async () => {
    const origin = await listen(toNodeHandler(createApi()));
    const head = await raw(`${origin}/api/v1/books`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe(JSON_API);
    expect(head.body.length).toBe(0);
    const missing = await raw(`${origin}/api/v1/books/99`, 'HEAD');
    expect(missing.status).toBe(404);
    expect(missing.body.length).toBe(0);
  });

  test('a JSON:API response goes out with a Content-Length, and links use the Host header', async () => {
    const origin = await listen(toNodeHandler(createApi()));
    const get = await raw(`${origin}/api/v1/authors/1`, 'GET');
    expect(get.status).toBe(200);
    expect(Number(get.headers['content-length'])).toBe(get.body.length);
    expect(get.headers['transfer-encoding']).toBeUndefined();
    expect(JSON.parse(get.body.toString()).links.self).toBe(`${origin}/api/v1/authors/1`);
  });

  test('the origin option overrides the Host header in links (behind a proxy)', async () => {
    const origin = await listen(toNodeHandler(createApi(), { origin: 'https://books.example/' }));
    const doc = await json(await fetch(`${origin}/api/v1/authors/1`));
    expect(doc.links.self).toBe('https://books.example/api/v1/authors/1');
  });

  test('a request body streamed in chunks, without Content-Length, reaches the API whole', async () => {
    const origin = await listen(toNodeHandler(createApi()));
    const body = trickle(JSON.stringify(book('Parable of the Sower')), 5, 10);
    const response = await fetch(`${origin}/api/v1/books`, {
      method: 'POST',
      headers: { 'content-type': JSON_API },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(201);
    expect((await json(response)).data.attributes.title).toBe('Parable of the Sower');
  });

  test('a body a framework already read into req.body (a body parser ran first) is handed to the API', async () => {
    const handler = toNodeHandler(createApi());
    const origin = await listen(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      (req as IncomingMessage & { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString());
      await handler(req, res);
    });
    const response = await fetch(`${origin}/api/v1/books`, {
      method: 'POST',
      headers: { 'content-type': JSON_API },
      body: JSON.stringify(book('Dawn')),
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(201);
    expect((await json(response)).data.attributes.title).toBe('Dawn');
  });

  test('a body refused unread (413 from Content-Length) closes the connection rather than reading 1 GB to keep it alive', async () => {
    const origin = new URL(await listen(toNodeHandler(createApi())));
    const { text, closed } = await sendEndlessly(origin, 'Content-Length: 1000000000', '{"data":', (filler) => filler);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(closed).toBe(true);
  });

  test('a chunked body that never ends, with no Content-Length to refuse it early, is a 413 read no further than the drain bound (8 MiB, 2 s), and the connection closes', async () => {
    const origin = new URL(await listen(toNodeHandler(createApi({ limits: { bodyBytes: 64 * 1024 } }))));
    const { text, closed } = await sendEndlessly(
      origin,
      'Transfer-Encoding: chunked',
      '',
      (filler) => `${filler.length.toString(16)}\r\n${filler}\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(closed).toBe(true);
  });

  test('a client sending 2 or 6 MB past the 1 MiB limit, with Content-Length or chunked, reads the 413 every time: no EPIPE, no reset', async () => {
    const origin = new URL(await listen(toNodeHandler(createApi())));
    /** Sends the whole request at once over a raw socket; what came back, and the socket error if any. */
    const post = (framing: string, body: Buffer) =>
      new Promise<{ text: string; error: string | undefined }>((resolve) => {
        const socket = connect(Number(origin.port), origin.hostname);
        let text = '';
        let error: string | undefined;
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
        socket.on('close', () => resolve({ text, error }));
        socket.write(
          `POST /api/v1/books HTTP/1.1\r\nHost: ${origin.host}\r\nContent-Type: ${JSON_API}\r\n${framing}\r\n\r\n`,
        );
        socket.end(body);
      });
    for (const size of [2_000_000, 6_000_000]) {
      const filler = Buffer.alloc(size, 'x');
      const chunk = filler.subarray(0, 256 * 1024);
      const chunked = Buffer.concat([
        ...Array.from({ length: Math.ceil(size / chunk.length) }, () =>
          Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
        ),
        Buffer.from('0\r\n\r\n'),
      ]);
      for (let i = 0; i < 10; i++) {
        for (const [framing, body] of [
          [`Content-Length: ${size}`, filler],
          ['Transfer-Encoding: chunked', chunked],
        ] as const) {
          const { text, error } = await post(framing, body);
          expect(error, `${framing}, attempt ${i + 1}`).toBeUndefined();
          expect(text, `${framing}, attempt ${i + 1}`).toMatch(/^HTTP\/1\.1 413 /);
          expect(text.toLowerCase()).toContain('connection: close');
        }
      }
      // fetch too: it sends the whole body, then reads the answer.
      for (let i = 0; i < 10; i++) {
        const response = await fetch(`${origin.origin}/api/v1/books`, {
          method: 'POST',
          headers: { 'content-type': JSON_API },
          body: filler,
        });
        expect(response.status).toBe(413);
        expect((await json(response)).errors[0].code).toBe('limit_exceeded');
      }
    }
  });

  test('a Fetch handler that clones the request reads the same body bytes the API read', async () => {
    const api = createApi();
    let after = '';
    const origin = await listen(
      toNodeHandler(async (request) => {
        const copy = request.clone();
        const response = await api.fetch(request);
        after = await copy.text();
        return response;
      }),
    );
    const sent = JSON.stringify(book('Kindred'));
    const response = await fetch(`${origin}/api/v1/books`, {
      method: 'POST',
      headers: { 'content-type': JSON_API },
      body: sent,
    });
    expect(response.status).toBe(201);
    expect(after).toBe(sent);
  });

  test('request headers read, copied and changed behave as Fetch Headers built from the same raw headers', async () => {
    let seen: Record<string, unknown> = {};
    const origin = await listen(
      toNodeHandler(async (request) => {
        const headers = request.headers;
        const reads = {
          isHeaders: headers instanceof Headers,
          repeated: headers.get('X-TAG'),
          padded: headers.get('x-padded'),
          has: [headers.has('authorization'), headers.has('x-missing')],
          missing: headers.get('x-missing'),
          invalidName: (() => {
            try {
              return headers.get('bad name');
            } catch (error) {
              return (error as Error).name;
            }
          })(),
        };
        const all = [...headers];
        const copied = new Request('http://copy.test/', { headers }).headers.get('x-tag');
        const cloned = request.clone().headers.get('authorization');
        headers.set('x-tag', 'c');
        seen = { ...reads, all, copied, cloned, afterSet: headers.get('x-tag'), setCookies: headers.getSetCookie() };
        return new Response('ok');
      }),
    );
    const { hostname, port } = new URL(origin);
    const socket = connect(Number(port), hostname);
    socket.write(
      `GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Tag: a\r\nAuthorization: Bearer 1\r\nx-tag: b\r\nX-Padded:   spaced  \r\n` +
        'Set-Cookie: one=1\r\nSet-Cookie: two=2\r\nConnection: close\r\n\r\n',
    );
    const reply = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1.1 200/);
    expect(seen).toEqual({
      isHeaders: true,
      repeated: 'a, b',
      padded: 'spaced',
      has: [true, false],
      missing: null,
      invalidName: 'TypeError',
      all: [
        ['authorization', 'Bearer 1'],
        ['connection', 'close'],
        ['host', `${hostname}:${port}`],
        ['set-cookie', 'one=1'],
        ['set-cookie', 'two=2'],
        ['x-padded', 'spaced'],
        ['x-tag', 'a, b'],
      ],
      copied: 'a, b',
      cloned: 'Bearer 1',
      afterSet: 'c',
      setCookies: ['one=1', 'two=2'],
    });
  });

  test('a large JSON:API collection arrives whole and valid', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({
      id: String(i + 1),
      name: `tag number ${i + 1} `.repeat(8),
    }));
    const api = new JsonApi().resource({
      ...defineResource({ type: 'tags', fields: [Attribute.make('name')], endpoints: [Index.make()] }),
      query: () => rows,
      results: (query: typeof rows) => query,
    });
    const origin = await listen(toNodeHandler(api));
    const response = await fetch(`${origin}/tags`);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(500_000);
    const doc = await json(response);
    expect(doc.data).toHaveLength(3_000);
    expect(doc.data[2_999].attributes.name).toBe(rows[2_999]!.name);
  });

  test('a streamed response body of 16 MiB goes out chunked, with backpressure, byte for byte', async () => {
    const chunk = new Uint8Array(64 * 1024).map((_, i) => i % 251);
    const count = 256;
    let produced = 0;
    const origin = await listen(
      toNodeHandler(async () => {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (produced === count) return controller.close();
            produced++;
            controller.enqueue(chunk);
          },
        });
        return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
      }),
    );
    const response = await fetch(`${origin}/download`);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const reader = response.body!.getReader();
    // Backpressure: while the client does not read, the server stops pulling long before the end.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(produced).toBeLessThan(count);
    let total = 0;
    let intact = true;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.length; i += 997) if (value[i] !== ((total + i) % (64 * 1024)) % 251) intact = false;
      total += value.length;
    }
    expect(total).toBe(count * chunk.length);
    expect(intact).toBe(true);
  });

  test('several Set-Cookie headers arrive as separate headers', async () => {
    const api = createApi();
    const origin = await listen(
      toNodeHandler(async (request) => {
        const response = await api.fetch(request);
        const headers = new Headers(response.headers);
        headers.append('set-cookie', 'session=abc; Path=/; HttpOnly');
        headers.append('set-cookie', 'theme=dark, light; Path=/');
        return new Response(response.body, { status: response.status, headers });
      }),
    );
    const response = await raw(`${origin}/api/v1/authors`, 'GET');
    expect(response.headers['set-cookie']).toEqual(['session=abc; Path=/; HttpOnly', 'theme=dark, light; Path=/']);
    expect(response.headers['content-type']).toBe(JSON_API);
  });

  test('a handler that throws gets a bare 500 that leaks nothing; the error goes to onError', async () => {
    const onError = vi.fn();
    const origin = await listen(
      toNodeHandler(
        async () => {
          throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db');
        },
        { onError },
      ),
    );
    const response = await fetch(`${origin}/api/v1/books`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toBe('Internal Server Error');
    expect(text).not.toContain('hunter2');
    expect(onError).toHaveBeenCalledOnce();
    expect((onError.mock.calls[0]![0] as Error).message).toContain('hunter2');
  });

  test("an API data layer that throws becomes the API's JSON:API 500, also without the message", async () => {
    const onError = vi.fn();
    const api = new JsonApi({ onError }).resource({
      ...defineResource({ type: 'tags', fields: [Attribute.make('name')], endpoints: [Index.make()] }),
      query: () => {
        throw new Error('password=hunter2');
      },
      results: (rows: unknown[]) => rows,
    });
    const origin = await listen(toNodeHandler(api));
    const response = await fetch(`${origin}/tags`);
    const body = await response.clone().text();
    await jsonError(response, 500);
    expect(body).not.toContain('hunter2');
    expect(onError).toHaveBeenCalledOnce();
  });

  test('given a JsonApi, the attributes option names the caller, and ctx.request is a real Request with the headers and the body bytes the API read', async () => {
    const seen: unknown[] = [];
    const api = new JsonApi().resource({
      ...defineResource<{ id: string; name: string }>({
        type: 'tags',
        fields: [Attribute.make('name').type('string').writable()],
        endpoints: [Show.make(), Create.make()],
      }),
      find: () => undefined,
      create: async ({ attributes }, ctx) => {
        const request = ctx.request;
        seen.push(
          ctx.getAttribute('user'),
          request instanceof Request,
          request.headers.get('x-tag'),
          ctx.header('X-Tag'),
          await request.text(),
        );
        return { id: '1', name: attributes.name as string };
      },
    });
    const origin = await listen(
      toNodeHandler(api, {
        attributes: ({ headers }) => (typeof headers['x-user'] === 'string' ? { user: headers['x-user'] } : {}),
      }),
    );
    const sent = JSON.stringify({ data: { type: 'tags', attributes: { name: 'ts' } } });
    const response = await fetch(`${origin}/tags`, {
      method: 'POST',
      headers: { 'content-type': JSON_API, 'x-user': '7', 'x-tag': 'a', 'X-Tag': 'b' },
      body: sent,
    });
    expect(response.status).toBe(201);
    expect(seen).toEqual(['7', true, 'a, b', 'a, b', sent]);
  });

  test('a stream that fails after the headers went out cuts the connection rather than ending it as if complete', async () => {
    const onError = vi.fn();
    const origin = await listen(
      toNodeHandler(
        async () =>
          new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode('{"partial":'));
                controller.enqueue(new TextEncoder().encode('[1,'));
              },
              pull(controller) {
                controller.error(new Error('the cursor died'));
              },
            }),
          ),
        { onError },
      ),
    );
    // However far the client got, it cannot take the response for a complete one.
    const outcome = await fetch(`${origin}/export`)
      .then((response) => response.text())
      .then(
        () => 'complete',
        () => 'cut',
      );
    expect(outcome).toBe('cut');
    expect(onError).toHaveBeenCalledOnce();
    expect((onError.mock.calls[0]![0] as Error).message).toBe('the cursor died');
  });

  test('a client that aborts while sending its body does not crash the server, and the next request is served', async () => {
    // The API reports the broken body read to onError (see the report of issue 10); keep it quiet.
    const api = createApi({ onError: () => {} });
    let seen: Request | undefined;
    const handler = toNodeHandler(async (request) => {
      seen = request;
      return api.fetch(request);
    });
    const origin = await listen(handler);
    const controller = new AbortController();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        if (sent++ === 0) return stream.enqueue(new TextEncoder().encode('{"data":{"type":"books",'));
        // The client gives up before the body is complete.
        await new Promise((resolve) => setTimeout(resolve, 50));
        controller.abort();
      },
    });
    await expect(
      fetch(`${origin}/api/v1/books`, {
        method: 'POST',
        headers: { 'content-type': JSON_API },
        body,
        duplex: 'half',
        signal: controller.signal,
      } as RequestInit),
    ).rejects.toThrow();
    await vi.waitFor(() => expect(seen?.signal.aborted).toBe(true));
    const after = await fetch(`${origin}/api/v1/books`);
    expect(after.status).toBe(200);
    expect((await json(after)).data).toHaveLength(3); // the half-sent book was not created
  });

  test('a client that goes away mid-response stops the stream: the body is cancelled, the request signal aborted', async () => {
    let cancelled = false;
    let signal: AbortSignal | undefined;
    let handled!: Promise<void>;
    const handler = toNodeHandler(async (request) => {
      signal = request.signal;
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          controller.enqueue(new TextEncoder().encode(`line ${n++}\n`));
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/plain' } });
    });
    const origin = await listen((req: IncomingMessage, res: ServerResponse) => {
      handled = handler(req, res);
    });
    const controller = new AbortController();
    const response = await fetch(`${origin}/events`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await handled; // the adapter returns instead of writing forever
    expect(cancelled).toBe(true);
    expect(signal?.aborted).toBe(true);
    const again = await fetch(`${origin}/events`);
    expect(again.status).toBe(200);
    await again.body!.cancel();
  });
});
