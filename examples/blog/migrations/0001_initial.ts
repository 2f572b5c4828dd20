import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../db.js';

/**
 * people, articles, comments, tags, article_tags; indexes on foreign keys and sort columns.
 *
 * On MySQL and MariaDB: InnoDB tables in utf8mb4 with the binary collation `utf8mb4_bin`, so
 * that text compares and sorts by code point, case-sensitively, as on SQLite and PostgreSQL
 * (the default collations ignore case and accents: `filter[title]=x` would find "X");
 * `varchar(255)` for text that is indexed (MySQL indexes text only to a length), `mediumtext`
 * for the rest; `datetime(3)` for date-times, which the store keeps as UTC instants (milliseconds, as
 * responses carry them); foreign keys as table constraints (MySQL ignores them in a column).
 */
export function initial(dialect: Dialect): Migration {
  const mysql = dialect === 'mysql';
  const timestamp = dialect === 'postgres' ? 'timestamptz' : mysql ? 'datetime(3)' : 'text';
  /** Text that is indexed. */
  const indexed = mysql ? 'varchar(255)' : 'text';
  /** Text that is not: MySQL's `text` holds 64 KB, `mediumtext` 16 MB. */
  const long = mysql ? sql`mediumtext` : 'text';
  const id = <T extends string>(table: CreateTableBuilder<T, never>) => {
    const options = mysql
      ? table.modifyEnd(sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`)
      : table;
    return dialect === 'postgres'
      ? options.addColumn('id', 'serial', (c) => c.primaryKey())
      : options.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  };
  const references = (target: string) => (c: ColumnDefinitionBuilder) =>
    mysql ? c.notNull() : c.notNull().references(`${target}.id`).onDelete('cascade');
  /** On MySQL, the foreign keys of `columns` (column, target table) as table constraints. */
  const foreignKeys = <T extends string>(
    table: CreateTableBuilder<T, never>,
    name: string,
    columns: Array<[string, string]>,
  ): CreateTableBuilder<T, never> =>
    mysql
      ? columns.reduce(
          (t, [column, target]) =>
            t.addForeignKeyConstraint(`${name}_${column}_fk`, [column as never], target, ['id'], (f) =>
              f.onDelete('cascade'),
            ),
          table,
        )
      : table;

  return {
    async up(db: Kysely<unknown>) {
      await id(db.schema.createTable('people'))
        .addColumn('name', indexed, (c) => c.notNull())
        .addColumn('email', long)
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      const articles = id(db.schema.createTable('articles'))
        .addColumn('title', indexed, (c) => c.notNull())
        .addColumn('body', long)
        .addColumn('status', mysql ? 'varchar(16)' : 'text', (c) =>
          c
            .notNull()
            .defaultTo('draft')
            .check(sql<boolean>`status in ('draft', 'published')`),
        )
        .addColumn('author_id', 'integer', references('people'))
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull());
      await foreignKeys(articles, 'articles', [['author_id', 'people']]).execute();
      const comments = id(db.schema.createTable('comments'))
        .addColumn('body', long, (c) => c.notNull())
        .addColumn('author_id', 'integer', references('people'))
        .addColumn('article_id', 'integer', references('articles'))
        .addColumn('created_at', timestamp, (c) => c.notNull());
      await foreignKeys(comments, 'comments', [
        ['author_id', 'people'],
        ['article_id', 'articles'],
      ]).execute();
      await id(db.schema.createTable('tags'))
        .addColumn('name', indexed, (c) => c.notNull().unique())
        .execute();
      const articleTags = db.schema
        .createTable('article_tags')
        .addColumn('article_id', 'integer', references('articles'))
        .addColumn('tag_id', 'integer', references('tags'))
        .addPrimaryKeyConstraint('article_tags_pk', ['article_id', 'tag_id']);
      await foreignKeys(
        mysql
          ? articleTags.modifyEnd(sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`)
          : articleTags,
        'article_tags',
        [
          ['article_id', 'articles'],
          ['tag_id', 'tags'],
        ],
      ).execute();

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
