/**
 * One Prisma interactive transaction per write request and per Atomic Operations batch, bound
 * to the request's unit of work (`ctx.unitOfWork`), where the data layers find it
 * (`clientFor`): no async context needed. A transaction PostgreSQL aborted for a conflict with
 * another one is run again, a bounded number of times.
 */
import type { Context } from 'jsonapi-gen';
import { heldKeyOf, retryConflicts } from 'jsonapi-gen/internal';
import { retryable, whenUnavailable } from './errors.js';
import { markWritten } from './idempotency.js';

/** Options of an interactive transaction, as `$transaction(fn, options)` takes them. */
export interface PrismaTransactionOptions {
  /** Longest wait for a connection, in ms (Prisma's default: 2000). */
  maxWait?: number;
  /** Longest the transaction may run, in ms (Prisma's default: 5000). */
  timeout?: number;
  /** e.g. `'Serializable'` on PostgreSQL; the database's default when left out. */
  isolationLevel?: string;
}

/**
 * What this module needs of a Prisma client: interactive transactions, whose client (`Tx`:
 * the generated `Prisma.TransactionClient`) the data layers run their calls on.
 */
export interface PrismaTransactional<Tx> {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: never): Promise<R>;
}

/** Transactions bound to a request's unit of work, per client. */
const open = new WeakMap<object, Map<object, unknown>>();

/**
 * What to run a Prisma call on: the transaction of `client` bound to the request of `context`
 * (by `prismaTransaction`, or `withPrismaTransaction` with that context), otherwise `client`.
 * Once the client of `context` has gone, it throws an `AbortError` (`ctx.throwIfAborted()`)
 * so that no call follows.
 *
 * @example
 * import { prisma } from './db.js';
 * declare const ctx: Context;
 * await clientFor(prisma, ctx).article.delete({ where: { id: 1 } });
 */
export function clientFor<C extends object>(client: C, context?: Context): C {
  if (context?.http) context.throwIfAborted();
  const bound = context === undefined ? undefined : open.get(context.unitOfWork)?.get(client);
  return (bound as C | undefined) ?? client;
}

/**
 * Runs `fn` in one interactive transaction of `client`, bound to the request of `context`
 * when given: every call the data layers make through `clientFor(client, ctx)` inside `fn`
 * runs in it, and nothing is written unless `fn` resolves. Inside another with the same
 * request, `fn` joins that transaction rather than opening a second one.
 *
 * @example
 * import { prisma } from './db.js';
 * declare const ctx: Context;
 * await withPrismaTransaction(prisma, async (tx) => {
 *   await tx.comment.deleteMany({ where: { articleId: 1 } });
 *   await tx.article.delete({ where: { id: 1 } });
 * }, { context: ctx });
 */
export async function withPrismaTransaction<Tx, T>(
  client: PrismaTransactional<Tx>,
  fn: (tx: Tx) => Promise<T>,
  options: PrismaTransactionOptions & { context?: Context } = {},
): Promise<T> {
  const { context, ...transactionOptions } = options;
  const unit = context?.unitOfWork;
  const own = unit === undefined ? undefined : open.get(unit)?.get(client);
  if (own !== undefined) return fn(own as Tx);
  return client.$transaction(async (tx) => {
    if (unit === undefined) return fn(tx);
    let bound = open.get(unit);
    if (bound === undefined) open.set(unit, (bound = new Map<object, unknown>()));
    bound.set(client, tx);
    try {
      return await fn(tx);
    } finally {
      bound.delete(client);
    }
  }, transactionOptions as never);
}

/**
 * The `transaction` option of `JsonApi`: every write request (and every Atomic Operations
 * batch) runs in one interactive transaction of `client`, rolled back when anything in it
 * throws, and run again (up to 4 times in all) when PostgreSQL aborted it for a serialization
 * failure or a deadlock. A database that cannot answer for now is 503 with `Retry-After`. A
 * request under an `Idempotency-Key` kept by `prismaIdempotency(client)` marks its key inside
 * this transaction, so that the mark commits with the write.
 *
 * @example
 * import { prisma } from './db.js';
 * const api = new JsonApi({ transaction: prismaTransaction(prisma, { isolationLevel: 'Serializable' }), extensions: [atomic()] });
 */
export function prismaTransaction<Tx>(
  client: PrismaTransactional<Tx>,
  options: PrismaTransactionOptions = {},
): <T>(run: () => Promise<T>, context: Context) => Promise<T> {
  return async (run, context) => {
    const held = heldKeyOf(context.http);
    const body = async (tx: Tx) => {
      await markWritten(client, held, tx);
      return run();
    };
    return retryConflicts(() => withPrismaTransaction(client, body, { ...options, context }), {
      replace: whenUnavailable,
      retryable,
    });
  };
}
