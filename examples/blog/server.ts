/**
 * The blog demo: migrates and seeds a database, then serves the API of examples/blog/README.md on
 * node:http. `npm run demo -- --db FILE --seed N --workers N`; PostgreSQL (or MySQL) when DATABASE_URL is set;
 * `--store memory` (or `--memory`) serves the hand-written in-memory data layers of memory.ts instead,
 * `--store prisma` the same tables through the Prisma store of prisma-store.ts, `--store drizzle`
 * through the Drizzle store of drizzle-store.ts.
 */
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, JsonApi, JsonApiOptions } from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
import { kyselyIdempotency, kyselyOutbox, kyselyTransaction } from '@jsonapi-gen/kysely';
import type { LogConfig } from 'kysely';
import { migrate, type OpenDatabase, openDatabase } from './db.js';
import { createApi, openapi } from './generated/index.js';
import { memoryIdempotency, memoryStore, memoryTables } from './memory.js';
import { seed, seedRows } from './seed.js';
import { createStore } from './store.js';
import { startWorkers, workerDatabase } from './workers.js';

const OPENAPI = JSON.stringify(openapi);
/** How long `close()` keeps accepting and reading before it stops (see there). */
const SETTLE_MS = 100;
const NO_ATTRIBUTES = Object.freeze({});
/** The resource types whose writes the outbox records (served at `GET /events`). */
const OUTBOX_TYPES = ['articles'] as const;

// --- The API reference page: GET /docs renders /openapi.json with Swagger UI, whose browser
// assets are served from node_modules/swagger-ui-dist under /docs/assets/ (no CDN, no network).
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const DOCS_ASSETS: Record<string, string> = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'text/javascript' };
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Blog API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script></body></html>`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true, validatorUrl: null,
  docExpansion: 'list', defaultModelsExpandDepth: -1, tryItOutEnabled: false });`;

/** `/docs`, `/docs/` and `/docs/assets/*`; undefined for any other path. */
async function docs(request: Request, pathname: string): Promise<Response | undefined> {
  if (pathname !== '/docs' && pathname !== '/docs/' && !pathname.startsWith('/docs/assets/')) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
  const send = (body: string, type: string) =>
    new Response(request.method === 'HEAD' ? null : body, { headers: { 'content-type': `${type}; charset=utf-8` } });
  if (pathname === '/docs' || pathname === '/docs/') return send(DOCS_PAGE, 'text/html');
  const name = pathname.slice('/docs/assets/'.length);
  if (name === 'init.js') return send(DOCS_INIT, 'text/javascript');
  const type = Object.hasOwn(DOCS_ASSETS, name) ? DOCS_ASSETS[name] : undefined;
  if (type === undefined) return new Response('Not Found', { status: 404 });
  return send(await readFile(join(SWAGGER_UI, name), 'utf8'), type);
}
// --- end of the API reference page

export interface DemoOptions {
  /** Port on 127.0.0.1; 0 picks a free one. Default: $PORT or 3000. */
  port?: number;
  /** The SQLite file. Default: a fresh temporary file, removed on close. */
  db?: string | undefined;
  /** Articles to seed into an empty database. Default 120. */
  seed?: number;
  /** A `postgres://` or `mysql://` URL to use instead of SQLite; null for SQLite. Default: $DATABASE_URL. */
  databaseUrl?: string | null | undefined;
  /** Kysely's `log` option. */
  log?: LogConfig;
  /** With `store: 'prisma'`: called with each SQL statement Prisma runs (its `query` event). */
  onPrismaQuery?: (sql: string) => void;
  /** With `store: 'drizzle'`: called with each SQL statement Drizzle runs (its logger). */
  onDrizzleQuery?: (sql: string) => void;
  /** Serve from memory through the hand-written data layers of `memory.ts` instead of a database. */
  memory?: boolean;
  /**
   * The data layers on the database: the Kysely store (`store.ts`, the default), the Prisma
   * store (`prisma-store.ts`) or the Drizzle store (`drizzle-store.ts`).
   */
  store?: DatabaseStore;
  /** The API's tracing options (`instrument`, `serverTiming`), for measuring what tracing costs. Default: none. */
  tracing?: Pick<JsonApiOptions, 'instrument' | 'serverTiming'>;
}

