/**
 * The demo's tables (examples/blog/migrations) as Drizzle tables for MySQL and MariaDB. The
 * tables are made by those migrations, never by drizzle-kit; test/drizzle/tables.test.ts checks
 * that this file and the migrated database agree. Property names are camelCase, the columns
 * snake_case. Text that is indexed is `varchar(255)`, the rest `mediumtext`; date-times are
 * `datetime(3)` holding UTC instants (the store converts what it writes and compares).
 */
import { relations, sql } from 'drizzle-orm';
import {
  bigint,
  datetime,
  index,
  int,
  longtext,
  mediumtext,
  mysqlTable,
  primaryKey,
  text,
  varchar,
} from 'drizzle-orm/mysql-core';

/** A `datetime(3)` column read and written as text (the store converts it to and from RFC 3339). */
const dateTime = (name: string) => datetime(name, { mode: 'string', fsp: 3 });

export const people = mysqlTable(
  'people',
  {
    id: int('id').primaryKey().autoincrement(),
    name: varchar('name', { length: 255 }).notNull(),
    email: mediumtext('email'),
    createdAt: dateTime('created_at').notNull(),
  },
  (t) => [index('people_name_index').on(t.name), index('people_created_at_index').on(t.createdAt)],
);

export const articles = mysqlTable(
  'articles',
  {
    id: int('id').primaryKey().autoincrement(),
    title: varchar('title', { length: 255 }).notNull(),
    body: mediumtext('body'),
    status: varchar('status', { length: 16, enum: ['draft', 'published'] })
      .notNull()
      .default(sql`'draft'`),
    authorId: int('author_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    createdAt: dateTime('created_at').notNull(),
    updatedAt: dateTime('updated_at').notNull(),
    /** Added by one on every write (optimistic concurrency, `If-Match`). */
    version: int('version').notNull().default(1),
  },
  (t) => [
    index('articles_author_id_index').on(t.authorId),
    index('articles_title_index').on(t.title),
    index('articles_status_index').on(t.status),
    index('articles_created_at_index').on(t.createdAt),
    index('articles_updated_at_index').on(t.updatedAt),
  ],
);

export const comments = mysqlTable(
  'comments',
  {
    id: int('id').primaryKey().autoincrement(),
    body: mediumtext('body').notNull(),
    authorId: int('author_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    articleId: int('article_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    createdAt: dateTime('created_at').notNull(),
  },
  (t) => [
    index('comments_article_id_index').on(t.articleId),
    index('comments_author_id_index').on(t.authorId),
    index('comments_created_at_index').on(t.createdAt),
  ],
);

export const tags = mysqlTable('tags', {
  id: int('id').primaryKey().autoincrement(),
  name: varchar('name', { length: 255 }).notNull().unique(),
});

export const articleTags = mysqlTable(
  'article_tags',
  {
    articleId: int('article_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    tagId: int('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ name: 'article_tags_pk', columns: [t.articleId, t.tagId] }),
    index('article_tags_tag_id_index').on(t.tagId),
  ],
);

/** The Kysely store's Idempotency-Key table (`idempotencyMigration` in @jsonapi-gen/kysely). */
export const idempotencyKeys = mysqlTable(
  'jsonapi_idempotency_keys',
  {
    key: varchar('key', { length: 768 }).primaryKey(),
    fingerprint: text('fingerprint').notNull(),
    /** Milliseconds since the epoch. */
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    status: int('status'),
    response: longtext('response'),
    holder: text('holder'),
    written: int('written').notNull().default(0),
  },
  (t) => [index('jsonapi_idempotency_keys_created_at_index').on(t.createdAt)],
);

/** The outbox (`outboxMigration` in @jsonapi-gen/kysely): one row per successful write of an article. */
export const outbox = mysqlTable(
  'jsonapi_outbox',
  {
    id: int('id').primaryKey().autoincrement(),
    action: varchar('action', { length: 16, enum: ['create', 'update', 'delete'] }).notNull(),
    resourceType: varchar('resource_type', { length: 255 }).notNull(),
    resourceId: varchar('resource_id', { length: 255 }).notNull(),
    /** The member names written, as a JSON array. */
    changed: text('changed').notNull(),
    occurredAt: dateTime('occurred_at').notNull(),
  },
  (t) => [index('jsonapi_outbox_resource_index').on(t.resourceType, t.resourceId)],
);

export const peopleRelations = relations(people, ({ many }) => ({
  articles: many(articles),
  comments: many(comments),
}));

export const articlesRelations = relations(articles, ({ one, many }) => ({
  author: one(people, { fields: [articles.authorId], references: [people.id] }),
  comments: many(comments),
  tags: many(articleTags),
}));

export const commentsRelations = relations(comments, ({ one }) => ({
  author: one(people, { fields: [comments.authorId], references: [people.id] }),
  article: one(articles, { fields: [comments.articleId], references: [articles.id] }),
}));

export const tagsRelations = relations(tags, ({ many }) => ({ articles: many(articleTags) }));

export const articleTagsRelations = relations(articleTags, ({ one }) => ({
  article: one(articles, { fields: [articleTags.articleId], references: [articles.id] }),
  tag: one(tags, { fields: [articleTags.tagId], references: [tags.id] }),
}));
