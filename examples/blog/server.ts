/**
 * The blog demo: migrates and seeds a database, then serves the API of shared/DEMO.md on
 * node:http. `npm run demo -- --db FILE --seed N`; PostgreSQL when DATABASE_URL is set.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toNodeHandler } from 'jsonapi-gen/node';
import { kyselyTransaction } from '@jsonapi-gen/kysely';
import type { LogConfig } from 'kysely';
import { migrate, openDatabase } from './db.js';
import { createApi, openapi } from './generated/index.js';
import { seed } from './seed.js';
import { createStore } from './store.js';

const OPENAPI = JSON.stringify(openapi);

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
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
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
  /** A `postgres://` URL to use instead of SQLite; null for SQLite. Default: $DATABASE_URL. */
  databaseUrl?: string | null | undefined;
  /** Kysely's `log` option. */
  log?: LogConfig;
}

export interface Demo {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Stops the server and closes the database. */
  close(): Promise<void>;
}

/** The demo's stand-in for authentication: `Authorization: Bearer <personId>` is that person. */
export function userOf(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

/** Migrates, seeds and serves the blog; resolves once it listens. */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const databaseUrl = options.databaseUrl === undefined ? process.env.DATABASE_URL : (options.databaseUrl ?? undefined);
  const database = openDatabase({ databaseUrl, file: options.db, ...(options.log && { log: options.log }) });
  const { db } = database;
  let server: Server | undefined;
  try {
    await migrate(db, database.dialect);
    await seed(db, options.seed ?? 120);

    // The generated API bound to the Kysely data layers, with the schema's extensions (Atomic
    // Operations). Every write request, and every Atomic Operations batch, is one transaction.
    const api = createApi(createStore(db), { transaction: kyselyTransaction(db) });

    const serveApi = (request: Request): Promise<Response> => {
      const user = userOf(request);
      return api.fetch(request, { attributes: user === undefined ? {} : { user } });
    };
    const serveDocs = async (request: Request): Promise<Response> => {
      const { pathname } = new URL(request.url);
      if (pathname === '/openapi.json' && (request.method === 'GET' || request.method === 'HEAD')) {
        return new Response(request.method === 'HEAD' ? null : OPENAPI, { headers: { 'content-type': 'application/json' } });
      }
      return (await docs(request, pathname)) ?? (await serveApi(request));
    };
    // Only /openapi.json and /docs need the path here; the API parses the URL itself.
    const serve = (request: Request): Promise<Response> =>
      /^[a-z]+:\/\/[^/]*\/(openapi\.json|docs)/i.test(request.url) ? serveDocs(request) : serveApi(request);

    server = createServer(toNodeHandler(serve));
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
        listening.closeAllConnections();
        await new Promise<void>((resolve) => listening.close(() => resolve()));
        await database.close();
      },
    };
  } catch (error) {
    server?.close();
    await database.close();
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

async function main(args: readonly string[]): Promise<void> {
  const seedValue = flag(args, '--seed');
  const articles = seedValue === undefined ? 120 : Number(seedValue);
  if (!Number.isSafeInteger(articles) || articles < 1) throw new Error(`--seed takes a positive integer, not "${seedValue}"`);
  const demo = await startDemo({ db: flag(args, '--db'), seed: articles });
  const where = process.env.DATABASE_URL ? 'PostgreSQL ($DATABASE_URL)' : (flag(args, '--db') ?? 'a temporary SQLite file');
  console.log(`Blog API (${where}) listening on ${demo.url}`);
  console.log('Try:');
  console.log(`  curl -g '${demo.url}/articles?sort=-createdAt&page[limit]=5&include=author'`);
  console.log(`  curl -g '${demo.url}/articles?filter[author][]=1&filter[author][]=2&fields[articles]=title,author'`);
  console.log(`  curl -X DELETE -H 'Authorization: Bearer 1' ${demo.url}/articles/1`);
  console.log(`API reference: ${demo.url}/docs (OpenAPI document: ${demo.url}/openapi.json)`);
  const stop = () => {
    demo.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
