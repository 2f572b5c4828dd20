/**
 * Idempotency keys kept in a table of the database, as leases, for stores that have one (the
 * Kysely, Drizzle and Prisma stores, on the table the Kysely store's `idempotencyMigration` makes): a
 * claim is one insert that only one request can make, the response is stored when the request
 * ends, and keys older than the time to live are forgotten.
 *
 * The request's transaction (the store's `transaction` option on the same database) marks the
 * key as written, holding its claim, so that the mark commits with the write or not at all. A
 * claim older than the lease whose write never committed (its process died, or its database
 * went away before it could release the key) is taken over by the next retry, in one update
 * that only one retry can win; its old holder, if still alive, then fails at the mark (409) and
 * writes nothing. The store supplies the statements (`KeyTable`); the rules are here.
 */
import {
  type HeldKey,
  type IdempotencyClaim,
  type IdempotencyStore,
  type StoredResponse,
  keyInFlight,
} from './idempotency.js';

/** A key's row. */
export interface KeyRow {
  key: string;
  fingerprint: string;
  /** When the key was claimed (or its claim taken over), in ms since the epoch. */
  createdAt: number;
  status: number | null;
  /** The stored response, as JSON text. */
  response: string | null;
  /** Who holds the claim: a random token per claim. */
  holder: string | null;
  /** 1 once the holder's write committed (set in the write's transaction). */
  written: number;
}

/**
 * The statements a leased key store runs, outside the request's transaction except `mark`.
 * `T`: what the request's transaction is to the store (where `mark` runs).
 */
export interface KeyTable<T> {
  /** Deletes the keys created before `time`. */
  forgetBefore(time: number): Promise<unknown>;
  /** Inserts `row` unless its key exists (atomically); whether it did. */
  insert(row: KeyRow): Promise<boolean>;
  /** The row of `key`, if any. */
  find(key: string): Promise<KeyRow | undefined>;
  /**
   * Gives the claim of `key` to `holder` (created at `now`) only while it is `fingerprint`'s,
   * has no response, was not written and was created before `before`; whether it did.
   */
  takeOver(key: string, fingerprint: string, before: number, now: number, holder: string): Promise<boolean>;
  /** Stores the response of `key` while `holder` holds it. */
  complete(key: string, holder: string, status: number, response: string): Promise<unknown>;
  /** Deletes `key` while `holder` holds it, with no response and nothing written. */
  release(key: string, holder: string): Promise<unknown>;
  /** Marks `key` written on `transaction` while `holder` holds it; whether it did. */
  mark(transaction: T, key: string, holder: string): Promise<boolean>;
}

/** Options of a leased key store. */
export interface LeaseOptions {
  /** How long a key is remembered. Default: one day. */
  ttlSeconds?: number;
  /**
   * How long a claim holds its key before a retry may take it over, when its write has not
   * committed (its process died mid-request). Keep it above your longest request. Default: 60.
   */
  leaseSeconds?: number;
}

/** What a store's transaction needs to mark a held key: the database the keys live in, and how. */
interface Marking {
  database: object;
  mark(held: HeldKey, transaction: unknown): Promise<boolean>;
}

/** The stores `leasedIdempotency` made -> how to mark their keys. */
const markings = new WeakMap<IdempotencyStore, Marking>();

/** The tokens of the claims stores answered `new` with (the claim object is what the runtime hands back). */
const tokens = new WeakMap<IdempotencyClaim, string>();

/**
 * An `IdempotencyStore` on `table`, whose keys live in `database` (the object the store's
 * `transaction` option is made with: a Kysely, a Drizzle database, a Prisma client). `who` names the maker in
 * errors; `replace` maps what a statement threw (a database that cannot answer for now: the
 * 503 a write would get, and the key stays free).
 *
 * @example
 * declare const database: object;
 * declare const table: KeyTable<unknown>;
 * const store = leasedIdempotency('myIdempotency', database, table, (thrown) => thrown, { leaseSeconds: 30 });
 */
export function leasedIdempotency<T>(
  who: string,
  database: object,
  table: KeyTable<T>,
  replace: (thrown: unknown) => unknown,
  options: LeaseOptions = {},
): IdempotencyStore {
  const ttl = (options.ttlSeconds ?? 86_400) * 1000;
  const lease = (options.leaseSeconds ?? 60) * 1000;
  if (!(lease > 0)) throw new TypeError(`${who}: leaseSeconds must be positive, got ${options.leaseSeconds}`);
  const guarded = async <R>(statements: () => Promise<R>): Promise<R> => {
    try {
      return await statements();
    } catch (thrown) {
      throw replace(thrown);
    }
  };
  const claimed = (token: string): IdempotencyClaim => {
    const claim: IdempotencyClaim = { state: 'new' };
    tokens.set(claim, token);
    return claim;
  };
  const claim = async (key: string, fingerprint: string): Promise<IdempotencyClaim> => {
    const now = Date.now();
    // Web Crypto's, which every platform the runtime serves on has.
    const token = crypto.randomUUID();
    await table.forgetBefore(now - ttl);
    const row = { key, fingerprint, createdAt: now, status: null, response: null, holder: token, written: 0 };
    if (await table.insert(row)) return claimed(token);
    const found = await table.find(key);
    if (!found) return claim(key, fingerprint); // expired and deleted between the two statements
    if (found.fingerprint !== fingerprint) return { state: 'mismatch' };
    if (found.status !== null && found.response !== null)
      return { state: 'done', response: JSON.parse(found.response) as StoredResponse };
    // In flight, unless its lease ran out with nothing written: then one statement takes it over,
    // which two retries cannot both do (the second finds the claim fresh again).
    return (await table.takeOver(key, fingerprint, now - lease, now, token)) ? claimed(token) : { state: 'in-flight' };
  };
  // Only while the claim is still this request's: one taken over belongs to the retry now.
  const holding = (claim: IdempotencyClaim) => tokens.get(claim) ?? '';
  const store: IdempotencyStore = {
    claim: (key, fingerprint) => guarded(() => claim(key, fingerprint)),
    complete: (key, response, held) =>
      guarded(async () => {
        await table.complete(key, holding(held), response.status, JSON.stringify(response));
      }),
    release: (key, held) =>
      guarded(async () => {
        await table.release(key, holding(held));
      }),
  };
  markings.set(store, {
    database,
    mark(held, transaction) {
      const token = tokens.get(held.claim);
      if (token === undefined) return Promise.resolve(true); // not a claim of this store's making
      return table.mark(transaction as T, held.key, token);
    },
  });
  return store;
}

/**
 * Marks the key the request of `held` is served under as written, on `transaction` (the
 * request's transaction of `database`), when a `leasedIdempotency` store keeps it in `database`.
 * Throws 409 when another retry has taken the claim over (this request outlived its lease), so
 * that nothing is written.
 *
 * @example
 * import { heldKeyOf } from './idempotency.js';
 * declare const database: object;
 * declare const transaction: unknown;
 * declare const ctx: Context;
 * await markHeldKey(database, heldKeyOf(ctx.http), transaction);
 */
export async function markHeldKey(database: object, held: HeldKey | undefined, transaction: unknown): Promise<void> {
  const marking = held && markings.get(held.store);
  if (!marking || marking.database !== database) return;
  if (!(await marking.mark(held, transaction))) throw keyInFlight();
}
