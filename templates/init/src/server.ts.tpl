/** Serves the API on http://127.0.0.1:$PORT (default 3000), and its OpenAPI document at /openapi.json. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kyselyTransaction } from '@jsonapi-gen/kysely';
import { toNodeHandler } from 'jsonapi-gen/node';
import { migrate, openDatabase } from './db.js';
import { createApi, openapi } from './generated/index.js';
import { createStore } from './store.js';

const db = openDatabase();
await migrate(db);

// Every write request runs in one transaction.
const api = createApi(createStore(db), { transaction: kyselyTransaction(db) });
const document = JSON.stringify(openapi);

const server = createServer(
  toNodeHandler(async (request: Request) => {
    if (new URL(request.url).pathname === '/openapi.json') {
      return new Response(document, { headers: { 'content-type': 'application/json' } });
    }
    return api.fetch(request);
  }),
);

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`{{name}} listening on http://127.0.0.1:${port}`);
  console.log(`  curl 'http://127.0.0.1:${port}/books?include=author'`);
});

const stop = () => server.close(() => void db.destroy().then(() => process.exit(0)));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
