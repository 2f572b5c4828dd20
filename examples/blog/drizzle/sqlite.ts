/**
 * The demo's tables (examples/blog/migrations) as Drizzle tables for SQLite. The tables are
 * made by those migrations, never by drizzle-kit; test/drizzle/tables.test.ts checks that this
 * file, postgresql.ts and the migrated databases agree. Property names are camelCase, the
 * columns snake_case. Date-times are ISO 8601 text on SQLite, as the demo writes them.
 */
import { relations, sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const people = sqliteTable(
  'people',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    email: text('email'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('people_name_index').on(t.name), index('people_created_at_index').on(t.createdAt)],
);

export const articles = sqliteTable(
  'articles',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    title: text('title').notNull(),
    body: text('body'),
    status: text('status', { enum: ['draft', 'published'] })
      .notNull()
      .default(sql`'draft'`),
    authorId: integer('author_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /** Added by one on every write (optimistic concurrency, `If-Match`). */
    version: integer('version').notNull().default(1),
  },
  (t) => [
    index('articles_author_id_index').on(t.authorId),
    index('articles_title_index').on(t.title),
    index('articles_status_index').on(t.status),
    index('articles_created_at_index').on(t.createdAt),
    index('articles_updated_at_index').on(t.updatedAt),
  ],
);

export const comments = sqliteTable(
  'comments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    body: text('body').notNull(),
    authorId: integer('author_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    articleId: integer('article_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('comments_article_id_index').on(t.articleId),
    index('comments_author_id_index').on(t.authorId),
    index('comments_created_at_index').on(t.createdAt),
  ],
);

export const tags = sqliteTable('tags', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
});

export const articleTags = sqliteTable(
  'article_tags',
  {
    articleId: integer('article_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ name: 'article_tags_pk', columns: [t.articleId, t.tagId] }),
    index('article_tags_tag_id_index').on(t.tagId),
  ],
);

/** The Kysely store's Idempotency-Key table (`idempotencyMigration` in @jsonapi-gen/kysely). */
export const idempotencyKeys = sqliteTable(
  'jsonapi_idempotency_keys',
  {
    key: text('key').primaryKey(),
    fingerprint: text('fingerprint').notNull(),
    /** Milliseconds since the epoch. */
    createdAt: integer('created_at').notNull(),
    status: integer('status'),
    response: text('response'),
    holder: text('holder'),
    written: integer('written').notNull().default(0),
  },
  (t) => [index('jsonapi_idempotency_keys_created_at_index').on(t.createdAt)],
);

/** The outbox (`outboxMigration` in @jsonapi-gen/kysely): one row per successful write of an article. */
export const outbox = sqliteTable(
  'jsonapi_outbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    action: text('action', { enum: ['create', 'update', 'delete'] }).notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id').notNull(),
    /** The member names written, as a JSON array. */
    changed: text('changed').notNull(),
    occurredAt: text('occurred_at').notNull(),
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
