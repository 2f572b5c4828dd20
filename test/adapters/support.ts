/**
 * Runs an adapter example as a user would (its own process, a free loopback port) and checks
 * it with the same HTTP conversation: list, create, update, delete, 404s, 415.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { json, jsonError } from '../support/validate.js';
import { freePort } from '../support/net.js';

export { freePort };

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = (name: string) => `${ROOT}node_modules/.bin/${name}`;
export const JSON_API = 'application/vnd.api+json';

/** A running example. */
export interface Running {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Stops the process (and its children) and waits for it to exit. */
  stop(): Promise<void>;
}

export interface StartOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Matches the line that says the server is up; group 1, when present, is its origin. */
  ready?: RegExp;
  /** The origin when `ready` does not capture it. */
  origin?: string;
  timeoutMs?: number;
}

/**
 * Starts `command args` in its own process group with PORT=0 and HOST=127.0.0.1, and resolves
 * once it prints that it listens ("Listening on http://127.0.0.1:PORT/...").
 */
export function startExample(command: string, args: string[], options: StartOptions = {}): Promise<Running> {
  const ready = options.ready ?? /Listening on (http:\/\/127\.0\.0\.1:\d+)/;
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'development', ...options.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (exited) return;
    const group = -child.pid!;
    try {
      process.kill(group, 'SIGTERM');
    } catch {
      return; // already gone
    }
    const killed = setTimeout(() => {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // gone between the two
      }
    }, 5_000);
    await exit;
    clearTimeout(killed);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(
        new Error(`${command} ${args.join(' ')} did not start within ${options.timeoutMs ?? 20_000} ms:\n${output}`),
      );
    }, options.timeoutMs ?? 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stdout!.on('data', (more: Buffer) => (output += more.toString()));
      const origin = match[1] ?? options.origin;
      if (!origin) throw new Error('no origin: give `ready` a capture group or `origin`');
      resolve({ origin, output: () => output, stop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited before it listened:\n${output}`));
    });
  });
}

export interface SuiteOptions {
  /**
   * Who answers outside /api/v1: the framework (its own 404, not JSON:API), or the API itself
   * when it is the whole server (Bun, Deno).
   */
  outside: 'framework' | 'api';
  /**
   * Whether links use the origin the client connected to. Next.js builds `request.url` from
   * its own idea of the host (`localhost`), so there only paths are compared.
   */
  exactOrigin?: boolean;
}

/** The resource links of a document point below `/api/v1` (of the server's origin when `exact`). */
function expectLink(link: unknown, origin: string, path: string, exact: boolean): void {
  expect(typeof link).toBe('string');
  const url = new URL(link as string);
  expect(url.pathname + url.search).toBe(path);
  if (exact) expect(url.origin).toBe(origin);
  else expect(url.port).toBe(new URL(origin).port);
}

const newBook = {
  data: {
    type: 'books',
    attributes: { title: 'The Left Hand of Darkness', year: 1969 },
    relationships: { author: { data: { type: 'authors', id: '1' } } },
  },
};

/**
 * The conversation every example must hold, as tests: `server()` gives the running example.
 * Tests run in order and share the example's in-memory data.
 */
export function adapterSuite(server: () => Running, options: SuiteOptions): void {
  const exact = options.exactOrigin ?? true;
  const url = (path: string) => server().origin + path;
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(url(path), {
      method,
      headers: { accept: JSON_API, ...(body !== undefined && { 'content-type': JSON_API }), ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  test('GET lists a collection under /api/v1, with query parameters applied and links that carry the base path', async () => {
    const response = await send('GET', '/api/v1/books?include=author&sort=-year');
    expect(response.status).toBe(200);
    const doc = await json(response);
    expectLink(doc.links.self, server().origin, '/api/v1/books?include=author&sort=-year', exact);
    expect(doc.data.map((book: { id: string }) => book.id)).toEqual(['3', '2', '1']);
    expectLink(doc.data[0].links.self, server().origin, '/api/v1/books/3', exact);
    expectLink(doc.data[0].relationships.author.links.related, server().origin, '/api/v1/books/3/author', exact);
    expect(doc.included.map((author: { id: string }) => author.id).sort()).toEqual(['1', '2']);
    expectLink(doc.included[0].links.self, server().origin, `/api/v1/authors/${doc.included[0].id}`, exact);
  });

  test('HEAD answers like GET without a body', async () => {
    const response = await send('HEAD', '/api/v1/books');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(JSON_API);
    expect(await response.text()).toBe('');
  });

  test('POST creates: 201, Location under /api/v1, and the body reached the API', async () => {
    const response = await send('POST', '/api/v1/books', newBook);
    expect(response.status).toBe(201);
    const doc = await json(response);
    expect(doc.data).toMatchObject({
      type: 'books',
      id: '4',
      attributes: { title: 'The Left Hand of Darkness', year: 1969 },
    });
    const location = response.headers.get('location');
    expectLink(location, server().origin, '/api/v1/books/4', exact);
    // Served from the same data afterwards.
    const created = await json(await send('GET', new URL(location!).pathname));
    expect(created.data.attributes.title).toBe('The Left Hand of Darkness');
  });

  test('PATCH updates and DELETE removes (204, then 404)', async () => {
    const patched = await send('PATCH', '/api/v1/books/1', {
      data: { type: 'books', id: '1', attributes: { title: 'Earthsea' } },
    });
    expect(patched.status).toBe(200);
    expect((await json(patched)).data.attributes).toEqual({ title: 'Earthsea', year: 1968 });
    const deleted = await send('DELETE', '/api/v1/books/2');
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const gone = await jsonError(await send('GET', '/api/v1/books/2'), 404);
    expect(gone.errors[0].status).toBe('404');
  });

  test('a path under /api/v1 that the API does not serve is its JSON:API 404', async () => {
    const doc = await jsonError(await send('GET', '/api/v1/nothing'), 404);
    expect(doc.errors[0].detail).toContain('/api/v1/nothing');
  });

  if (options.outside === 'framework') {
    test('a path outside /api/v1 is left to the framework (its 404, not a JSON:API document)', async () => {
      const response = await send('GET', '/elsewhere');
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).not.toBe(JSON_API);
      await response.arrayBuffer();
    });
  } else {
    test("a path outside /api/v1 is the API's 404 (the API is the whole server)", async () => {
      const doc = await jsonError(await send('GET', '/elsewhere'), 404);
      expect(doc.errors[0].detail).toContain('/elsewhere');
    });
  }

  test('a Content-Type the API refuses is its 415, passed through untouched', async () => {
    const response = await send('POST', '/api/v1/books', newBook, { 'content-type': `${JSON_API}; charset=utf-8` });
    const doc = await jsonError(response, 415);
    expect(doc.errors[0]).toMatchObject({ status: '415', source: { header: 'Content-Type' } });
    expect(response.headers.get('vary')).toContain('Accept');
  });
}
