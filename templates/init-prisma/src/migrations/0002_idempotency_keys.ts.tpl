/**
 * The table where `prismaIdempotency` (src/server.ts) keeps the Idempotency-Key of each POST
 * and the response it got: a retry with the same key is answered from here, not run again.
 * Its model is `IdempotencyKey` in prisma/schema.prisma.
 */
import type { Kysely, Migration } from 'kysely';

export const idempotencyKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('jsonapi_idempotency_keys')
      .addColumn('key', 'text', (column) => column.primaryKey())
      .addColumn('fingerprint', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('status', 'integer')
      .addColumn('response', 'text')
      .addColumn('holder', 'text')
      .addColumn('written', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('jsonapi_idempotency_keys_created_at_index')
      .on('jsonapi_idempotency_keys')
      .column('created_at')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('jsonapi_idempotency_keys').execute();
  },
};
