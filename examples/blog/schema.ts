/**
 * The blog API of examples/blog/README.md, declared once. `jsonapi-gen build` turns it into
 * `generated/`; the demo binds it to Kysely data layers in `store.ts`.
 */
import {
  Attribute,
  Create,
  CustomFilter,
  Delete,
  Index,
  Meta,
  Show,
  SortBy,
  SortWithCount,
  ToMany,
  ToOne,
  Update,
  Where,
  WhereCount,
  atomic,
  can,
  defineResource as defineUnchecked,
  typedResources,
} from 'jsonapi-gen';
import type { Context, Draft, Problem } from 'jsonapi-gen';
// Types only (erased when the generator loads this file): what the hooks, policies, validation
// and meta getters read, each checked against the resource it is declared on.
import type {
  ArticlesCreateValues,
  ArticlesMetaGetter,
  ArticlesSavingHook,
  ArticlesValidator,
  CommentsModel,
  CommentsWritePolicy,
  Resources,
} from './generated/index.js';

declare module 'jsonapi-gen' {
  /** The attributes the demo attaches to requests (`server.ts`): `user` from `Authorization: Bearer <personId>`. */
  interface ContextAttributes {
    user: string;
  }
}

/**
 * The API's extensions: Atomic Operations at `POST /operations`. The generated OpenAPI document
 * describes them and the generated `createApi` serves them unless told otherwise.
 */
export const extensions = [atomic()];

/** `defineResource`, checked against the generated types of the resource each declaration names. */
const defineResource = typedResources<Resources>();

/** The demo's stand-in for authentication sets `user` from `Authorization: Bearer <id>`. */
const signedIn = (ctx: Context) => ctx.getAttribute('user') !== undefined;

/**
 * An article created without an author is the signed-in user's; an anonymous one stays 422 at
 * the author it lacks.
 */
const authorFromUser: ArticlesSavingHook = (values, ctx): Draft<ArticlesCreateValues> | Problem[] => {
  if (values.relationships.author !== undefined) return values;
  const user = ctx.getAttribute('user');
  if (user === undefined)
    return [{ detail: 'author is required', pointer: '/data/relationships/author', code: 'required' }];
  return { ...values, relationships: { ...values.relationships, author: { type: 'people', id: user } } };
};

/**
 * No published article without a body: what a write sends of `status` and `body`, the stored
 * article for the rest. Answered at the member sent (`body` when both were).
 */
const publishedNeedsBody: ArticlesValidator = (values, stored): Problem[] => {
  const sent = values.attributes;
  if (!('status' in sent) && !('body' in sent)) return [];
  const status = 'status' in sent ? sent.status : stored?.status;
  const body = 'body' in sent ? sent.body : stored?.body;
  if (status !== 'published' || (typeof body === 'string' && body !== '')) return [];
  const member = 'body' in sent ? 'body' : 'status';
  return [{ detail: 'A published article needs a body', pointer: `/data/attributes/${member}` }];
};

/** How many words an article's body holds (0 without a body): `meta.wordCount` of each article. */
const wordCount: ArticlesMetaGetter<number> = (article) => article.body?.split(/\s+/).filter(Boolean).length ?? 0;

/**
 * On update, a comment's body is its author's to change; anyone may write it on create. It reads
 * the author's key, which the data layer's model holds beyond the generated one.
 */
const byCommentAuthor: CommentsWritePolicy<CommentsModel & { authorId: number | string }> = (comment, ctx) =>
  comment === undefined || String(comment.authorId) === ctx.getAttribute('user');

export const people = defineResource({
  type: 'people',
  fields: [
    Attribute.make('name').type('string').writable().required(),
    Attribute.make('email').type('string').nullable().writable(),
    Attribute.make('createdAt').type('date-time'),
    ToMany.make('articles').type('articles').includable().countable(),
  ],
  endpoints: [
    Show.make(),
    Index.make().paginate(20, 50).defaultSort('name'),
    Create.make(),
    Update.make(),
    Delete.make(),
  ],
  filters: [Where.make('name'), WhereCount.make('articleCount').relationship('articles')],
  sorts: [SortBy.make('name'), SortBy.make('createdAt'), SortWithCount.make('articleCount').relationship('articles')],
});

