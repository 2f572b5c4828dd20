/** Serves the API on http://127.0.0.1:$PORT (default 3000), and its OpenAPI document at /openapi.json. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drizzleIdempotency, drizzleTransaction } from '@jsonapi-gen/drizzle';
import { toNodeHandler } from 'jsonapi-gen/node';
import { migrate, openDatabase, seed } from './db.js';
import { createApi, openapi } from './generated/index.js';
import { createStore } from './store.js';
import { idempotencyKeys } from './tables.js';

const db = openDatabase();
migrate(db);
seed(db);

// A 500's body says nothing of its cause (the client may be anyone): the cause is logged here.
const logFailure = (error: unknown) => console.error('{{name}}: 500 Internal Server Error:', error);

// Every write request runs in one transaction. A POST retried with the same Idempotency-Key
// header is answered from the jsonapi_idempotency_keys table (a migration makes it).
const api = createApi(createStore(db), {
  transaction: drizzleTransaction(db),
  idempotency: { store: drizzleIdempotency(db, idempotencyKeys) },
  onError: logFailure,
});
const document = JSON.stringify(openapi);

const server = createServer(
  toNodeHandler(
    async (request: Request) => {
      if (new URL(request.url).pathname === '/openapi.json') {
        return new Response(document, { headers: { 'content-type': 'application/json' } });
      }
      // Attach who is asking here, from your own authentication:
      // api.fetch(request, { attributes: { user } }), read in callbacks as ctx.getAttribute('user').
      return api.fetch(request);
    },
    // What fails outside the API (here, or while writing a response) is logged the same way.
    { onError: logFailure },
  ),
);

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`{{name}} listening on http://127.0.0.1:${port}`);
  console.log(`  curl 'http://127.0.0.1:${port}/books?include=author'`);
});

const stop = () =>
  server.close(() => {
    db.$client.close();
    process.exit(0);
  });
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
