import type { Kysely, Migration } from 'kysely';

/**
 * `articles.version`: the row's version for optimistic concurrency (`If-Match`); the store adds
 * one on every write of an article (see the `version` of its mapping in store.ts).
 */
export function articleVersions(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('articles')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('articles').dropColumn('version').execute();
    },
  };
}
