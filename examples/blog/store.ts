/**
 * The blog's data layers: every resource of `schema.ts` backed by its table through the Kysely
 * integration, plus the one policy: only an article's author may update or delete it.
 * `createStore(db, { scoped: true })` adds row-level read authorization (not served by the
 * demo, whose reads stay open as examples/blog/README.md says): drafts are visible only to their
 * author, and comments only when their article is.
 */
import { type ExpressionBuilder, type Kysely } from 'kysely';
import type { Context, FilterValue } from 'jsonapi-gen';
import { defineStore, likePattern, type SelectQuery } from '@jsonapi-gen/kysely';
import type { Database } from './db.js';
import type { Resources } from './generated/index.js';

/** Options of `createStore`. */
export interface StoreOptions {
  /**
   * Drafts only for their author, comments only on visible articles, in every read (index,
   * show, counts, includes, related and relationship endpoints, linkage checks, write targets).
   * Default false: every row is visible (the demo).
   */
  scoped?: boolean;
}

/** The signed-in person's id as a key, or undefined (anonymous, or not an id). */
function userKey(ctx: Context): number | undefined {
  const user = ctx.getAttribute('user');
  return typeof user === 'string' && /^[1-9][0-9]{0,9}$/.test(user) && Number(user) <= 2_147_483_647
    ? Number(user)
    : undefined;
}

/** `articles` rows the request may see: published ones, and the user's own. */
function visibleArticle(eb: ExpressionBuilder<Database, 'articles'>, ctx: Context) {
  const user = userKey(ctx);
  const published = eb('articles.status', '=', 'published');
  return user === undefined ? published : eb.or([published, eb('articles.author_id', '=', user)]);
}

const articlesScope = (query: SelectQuery, ctx: Context) =>
  query.where((eb: ExpressionBuilder<Database, 'articles'>) => visibleArticle(eb, ctx));
const commentsScope = (query: SelectQuery, ctx: Context) =>
  query.where('comments.article_id', 'in', (eb: ExpressionBuilder<Database, 'comments'>) =>
    eb
      .selectFrom('articles')
      .select('articles.id')
      .where((inner) => visibleArticle(inner, ctx)),
  );

/**
 * `filter[search]`: articles whose title contains any of the terms, case-insensitively and
 * literally (`%` and `_` too). One condition (`{ where }`), so it may also stand inside
 * `filter[or]` and `filter[not]`.
 */
const search = {
  where: (eb: ExpressionBuilder<Database, 'articles'>, value: FilterValue) =>
    eb.or(
      [value]
        .flat()
        .map((term) => eb(eb.fn('lower', ['articles.title']), 'like', likePattern(term.toLowerCase(), 'contains'))),
    ),
};

/** createdAt and updatedAt are server-set. */
const timestamps = (operation: 'create' | 'update') => {
  const now = new Date().toISOString();
  return operation === 'create' ? { created_at: now, updated_at: now } : { updated_at: now };
};

/** The four data layers, by resource type. */
export function createStore(db: Kysely<Database>, options: StoreOptions = {}) {
  const scoped = options.scoped === true;
  return defineStore<Database, Resources>(db, {
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
      // Every write adds one; reads carry it in their ETag and writes honour If-Match.
      version: 'version',
      filters: { search },
      relationships: {
        author: { type: 'toOne', foreignKey: 'author_id', table: 'people' },
        comments: { type: 'toMany', table: 'comments', foreignKey: 'article_id' },
        tags: { type: 'toMany', table: 'tags', through: { table: 'article_tags', from: 'article_id', to: 'tag_id' } },
      },
      // The demo's Bearer stand-in sets `user` to a person id; only the author may change an article.
      policy: (ability, article, ctx) =>
        ability === 'update' || ability === 'delete' ? String(article.authorId) === ctx.getAttribute('user') : true,
      ...(scoped && { scope: articlesScope }),
    },
    comments: {
      table: 'comments',
      columns: { createdAt: 'created_at', authorId: 'author_id', articleId: 'article_id' },
      serverColumns: (operation) => (operation === 'create' ? { created_at: new Date().toISOString() } : {}),
      relationships: {
        author: { type: 'toOne', foreignKey: 'author_id' },
        article: { type: 'toOne', foreignKey: 'article_id' },
      },
      ...(scoped && { scope: commentsScope }),
    },
    events: {
      table: 'jsonapi_outbox',
      columns: { resourceType: 'resource_type', resourceId: 'resource_id', occurredAt: 'occurred_at' },
    },
    tags: {
      table: 'tags',
      relationships: {
        articles: {
          type: 'toMany',
          table: 'articles',
          through: { table: 'article_tags', from: 'tag_id', to: 'article_id' },
        },
      },
    },
  });
}

export type BlogStore = ReturnType<typeof createStore>;
