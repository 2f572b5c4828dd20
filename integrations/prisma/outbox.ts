/**
 * A transactional outbox in a model of the database (the demo's `OutboxEntry`, on the table
 * `outboxMigration()` of @jsonapi-gen/kysely makes): `prismaOutbox(prisma, { types })` (the
 * API's `outbox` option) creates one row per successful write on the request's interactive
 * transaction; the host serves the model read-only as an ordinary resource of `defineStore`.
 */
import type { Outbox } from 'jsonapi-gen';
import { clientFor } from './transaction.js';

/** Options of `prismaOutbox`. */
export interface PrismaOutboxOptions {
  /** The resource types whose writes are recorded. */
  types: readonly string[];
  /**
   * The model's delegate on the client. Default `outboxEntry`: a model with the fields
   * `action`, `resourceType`, `resourceId`, `changed` (String: the member names as a JSON
   * array) and `occurredAt` (DateTime), and an autoincrementing `id`.
   */
  model?: string;
}

/** The one call the outbox makes on the model's delegate. */
interface EntryDelegate {
  create(args: {
    data: { action: string; resourceType: string; resourceId: string; changed: string; occurredAt: Date };
  }): PromiseLike<unknown>;
}

/**
 * The API's `outbox` on `client`: each entry one `create` on the request's transaction
 * (`prismaTransaction(client)`), so it commits or rolls back with the write.
 *
 * @example
 * import { prisma } from './db.js';
 * new JsonApi({ transaction: prismaTransaction(prisma), outbox: prismaOutbox(prisma, { types: ['articles'] }) });
 */
export function prismaOutbox(client: object, options: PrismaOutboxOptions): Outbox {
  const model = options.model ?? 'outboxEntry';
  const delegate = (client as Record<string, unknown>)[model];
  if (typeof delegate !== 'object' || delegate === null)
    throw new TypeError(`prismaOutbox: the client has no model "${model}"`);
  return {
    types: options.types,
    record: (entry, context) =>
      ((clientFor(client, context) as Record<string, unknown>)[model] as EntryDelegate).create({
        data: {
          action: entry.action,
          resourceType: entry.type,
          resourceId: entry.id,
          changed: JSON.stringify(entry.changed),
          occurredAt: new Date(entry.occurredAt),
        },
      }),
  };
}