export const articles = defineResource({
  type: 'articles',
  fields: [
    Attribute.make('title').type('string').writable().required(),
    Attribute.make('body').type('string').nullable().writable(),
    Attribute.make('status').type('enum', ['draft', 'published']).writable().default('draft'),
    Attribute.make('createdAt').type('date-time'),
    Attribute.make('updatedAt').type('date-time'),
    ToOne.make('author').type('people').includable().writable().required(),
    ToMany.make('comments').type('comments').includable().countable(),
    ToMany.make('tags').type('tags').includable().writable().countable(),
  ],
  endpoints: [
    Show.make(),
    Index.make().paginate(20, 50).cursor().defaultSort('-createdAt').countable(),
    Create.make().saving(authorFromUser),
    Update.make().visible(can('update')),
    Delete.make().visible(can('delete')),
  ],
  validate: publishedNeedsBody,
  meta: [Meta.make('wordCount').type('integer').get(wordCount)],
  filters: [
    // Operators as examples/blog/README.md lists them: filter[title][contains]=ts, filter[createdAt][gte]=...
    Where.make('title').operators('eq', 'contains', 'startsWith', 'endsWith'),
    Where.make('author'),
    Where.make('status').operators('eq', 'ne', 'in', 'nin').visible(signedIn),
    Where.make('createdAt').operators('eq', 'ne', 'lt', 'lte', 'gt', 'gte'),
    Where.make('updatedAt').operators('eq', 'ne', 'lt', 'lte', 'gt', 'gte'),
    Where.make('author.name').operators('eq', 'contains'),
    Where.make('tags.name').operators('eq', 'in'),
    // Counts of to-many relationships (what the request may see): filter[commentCount][gte]=2, sort=-commentCount.
    WhereCount.make('commentCount').relationship('comments'),
    WhereCount.make('tagCount').relationship('tags'),
    // The data layer implements it (store.ts); the description goes into the OpenAPI document.
    CustomFilter.make('search').description(
      'Articles whose title contains the value, case-insensitively; `%` and `_` are plain characters, not wildcards.',
    ),
  ],
  sorts: [
    SortBy.make('title'),
    SortBy.make('createdAt'),
    SortBy.make('updatedAt'),
    SortBy.make('author.name'),
    SortWithCount.make('commentCount').relationship('comments'),
    SortWithCount.make('tagCount').relationship('tags'),
  ],
});

export const comments = defineResource({
  type: 'comments',
  fields: [
    Attribute.make('body').type('string').writable(byCommentAuthor).required(),
    Attribute.make('createdAt').type('date-time'),
    ToOne.make('author').type('people').includable().writable().required(),
    ToOne.make('article').type('articles').includable().writable().required(),
  ],
  endpoints: [
    Show.make(),
    Index.make().paginate(10, 100).cursor().defaultSort('createdAt'),
    Create.make(),
    Update.make(),
    Delete.make(),
  ],
  filters: [Where.make('article'), Where.make('author')],
  sorts: [SortBy.make('createdAt')],
});

/**
 * The outbox: one entry per successful create, update and delete of an article, written in the
 * write's transaction by the store's outbox (server.ts), served read-only in the order written.
 */
// Unchecked: its getter's model type is read from this declaration, which the checked
// `defineResource` would check against that same type (a circle); it has no hooks to check.
export const events = defineUnchecked({
  type: 'events',
  fields: [
    Attribute.make('action').type('enum', ['create', 'update', 'delete']),
    Attribute.make('resourceType').type('string'),
    Attribute.make('resourceId').type('string'),
    Attribute.make('occurredAt').type('date-time'),
    // Stored as JSON array text, in every store.
    Attribute.make('changed')
      .type('array')
      .get((event: { changed: string }) => JSON.parse(event.changed) as unknown),
  ],
  endpoints: [Show.make(), Index.make().paginate(20, 100).cursor()],
  filters: [Where.make('resourceId')],
});

export const tags = defineResource({
  type: 'tags',
  fields: [
    Attribute.make('name').type('string').writable().required(),
    ToMany.make('articles').type('articles').includable().countable(),
  ],
  endpoints: [
    Show.make(),
    Index.make().paginate(20, 50).defaultSort('name'),
    Create.make(),
    Update.make(),
    Delete.make(),
  ],
  filters: [Where.make('name')],
  sorts: [SortBy.make('name')],
});
