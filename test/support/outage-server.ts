/**
 * The blog demo's API on PostgreSQL in a process of its own, for tests that take the database
 * away under load and watch whether this process survives: `node --import tsx
 * test/support/outage-server.ts <postgresKysely|PostgresDialect> <url>`. It prints `listening on
 * <url>` once it serves, and holds no `'error'` listener of its own on the pool or its clients:
 * whatever keeps it alive is the store's.
 *
 * `postgresKysely`: the integration's Kysely with the direct runner (the store's statements
 * outside transactions on the pool's clients directly); `PostgresDialect`: Kysely's own dialect on `preparedPool(pool)`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { toNodeHandler } from 'jsonapi-gen/node';
import { dateTimeText, kyselyIdempotency, kyselyTransaction, postgresKysely, preparedPool } from '@jsonapi-gen/kysely';
import { type Database, migrate } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { userOf } from '../../examples/blog/server.js';
import { createStore } from '../../examples/blog/store.js';

const [mode, url] = process.argv.slice(2);
if ((mode !== 'postgresKysely' && mode !== 'PostgresDialect') || !url)
  throw new Error('usage: outage-server.ts <postgresKysely|PostgresDialect> <postgres url>');
const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c TimeZone=UTC', types: dateTimeText(pg.types) });
const db =
  mode === 'postgresKysely'
    ? postgresKysely<Database>(pool, { runner: 'direct' })
    : new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparedPool(pool) }) });
await migrate(db, 'postgres');
await seed(db, 20);
const api = createApi(createStore(db), {
  transaction: kyselyTransaction(db),
  idempotency: { store: kyselyIdempotency(db), scope: (ctx) => ctx.getAttribute('user') },
  onError: (error) => console.error('500:', error),
});
const serve = toNodeHandler(api, {
  attributes: (_req, request) => {
    const user = userOf(request.header('authorization'));
    return user === undefined ? {} : { user };
  },
});
const server = createServer((req, res) => void serve(req, res));
server.listen(0, '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`),
);
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void db.destroy().finally(() => process.exit(0));
});
