/**
 * Idempotency keys in a model of the database (the demo's `IdempotencyKey`, on the table the
 * Kysely store's `idempotencyMigration` makes), so that any process can answer a retry: a claim
 * is one insert (the key is the primary key, so two claims cannot both insert), the response is
 * stored when the request ends, and keys older than `ttlSeconds` are forgotten.
 *
 * A claim is a lease. The request's transaction (`prismaTransaction` on the same client) marks
 * the key as written, holding its claim, so that the mark commits with the write or not at all.
 * A claim older than `leaseSeconds` whose write never committed is taken over by the next retry,
 * in one `updateMany` only one retry can win; its old holder, if still alive, then fails at the
 * mark (409) and writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { type IdempotencyClaim, type IdempotencyStore, type StoredResponse } from 'jsonapi-gen';
import { type HeldKey, keyInFlight } from 'jsonapi-gen/internal';
import { whenUnavailable } from './errors.js';

/** A key's row, as the model's fields name it. */
interface KeyRow {
  key: string;
  fingerprint: string;
  /** When the key was claimed (or its claim taken over), in ms since the epoch. */
  createdAt: bigint;
  status: number | null;
  response: string | null;
  /** Who holds the claim: a random token per claim. */
  holder: string | null;
  /** 1 once the holder's write committed (set in the write's transaction). */
  written: number;
}

type KeyWhere = {
  key?: string;
  fingerprint?: string;
  holder?: string;
  status?: null;
  written?: number;
  createdAt?: { lt: bigint };
};

/** The calls this store makes on the model's delegate (`prisma.idempotencyKey`). */
interface KeyDelegate {
  create(args: { data: KeyRow }): PromiseLike<unknown>;
  findUnique(args: { where: { key: string } }): PromiseLike<KeyRow | null>;
  updateMany(args: { where: KeyWhere; data: Partial<KeyRow> }): PromiseLike<{ count: number }>;
  deleteMany(args: { where: KeyWhere }): PromiseLike<{ count: number }>;
}

/** Options of `prismaIdempotency`. */
export interface PrismaIdempotencyOptions {
  /** The model's delegate on the client. Default `idempotencyKey`. */
  model?: string;
  /** How long a key is remembered. Default: one day. */
  ttlSeconds?: number;
  /**
   * How long a claim holds its key before a retry may take it over, when its write has not
   * committed (its process died mid-request). Keep it above your longest request. Default: 60.
   */
  leaseSeconds?: number;
}

/** What `prismaTransaction` needs to mark a held key inside the request's transaction. */
interface Marking {
  client: object;
  /** Marks `held` as written through `tx`; false when its claim was taken over. */
  mark(held: HeldKey, tx: unknown): Promise<boolean>;
}

/** The stores `prismaIdempotency` made -> how to mark their keys. */
const markings = new WeakMap<IdempotencyStore, Marking>();

/** The tokens of the claims stores answered `new` with (the claim object is what the runtime hands back). */
const tokens = new WeakMap<IdempotencyClaim, string>();

/** The model's delegate on `client` (or on a transaction client of it). */
function delegateOf(client: unknown, model: string): KeyDelegate {
  const delegate = (client as Record<string, unknown>)[model];
  if (typeof delegate !== 'object' || delegate === null)
    throw new TypeError(`prismaIdempotency: the client has no model "${model}"`);
  return delegate as KeyDelegate;
}

/**
 * Marks the key the request of `held` is served under as written, through `tx` (the request's
 * transaction of `client`), when its store keeps keys on `client`. Throws 409 when another
 * retry has taken the claim over (this request outlived its lease), so that nothing is written.
 */
export async function markWritten(client: object, held: HeldKey | undefined, tx: unknown): Promise<void> {
  const marking = held && markings.get(held.store);
  if (!marking || marking.client !== client) return;
  if (!(await marking.mark(held, tx))) throw keyInFlight();
}

/** Runs a key call; a database that cannot answer for now is the 503 a write would get. */
async function keyCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    throw whenUnavailable(thrown);
  }
}

/** Whether Prisma refused an insert for a taken key. */
function taken(thrown: unknown): boolean {
  return (thrown as { code?: unknown } | null)?.code === 'P2002';
}

/**
 * An `IdempotencyStore` on the `IdempotencyKey` model of `client` (see the demo's
 * schema.prisma). Its calls run outside the request's transaction: a claim is visible to other
 * processes at once. With `prismaTransaction(client)`, a claim is a lease (see `leaseSeconds`).
 * A database that cannot answer for now is 503 with `Retry-After`, and the key stays free.
 *
 * @example
 * import { prisma } from './db.js';
 * new JsonApi({
 *   transaction: prismaTransaction(prisma),
 *   idempotency: { store: prismaIdempotency(prisma), scope: (ctx) => ctx.getAttribute('user') },
 * });
 */
export function prismaIdempotency(client: object, options: PrismaIdempotencyOptions = {}): IdempotencyStore {
  const model = options.model ?? 'idempotencyKey';
  const keys = delegateOf(client, model);
  const ttl = (options.ttlSeconds ?? 86_400) * 1000;
  const lease = (options.leaseSeconds ?? 60) * 1000;
  if (!(lease > 0))
    throw new TypeError(`prismaIdempotency: leaseSeconds must be positive, got ${options.leaseSeconds}`);
  const claimed = (token: string): IdempotencyClaim => {
    const claim: IdempotencyClaim = { state: 'new' };
    tokens.set(claim, token);
    return claim;
  };
  const claim = async (key: string, fingerprint: string): Promise<IdempotencyClaim> => {
    const now = Date.now();
    const token = randomUUID();
    await keys.deleteMany({ where: { createdAt: { lt: BigInt(now - ttl) } } });
    try {
      await keys.create({
        data: { key, fingerprint, createdAt: BigInt(now), status: null, response: null, holder: token, written: 0 },
      });
      return claimed(token);
    } catch (thrown) {
      if (!taken(thrown)) throw thrown;
    }
    const row = await keys.findUnique({ where: { key } });
    if (!row) return claim(key, fingerprint); // expired and deleted between the two calls
    if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
    if (row.status !== null && row.response !== null)
      return { state: 'done', response: JSON.parse(row.response) as StoredResponse };
    // In flight, unless its lease ran out with nothing written: then one update takes it over,
    // which two retries cannot both do (the second finds the claim fresh again).
    const { count } = await keys.updateMany({
      where: { key, fingerprint, status: null, written: 0, createdAt: { lt: BigInt(now - lease) } },
      data: { createdAt: BigInt(now), holder: token },
    });
    return count === 1 ? claimed(token) : { state: 'in-flight' };
  };
  // Only while the claim is still this request's: one taken over belongs to the retry now.
  const holding = (claim: IdempotencyClaim) => tokens.get(claim) ?? '';
  const store: IdempotencyStore = {
    claim: (key, fingerprint) => keyCall(() => claim(key, fingerprint)),
    complete: (key, response, held) =>
      keyCall(async () => {
        await keys.updateMany({
          where: { key, holder: holding(held) },
          data: { status: response.status, response: JSON.stringify(response) },
        });
      }),
    release: (key, held) =>
      keyCall(async () => {
        await keys.deleteMany({ where: { key, holder: holding(held), status: null, written: 0 } });
      }),
  };
  markings.set(store, {
    client,
    async mark(held, tx) {
      const token = tokens.get(held.claim);
      if (token === undefined) return true; // not a claim of this store's making
      const { count } = await delegateOf(tx, model).updateMany({
        where: { key: held.key, holder: token },
        data: { written: 1 },
      });
      return count === 1;
    },
  });
  return store;
}
