/**
 * Idempotency keys in a model of the database (the demo's `IdempotencyKey`, on the table the
 * Kysely store's `idempotencyMigration` makes), so that any process can answer a retry: a claim
 * is one insert (the key is the primary key, so two claims cannot both insert), the response is
 * stored when the request ends, and keys older than `ttlSeconds` are forgotten. A claim is a
 * lease, marked written by `prismaTransaction` on the same client: the rules are the runtime's
 * (`leasedIdempotency` of `jsonapi-gen/internal`), the model's calls here.
 */
import type { IdempotencyStore } from 'jsonapi-gen';
import {
  type HeldKey,
  type KeyRow,
  type KeyTable,
  type LeaseOptions,
  leasedIdempotency,
  markHeldKey,
} from 'jsonapi-gen/internal';
import { whenUnavailable } from './errors.js';

/** A key's row, as the model's fields name it: `createdAt` is a `BigInt` field. */
type ModelRow = Omit<KeyRow, 'createdAt'> & { createdAt: bigint };

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
  create(args: { data: ModelRow }): PromiseLike<unknown>;
  findUnique(args: { where: { key: string } }): PromiseLike<ModelRow | null>;
  updateMany(args: { where: KeyWhere; data: Partial<ModelRow> }): PromiseLike<{ count: number }>;
  deleteMany(args: { where: KeyWhere }): PromiseLike<{ count: number }>;
}

/** Options of `prismaIdempotency`. */
export interface PrismaIdempotencyOptions extends LeaseOptions {
  /** The model's delegate on the client. Default `idempotencyKey`. */
  model?: string;
}

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
export function markWritten(client: object, held: HeldKey | undefined, tx: unknown): Promise<void> {
  return markHeldKey(client, held, tx);
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
  const calls: KeyTable<unknown> = {
    forgetBefore: async (time) => keys.deleteMany({ where: { createdAt: { lt: BigInt(time) } } }),
    async insert(row) {
      try {
        await keys.create({ data: { ...row, createdAt: BigInt(row.createdAt) } });
        return true;
      } catch (thrown) {
        if (taken(thrown)) return false;
        throw thrown;
      }
    },
    async find(key) {
      const row = await keys.findUnique({ where: { key } });
      return row ? { ...row, createdAt: Number(row.createdAt) } : undefined;
    },
    async takeOver(key, fingerprint, before, now, holder) {
      const { count } = await keys.updateMany({
        where: { key, fingerprint, status: null, written: 0, createdAt: { lt: BigInt(before) } },
        data: { createdAt: BigInt(now), holder },
      });
      return count === 1;
    },
    complete: async (key, holder, status, response) =>
      keys.updateMany({ where: { key, holder }, data: { status, response } }),
    release: async (key, holder) => keys.deleteMany({ where: { key, holder, status: null, written: 0 } }),
    async mark(tx, key, holder) {
      const { count } = await delegateOf(tx, model).updateMany({ where: { key, holder }, data: { written: 1 } });
      return count === 1;
    },
  };
  return leasedIdempotency('prismaIdempotency', client, calls, whenUnavailable, options);
}
