/** What a host declares to keep a transactional outbox: the types whose writes it records, and where. */
import type { Context } from './context.js';
import type { MaybePromise } from '../core/types.js';

/**
 * One successful write, as the runtime hands it to `Outbox.record`: a create, update
 * (relationship writes included) or delete of resource `type` `id`, the attribute and
 * relationship names it wrote (sorted; empty for a delete), and when (ISO 8601, UTC).
 *
 * @example
 * const entry: OutboxEntry = { action: 'update', type: 'articles', id: '7', changed: ['title'], occurredAt: '2024-01-01T08:00:00.000Z' };
 */
export interface OutboxEntry {
  readonly action: 'create' | 'update' | 'delete';
  readonly type: string;
  readonly id: string;
  readonly changed: readonly string[];
  readonly occurredAt: string;
}

/**
 * A transactional outbox (the API's `outbox` option): after each successful write of one of
 * `types`, inside the write's transaction (the API's `transaction`, found by `ctx.unitOfWork`),
 * the runtime calls `record` once; an Atomic Operations batch calls it once per operation. A
 * write that fails or rolls back leaves no entry; what `record` throws fails the write. The
 * stores provide one each (`kyselyOutbox`, `prismaOutbox`, `drizzleOutbox`).
 *
 * @example
 * const entries: OutboxEntry[] = [];
 * const outbox: Outbox = { types: ['articles'], record: (entry) => void entries.push(entry) };
 * new JsonApi({ outbox });
 */
export interface Outbox {
  /** The resource types whose writes are recorded. */
  readonly types: readonly string[];
  /** Appends `entry`, on the transaction of `context`'s unit of work. */
  record(entry: OutboxEntry, context: Context): MaybePromise<unknown>;
}