/** The stores the demo serves a database through. */
export type DatabaseStore = 'kysely' | 'prisma' | 'drizzle';

export interface Demo {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /**
   * Stops the server gracefully (what `SIGTERM` runs): requests already sent on accepted
   * connections, or waiting in the accept queue, are answered; then new connections are
   * refused, idle keep-alive connections closed, and the database closed.
   */
  close(): Promise<void>;
}

/** The demo's stand-in for authentication: `Authorization: Bearer <personId>` is that person. */
export function userOf(authorization: string | null | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

/** Idempotency-Keys are kept per signed-in user (the demo's `user` attribute). */
const userScope = (ctx: Context) => ctx.getAttribute('user');

/** The generated API on the Kysely store, or on the hand-written memory store, and what closes it. */
async function openApi(options: DemoOptions): Promise<{ api: JsonApi; close: () => Promise<void> }> {
  if (options.memory) {
    const { dataLayers, transaction, outbox } = memoryStore(memoryTables(seedRows(options.seed ?? 120)));
    return {
      api: createApi(dataLayers, {
        transaction,
        idempotency: { store: memoryIdempotency(), scope: userScope },
        outbox: outbox(OUTBOX_TYPES),
        ...options.tracing,
      }),
      close: async () => {},
    };
  }
  const databaseUrl = options.databaseUrl === undefined ? process.env.DATABASE_URL : (options.databaseUrl ?? undefined);
  const database = openDatabase({ databaseUrl, file: options.db, ...(options.log && { log: options.log }) });
  const { db } = database;
  try {
    await migrate(db, database.dialect);
    await seed(db, options.seed ?? 120);
  } catch (error) {
    await database.close();
    throw error;
  }
  if (options.store === 'prisma') return prismaApi(database, options.onPrismaQuery, options.tracing);
  if (options.store === 'drizzle') return drizzleApi(database, options.onDrizzleQuery, options.tracing);
  // The generated API bound to the Kysely data layers, with the schema's extensions (Atomic
  // Operations). Every write request, and every Atomic Operations batch, is one transaction.
  // POST retries with an Idempotency-Key are answered from the keys table, per signed-in user.
  // Each write of an article adds its outbox entry in its own transaction.
  const api = createApi(createStore(db), {
    transaction: kyselyTransaction(db),
    idempotency: { store: kyselyIdempotency(db), scope: userScope },
    outbox: kyselyOutbox(db, { types: OUTBOX_TYPES }),
    ...options.tracing,
  });
  return { api, close: () => database.close() };
}

/**
 * The generated API on the Prisma store, over the database the Kysely migrations made and the
 * seed filled: one interactive transaction per write request and per Atomic Operations batch,
 * Idempotency-Keys in the same table as the Kysely store's.
 */
async function prismaApi(
  database: OpenDatabase,
  onQuery: ((sql: string) => void) | undefined,
  tracing: DemoOptions['tracing'],
): Promise<{ api: JsonApi; close: () => Promise<void> }> {
  // The generated Prisma clients are made here when missing (offline; `npm test` and
  // `npm run prisma:generate` remake them when the schema changes) and loaded only now, so that
  // the other stores need neither. A compiled copy of the demo (the bench's) has them compiled.
  const clients = join(dirname(fileURLToPath(import.meta.url)), 'prisma', 'generated', 'sqlite');
  if (!existsSync(join(clients, 'client.ts')) && !existsSync(join(clients, 'client.js'))) {
    const { generateClients } = await import('../../integrations/prisma/scripts/generate.js');
    generateClients();
  }
  const { createPrismaStore, openPrisma, providerOf } = await import('./prisma-store.js');
  const { prismaIdempotency, prismaOutbox, prismaTransaction } = await import('@jsonapi-gen/prisma');
  const sqlite = database.dialect === 'sqlite';
  const prisma = openPrisma(sqlite ? { file: database.location } : { databaseUrl: database.location }, { onQuery });
  const api = createApi(createPrismaStore(prisma, sqlite ? 'sqlite' : providerOf(database.location)), {
    transaction: prismaTransaction(prisma),
    idempotency: { store: prismaIdempotency(prisma), scope: userScope },
    outbox: prismaOutbox(prisma, { types: OUTBOX_TYPES }),
    ...tracing,
  });
  return {
    api,
    close: async () => {
      await prisma.$disconnect();
      await database.close();
    },
  };
}

/**
 * The generated API on the Drizzle store, over the database the Kysely migrations made and the
 * seed filled: Drizzle on its own connection (SQLite) or pool (PostgreSQL, MySQL), one transaction per
 * write request and per Atomic Operations batch, Idempotency-Keys in the same table as the
 * Kysely store's.
 */
async function drizzleApi(
  database: OpenDatabase,
  onQuery: ((sql: string) => void) | undefined,
  tracing: DemoOptions['tracing'],
): Promise<{ api: JsonApi; close: () => Promise<void> }> {
  const { createDrizzleStore, openDrizzle } = await import('./drizzle-store.js');
  const { drizzleIdempotency, drizzleOutbox, drizzleTransaction } = await import('@jsonapi-gen/drizzle');
  const tables =
    database.dialect === 'postgres'
      ? await import('./drizzle/postgresql.js')
      : database.dialect === 'mysql'
        ? await import('./drizzle/mysql.js')
        : await import('./drizzle/sqlite.js');
  const drizzle = openDrizzle(
    database.dialect === 'sqlite' ? { file: database.location } : { databaseUrl: database.location },
    { onQuery },
  );
  const api = createApi(createDrizzleStore(drizzle.db, drizzle.dialect), {
    transaction: drizzleTransaction(drizzle.db),
    idempotency: { store: drizzleIdempotency(drizzle.db, tables.idempotencyKeys), scope: userScope },
    outbox: drizzleOutbox(drizzle.db, tables.outbox, { types: OUTBOX_TYPES }),
    ...tracing,
  });
  return {
    api,
    close: async () => {
      await drizzle.close();
      await database.close();
    },
  };
}

/** Migrates, seeds and serves the blog; resolves once it listens. */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const { api, close } = await openApi(options);
  let server: Server | undefined;
  try {
    // The API through the adapter's direct path (no Fetch Request or Response is built), with
    // the signed-in user as a context attribute.
    const serveApi = toNodeHandler(api, {
      attributes: (_req, request) => {
        const user = userOf(request.header('authorization'));
        return user === undefined ? NO_ATTRIBUTES : { user };
      },
    });
    const serveDocs = toNodeHandler(async (request: Request): Promise<Response> => {
      const { pathname } = new URL(request.url);
      if (pathname === '/openapi.json' && (request.method === 'GET' || request.method === 'HEAD')) {
        return new Response(request.method === 'HEAD' ? null : OPENAPI, {
          headers: { 'content-type': 'application/json' },
        });
      }
      const user = userOf(request.headers.get('authorization'));
      return (
        (await docs(request, pathname)) ??
        (await api.fetch(request, { attributes: user === undefined ? NO_ATTRIBUTES : { user } }))
      );
    });
    // Only /openapi.json and /docs need the path here; the API parses the URL itself.
    server = createServer(
      (req, res) => void (/^\/(openapi\.json|docs)/i.test(req.url ?? '') ? serveDocs(req, res) : serveApi(req, res)),
    );
    const port = options.port ?? Number(process.env.PORT ?? 3000);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const listening = server;
    return {
      url,
      close: async () => {
        // Graceful. First a moment more of accepting and reading: connections the kernel completed
        // before now wait in its accept queue, and a connection whose request has not been read
        // yet counts as idle; closing at once would reset both.
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        // Then no new connections (they are refused), idle ones closed now, the others as their
        // last response goes out; requests under way are answered, stragglers cut after 10 s;
        // then the database.
        const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
        const idle = setInterval(() => listening.closeIdleConnections(), 50);
        const cut = setTimeout(() => listening.closeAllConnections(), 10_000);
        await closed;
        clearInterval(idle);
        clearTimeout(cut);
        await close();
      },
    };
  } catch (error) {
    server?.close();
    await close();
    throw error;
  }
}

