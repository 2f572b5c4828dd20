/**
 * Idempotency keys in a table of the database, so that any process can answer a retry: a claim
 * is one `insert ... on conflict do nothing` (atomic on SQLite and PostgreSQL), the response is
 * stored when the request ends, and keys older than `ttlSeconds` are forgotten.
 */
import type { Kysely, Migration } from 'kysely';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from 'jsonapi-gen';

/** The default table name. */
const TABLE = 'jsonapi_idempotency_keys';

interface KeyRow {
  key: string;
  fingerprint: string;
  created_at: number;
  status: number | null;
  response: string | null;
}

/**
 * The migration that creates the keys table (add it to your migrations).
 *
 * @example
 * const migrations = { '0001_initial': initial, '0002_idempotency': idempotencyMigration() };
 */
export function idempotencyMigration(table = TABLE): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable(table)
        .ifNotExists()
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('response', 'text')
        .execute();
      await db.schema.createIndex(`${table}_created_at_index`).ifNotExists().on(table).column('created_at').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable(table).ifExists().execute();
    },
  };
}

/** Options of `kyselyIdempotency`. */
export interface KyselyIdempotencyOptions {
  /** Default `jsonapi_idempotency_keys`. */
  table?: string;
  /** How long a key is remembered. Default: one day. */
  ttlSeconds?: number;
}

/**
 * An `IdempotencyStore` on `db`, in the table `idempotencyMigration()` creates. Its statements
 * run outside the request's transaction: a claim is visible to other processes at once.
 *
 * @example
 * new JsonApi({ idempotency: { store: kyselyIdempotency(db), scope: (ctx) => ctx.getAttribute('user') } });
 */
export function kyselyIdempotency(db: Kysely<any>, options: KyselyIdempotencyOptions = {}): IdempotencyStore {
  const table = options.table ?? TABLE;
  const ttl = (options.ttlSeconds ?? 86_400) * 1000;
  const keys = db as Kysely<Record<string, KeyRow>>;
  return {
    async claim(key: string, fingerprint: string): Promise<IdempotencyClaim> {
      const now = Date.now();
      await keys.deleteFrom(table).where('created_at', '<', now - ttl).execute();
      const [inserted] = await keys
        .insertInto(table)
        .values({ key, fingerprint, created_at: now, status: null, response: null })
        .onConflict((conflict) => conflict.column('key').doNothing())
        .execute();
      if (inserted && inserted.numInsertedOrUpdatedRows === 1n) return { state: 'new' };
      const row = await keys.selectFrom(table).selectAll().where('key', '=', key).executeTakeFirst();
      if (!row) return this.claim(key, fingerprint); // expired and deleted between the two statements
      if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (row.status === null || row.response === null) return { state: 'in-flight' };
      return { state: 'done', response: JSON.parse(row.response) as StoredResponse };
    },
    async complete(key: string, response: StoredResponse): Promise<void> {
      await keys.updateTable(table).set({ status: response.status, response: JSON.stringify(response) }).where('key', '=', key).execute();
    },
    async release(key: string): Promise<void> {
      await keys.deleteFrom(table).where('key', '=', key).where('status', 'is', null).execute();
    },
  };
}
