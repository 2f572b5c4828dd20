import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../db.js';

/** people, articles, comments, tags, article_tags; indexes on foreign keys and sort columns. */
export function initial(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  const id = <T extends string>(table: CreateTableBuilder<T, never>) =>
    dialect === 'postgres'
      ? table.addColumn('id', 'serial', (c) => c.primaryKey())
      : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  const references = (target: string) => (c: ColumnDefinitionBuilder) =>
    c.notNull().references(`${target}.id`).onDelete('cascade');

  return {
    async up(db: Kysely<unknown>) {
      await id(db.schema.createTable('people'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      await id(db.schema.createTable('articles'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('body', 'text')
        .addColumn('status', 'text', (c) =>
          c
            .notNull()
            .defaultTo('draft')
            .check(sql<boolean>`status in ('draft', 'published')`),
        )
        .addColumn('author_id', 'integer', references('people'))
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .execute();
      await id(db.schema.createTable('comments'))
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('author_id', 'integer', references('people'))
        .addColumn('article_id', 'integer', references('articles'))
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      await id(db.schema.createTable('tags'))
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .execute();
      await db.schema
        .createTable('article_tags')
        .addColumn('article_id', 'integer', references('articles'))
        .addColumn('tag_id', 'integer', references('tags'))
        .addPrimaryKeyConstraint('article_tags_pk', ['article_id', 'tag_id'])
        .execute();

      const indexes: Array<[string, string]> = [
        ['people', 'name'],
        ['people', 'created_at'],
        ['articles', 'author_id'],
        ['articles', 'title'],
        ['articles', 'status'],
        ['articles', 'created_at'],
        ['articles', 'updated_at'],
        ['comments', 'article_id'],
        ['comments', 'author_id'],
        ['comments', 'created_at'],
        ['article_tags', 'tag_id'],
      ];
      for (const [table, column] of indexes) {
        await db.schema.createIndex(`${table}_${column}_index`).on(table).column(column).execute();
      }
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['article_tags', 'tags', 'comments', 'articles', 'people'])
        await db.schema.dropTable(table).execute();
    },
  };
}