function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

/** The data layers the demo serves from: `--store kysely|prisma|drizzle|memory` (`--memory` is `--store memory`). */
function storeFlag(args: readonly string[]): DatabaseStore | 'memory' {
  const store = flag(args, '--store') ?? (args.includes('--memory') ? 'memory' : 'kysely');
  if (store === 'kysely' || store === 'prisma' || store === 'drizzle' || store === 'memory') return store;
  throw new Error(`--store takes kysely, prisma, drizzle or memory, not "${store}"`);
}

async function main(args: readonly string[]): Promise<void> {
  const seedValue = flag(args, '--seed');
  const articles = seedValue === undefined ? 120 : Number(seedValue);
  if (!Number.isSafeInteger(articles) || articles < 1)
    throw new Error(`--seed takes a positive integer, not "${seedValue}"`);
  const workersValue = flag(args, '--workers');
  const workers = workersValue === undefined ? 1 : Number(workersValue);
  if (!Number.isSafeInteger(workers) || workers < 1)
    throw new Error(`--workers takes a positive integer, not "${workersValue}"`);
  const store = storeFlag(args);
  const where =
    store === 'memory'
      ? 'memory, hand-written data layers'
      : `${
          process.env.DATABASE_URL
            ? `${/^mysql:/i.test(process.env.DATABASE_URL) ? 'MySQL' : 'PostgreSQL'} ($DATABASE_URL)`
            : (flag(args, '--db') ?? 'a temporary SQLite file')
        }${store === 'prisma' ? ', Prisma store' : store === 'drizzle' ? ', Drizzle store' : ''}`;
  const onDatabase = store === 'memory' ? 'kysely' : store;
  if (cluster.isWorker) {
    const demo = await startDemo({ db: workerDatabase(), seed: articles, store: onDatabase });
    const stop = () =>
      void demo.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    process.once('SIGTERM', stop);
    process.once('SIGINT', () => {}); // the primary stops the workers
    return;
  }
  const url = workers > 1 ? await startWorkers({ workers, seed: articles, db: flag(args, '--db') }) : undefined;
  const memory = store === 'memory';
  if (memory && workers > 1) throw new Error('--store memory serves from one process: it cannot go with --workers');
  const demo = url ? undefined : await startDemo({ db: flag(args, '--db'), seed: articles, memory, store: onDatabase });
  printWelcome(demo?.url ?? url!, where, workers);
  if (!demo) return;
  const stop = () => {
    demo.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function printWelcome(url: string, where: string, workers: number): void {
  console.log(`Blog API (${where}) listening on ${url}${workers > 1 ? ` (${workers} worker processes)` : ''}`);
  console.log('Try:');
  console.log(`  curl -g '${url}/articles?sort=-createdAt&page[limit]=5&include=author'`);
  console.log(`  curl -g '${url}/articles?filter[author][]=1&filter[author][]=2&fields[articles]=title,author'`);
  console.log(`  curl -X DELETE -H 'Authorization: Bearer 1' ${url}/articles/1`);
  console.log(`API reference: ${url}/docs (OpenAPI document: ${url}/openapi.json)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
