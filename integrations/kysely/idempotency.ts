/**
 * Idempotency keys in a table of the database, so that any process can answer a retry: a claim
 * is one `insert ... on conflict do nothing` (atomic on SQLite and PostgreSQL), the response is
 * stored when the request ends, and keys older than `ttlSeconds` are forgotten.
 *
 * A claim is a lease. The request's transaction (`kyselyTransaction` on the same database) marks
 * the key as written, holding its claim, so that the mark commits with the write or not at all.
 * A claim older than `leaseSeconds` whose write never committed (its process died, or its
 * database went away before it could release the key) is taken over by the next retry, in one
 * `update` that only one retry can win; its old holder, if still alive, then fails at the mark
 * (409) and writes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Migration } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { type IdempotencyClaim, type IdempotencyStore, type StoredResponse } from 'jsonapi-gen';
import { type HeldKey, keyInFlight } from 'jsonapi-gen/internal';
import { whenUnavailable } from './errors.js';

/** The default table name. */
const TABLE = 'jsonapi_idempotency_keys';

interface KeyRow {
  key: string;
  fingerprint: string;
  /** When the key was claimed (or its claim taken over), in ms since the epoch. */
  created_at: number;
  status: number | null;
  response: string | null;
  /** Who holds the claim: a random token per claim. */
  holder: string | null;
  /** 1 once the holder's write committed (set in the write's transaction). */
  written: number;
}

/**
 * The migration that creates the keys table (add it to your migrations).
 *
 * @example
 * import type { Migration } from 'kysely';
 * declare const initial: Migration; // your first migration
 * const migrations: Record<string, Migration> = { '0001_initial': initial, '0002_idempotency': idempotencyMigration() };
 */
