/**
 * One server of the benchmark, in its own process: `node --import tsx bench/serve.ts KIND FILE`.
 * KIND: `demo` (examples/blog on the generated API, Kysely, the Node adapter; `demo-twin`: the same,
 * a second process), `baseline`
 * (bench/baseline), `demo-pg` and `baseline-pg` (the same on PostgreSQL: FILE is then a
 * `postgres://` URL), `demo-mysql` and `baseline-mysql` (on MySQL: a `mysql://` URL), `demo-prisma`
 * and `demo-prisma-pg` (the demo on its Prisma store, `startDemo({ store: 'prisma' })`),
 * `demo-drizzle` and `demo-drizzle-pg` (on its Drizzle store), `demo-server-timing`,
 * `demo-context`, `demo-otel`, `demo-otel-stages`, `demo-otel-bare` and `demo-sdk-spans` (the demo
 * with `serverTiming`, or traced: bench/traced-demo.ts), `floor-raw` (node:http answering a
 * constant document), `floor-adapter`
 * (the same constant document through `toNodeHandler`, as the runtime's own result),
 * `floor-adapter-platform` (the same as a platform `new Response`). Prints `{"url": ...}` on stdout once
 * listening; answers IPC messages: `{ memory: true }` with `process.memoryUsage()` before and after a
 * forced GC (when started with --expose-gc), `{ cpu: true }` with `process.cpuUsage()`, `{ close: true }` by closing and exiting. Exits when
 * its parent goes away.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'jsonapi-gen/node';
import { startDemo } from '../examples/blog/server.js';
import { startMysqlBaseline } from './baseline/mysql-server.js';
import { startPgBaseline } from './baseline/pg-server.js';
import { startBaseline } from './baseline/server.js';

/** The constant document of the floor rows: route c's document, as the demo serves it. */
const FLOOR_BODY = JSON.stringify({
  jsonapi: { version: '1.1' },
  links: { self: 'http://127.0.0.1/articles/1' },
  data: {
    type: 'articles',
    id: '1',
    attributes: {
      title: 'Indexes in practice, part 1',
      body: 'Notes on indexes (1).',
      status: 'draft',
      createdAt: '2024-01-05T04:00:00.000Z',
      updatedAt: '2024-01-05T04:00:00.000Z',
    },
    relationships: {
      author: {
        links: {
          self: 'http://127.0.0.1/articles/1/relationships/author',
          related: 'http://127.0.0.1/articles/1/author',
        },
      },
      comments: {
        links: {
          self: 'http://127.0.0.1/articles/1/relationships/comments',
          related: 'http://127.0.0.1/articles/1/comments',
        },
      },
      tags: {
        links: { self: 'http://127.0.0.1/articles/1/relationships/tags', related: 'http://127.0.0.1/articles/1/tags' },
      },
    },
    links: { self: 'http://127.0.0.1/articles/1' },
  },
});
const FLOOR_HEADERS = { 'content-type': 'application/vnd.api+json', vary: 'Accept' };

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the adapter's handlers never reject: what fails goes to their onError
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function start(kind: string, file: string | undefined): Promise<{ url: string; close(): Promise<void> }> {
  switch (kind) {
    case 'demo':
    case 'demo-twin':
      return startDemo({ port: 0, db: file!, seed: 1 });
    case 'baseline':
      return startBaseline({ db: file!, port: 0 });
    case 'demo-server-timing':
    case 'demo-otel':
    case 'demo-otel-stages':
    case 'demo-context':
    case 'demo-otel-bare':
    case 'demo-hook':
    case 'demo-sdk-raw':
    case 'demo-sdk-spans': {
      // Loaded only here: the other servers carry no tracing library.
      const { startTracedDemo } = await import('./traced-demo.js');
      return startTracedDemo(kind, file!);
    }
    case 'demo-pg':
      return startDemo({ port: 0, seed: 1, databaseUrl: file! });
    case 'demo-prisma':
      return startDemo({ port: 0, db: file!, seed: 1, store: 'prisma' });
    case 'demo-prisma-pg':
      return startDemo({ port: 0, seed: 1, databaseUrl: file!, store: 'prisma' });
    case 'demo-drizzle':
      return startDemo({ port: 0, db: file!, seed: 1, store: 'drizzle' });
    case 'demo-drizzle-pg':
      return startDemo({ port: 0, seed: 1, databaseUrl: file!, store: 'drizzle' });
    case 'baseline-pg':
      return startPgBaseline({ databaseUrl: file!, port: 0 });
    case 'demo-mysql':
      return startDemo({ port: 0, seed: 1, databaseUrl: file! });
    case 'baseline-mysql':
      return startMysqlBaseline({ databaseUrl: file!, port: 0 });
    case 'floor-raw':
      return listen((_req, res) => {
        res.writeHead(200, { ...FLOOR_HEADERS, 'content-length': Buffer.byteLength(FLOOR_BODY) });
        res.end(FLOOR_BODY);
      });
    case 'floor-adapter':
      return listen(
        toNodeHandler({ serve: () => Promise.resolve({ status: 200, headers: FLOOR_HEADERS, body: FLOOR_BODY }) }),
      );
    case 'floor-adapter-platform':
      return listen(toNodeHandler(() => Promise.resolve(new Response(FLOOR_BODY, { headers: FLOOR_HEADERS }))));
    default:
      throw new Error(`unknown server kind "${kind}"`);
  }
}

async function main(): Promise<void> {
  const [kind = '', file] = process.argv.slice(2);
  const server = await start(kind, file);
  const stop = async (code: number) => {
    await server.close().catch(() => undefined);
    process.exit(code);
  };
  process.on('message', (message: { memory?: boolean; cpu?: boolean; close?: boolean }) => {
    if (message.cpu) process.send!({ cpu: process.cpuUsage() });
    if (message.memory) {
      const before = process.memoryUsage();
      (globalThis as { gc?: () => void }).gc?.();
      process.send!({ memory: { before, after: process.memoryUsage() } });
    }
    if (message.close) void stop(0);
  });
  process.on('disconnect', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
