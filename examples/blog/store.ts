/**
 * The blog's data layers: every resource of `schema.ts` backed by its table through the Kysely
 * integration, plus the one policy: only an article's author may update or delete it.
 */
import type { Kysely } from 'kysely';
import { defineStore } from 'jsonapi-gen/kysely';
import type { Database } from './db.js';

/** createdAt and updatedAt are server-set. */
const timestamps = (operation: 'create' | 'update') => {
  const now = new Date().toISOString();
  return operation === 'create' ? { created_at: now, updated_at: now } : { updated_at: now };
};

/** The four data layers, by resource type. */
export function createStore(db: Kysely<Database>) {
  return defineStore(db, {
    people: {
      table: 'people',
      columns: { createdAt: 'created_at' },
      serverColumns: (operation) => (operation === 'create' ? { created_at: new Date().toISOString() } : {}),
      relationships: { articles: { type: 'toMany', table: 'articles', foreignKey: 'author_id' } },
    },
    articles: {
      table: 'articles',
      columns: { createdAt: 'created_at', updatedAt: 'updated_at', authorId: 'author_id' },
      serverColumns: timestamps,
      relationships: {
        author: { type: 'toOne', foreignKey: 'author_id', table: 'people' },
        comments: { type: 'toMany', table: 'comments', foreignKey: 'article_id' },
        tags: { type: 'toMany', table: 'tags', through: { table: 'article_tags', from: 'article_id', to: 'tag_id' } },
      },
      // The demo's Bearer stand-in sets `user` to a person id; only the author may change an article.
      policy: (ability, article, ctx) =>
        ability === 'update' || ability === 'delete' ? String(article.authorId) === ctx.getAttribute('user') : true,
    },
    comments: {
      table: 'comments',
      columns: { createdAt: 'created_at', authorId: 'author_id', articleId: 'article_id' },
      serverColumns: (operation) => (operation === 'create' ? { created_at: new Date().toISOString() } : {}),
      relationships: {
        author: { type: 'toOne', foreignKey: 'author_id' },
        article: { type: 'toOne', foreignKey: 'article_id' },
      },
    },
    tags: {
      table: 'tags',
      relationships: { articles: { type: 'toMany', table: 'articles', through: { table: 'article_tags', from: 'tag_id', to: 'article_id' } } },
    },
  });
}

export type BlogStore = ReturnType<typeof createStore>;