export function idempotencyMigration(table = TABLE): Migration {
  return {
    async up(db: Kysely<AnyDatabase>) {
      await db.schema
        .createTable(table)
        .ifNotExists()
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('response', 'text')
        .addColumn('holder', 'text')
        .addColumn('written', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex(`${table}_created_at_index`).ifNotExists().on(table).column('created_at').execute();
    },
    async down(db: Kysely<AnyDatabase>) {
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
  /**
   * How long a claim holds its key before a retry may take it over, when its write has not
   * committed (its process died mid-request). Keep it above your longest request. Default: 60.
   */
  leaseSeconds?: number;
}

/** The default lease of a claim, in seconds. */
const DEFAULT_LEASE_SECONDS = 60;

/** What `kyselyTransaction` needs to mark a held key inside the request's transaction. */
interface Marking {
  db: Kysely<AnyDatabase>;
  /** Marks `held` as written on `executor` (the request's transaction); false when its claim was taken over. */
  mark(held: HeldKey, executor: Kysely<AnyDatabase>): Promise<boolean>;
}

/** The stores `kyselyIdempotency` made -> how to mark their keys. */
const markings = new WeakMap<IdempotencyStore, Marking>();

/** The tokens of the claims stores answered `new` with (the claim object is what the runtime hands back). */
const tokens = new WeakMap<IdempotencyClaim, string>();

/**
 * Marks the key the request of `held` is served under as written, inside the request's
 * transaction on `db` (`executor`), when its store keeps keys in `db`. Throws 409 when another
 * retry has taken the claim over (this request outlived its lease), so that nothing is written.
 */
export async function markWritten(
  db: Kysely<AnyDatabase>,
  held: HeldKey | undefined,
  executor: Kysely<AnyDatabase>,
): Promise<void> {
  const marking = held && markings.get(held.store);
  if (!marking || marking.db !== db) return;
  if (!(await marking.mark(held, executor))) throw keyInFlight();
}

/** Runs a key statement; a database that cannot answer for now is the 503 a write would get. */
async function keyStatement<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (thrown) {
    throw whenUnavailable(thrown);
  }
}

/**
 * An `IdempotencyStore` on `db`, in the table `idempotencyMigration()` creates. Its statements
 * run outside the request's transaction: a claim is visible to other processes at once. With
 * `kyselyTransaction(db)` on the same database, a claim is a lease (see `leaseSeconds`).
 * A database that cannot answer for now is 503 with `Retry-After`, and the key stays free.
 *
 * @example
 * import { db } from './db.js';
 * new JsonApi({ idempotency: { store: kyselyIdempotency(db), scope: (ctx) => ctx.getAttribute('user') } });
 */
export function kyselyIdempotency(db: Kysely<AnyDatabase>, options: KyselyIdempotencyOptions = {}): IdempotencyStore {
  const table = options.table ?? TABLE;
  const ttl = (options.ttlSeconds ?? 86_400) * 1000;
  const lease = (options.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  if (!(lease > 0))
    throw new TypeError(`kyselyIdempotency: leaseSeconds must be positive, got ${options.leaseSeconds}`);
  const keys = db as Kysely<Record<string, KeyRow>>;
  const claimed = (token: string): IdempotencyClaim => {
    const claim: IdempotencyClaim = { state: 'new' };
    tokens.set(claim, token);
    return claim;
  };
  const claim = async (key: string, fingerprint: string): Promise<IdempotencyClaim> => {
    const now = Date.now();
    const token = randomUUID();
    await keys
      .deleteFrom(table)
      .where('created_at', '<', now - ttl)
      .execute();
    const [inserted] = await keys
      .insertInto(table)
      .values({ key, fingerprint, created_at: now, status: null, response: null, holder: token, written: 0 })
      .onConflict((conflict) => conflict.column('key').doNothing())
      .execute();
    if (inserted && inserted.numInsertedOrUpdatedRows === 1n) return claimed(token);
    const row = await keys.selectFrom(table).selectAll().where('key', '=', key).executeTakeFirst();
    if (!row) return claim(key, fingerprint); // expired and deleted between the two statements
    if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
    if (row.status !== null && row.response !== null)
      return { state: 'done', response: JSON.parse(row.response) as StoredResponse };
    // In flight, unless its lease ran out with nothing written: then one statement takes it over,
    // which two retries cannot both do (the second finds the claim fresh again).
    const [taken] = await keys
      .updateTable(table)
      .set({ created_at: now, holder: token })
      .where('key', '=', key)
      .where('fingerprint', '=', fingerprint)
      .where('status', 'is', null)
      .where('written', '=', 0)
      .where('created_at', '<', now - lease)
      .execute();
    return taken && taken.numUpdatedRows === 1n ? claimed(token) : { state: 'in-flight' };
  };
  // Only while the claim is still this request's: one taken over belongs to the retry now.
  const holding = (claim: IdempotencyClaim) => tokens.get(claim) ?? '';
  const store: IdempotencyStore = {
    claim: (key, fingerprint) => keyStatement(() => claim(key, fingerprint)),
    complete: (key, response, held) =>
      keyStatement(async () => {
        await keys
          .updateTable(table)
          .set({ status: response.status, response: JSON.stringify(response) })
          .where('key', '=', key)
          .where('holder', '=', holding(held))
          .execute();
      }),
    release: (key, held) =>
      keyStatement(async () => {
        await keys
          .deleteFrom(table)
          .where('key', '=', key)
          .where('holder', '=', holding(held))
          .where('status', 'is', null)
          .where('written', '=', 0)
          .execute();
      }),
  };
  markings.set(store, {
    db,
    async mark(held, executor) {
      const token = tokens.get(held.claim);
      if (token === undefined) return true; // not a claim of this store's making
      const [marked] = await (executor as Kysely<Record<string, KeyRow>>)
        .updateTable(table)
        .set({ written: 1 })
        .where('key', '=', held.key)
        .where('holder', '=', token)
        .execute();
      return marked !== undefined && marked.numUpdatedRows === 1n;
    },
  });
  return store;
}
