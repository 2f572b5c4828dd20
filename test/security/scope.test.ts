/**
 * Row-level read authorization (the Kysely mapping's `scope`) attacked on every path, on SQLite
 * and PostgreSQL. Two users on the demo's database and store with `createStore(db, { scoped:
 * true })`: drafts are visible only to their author, comments only when their article is; a
 * test-only variant of the schema shows a person's `email` only to that person (field
 * visibility) and makes `tags.articles` writable (to attack to-many replacement).
 *
 * Alice (person 1) tries every way to reach Bob's (person 2) drafts, their comments and Bob's
 * email: index, show, meta.total, filters, sorts, includes (to-one, to-many, nested), related
 * and relationship endpoints, sparse fieldsets, writes aimed at hidden rows, linkage to hidden
 * rows, relationship add/remove/replace, and Atomic Operations doing the same. Each response is
 * a valid JSON:API document holding no hidden identifier and no secret text; each refused
 * write leaves every table as it was. Bob, through the same paths, does see his rows (so the
 * checks are not vacuous).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Attribute,
  Create,
  Delete,
  Index,
  JsonApi,
  Show,
  SortBy,
  ToMany,
  Update,
  Where,
  atomic,
  defineResource,
} from 'jsonapi-gen';
import { defineTableStore, kyselyTransaction } from '@jsonapi-gen/kysely';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import * as schema from '../../examples/blog/schema.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { expectValidAtomicDocument } from '../support/atomic-schema.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { expectValidDocument } from '../support/validate.js';
import { dump, identifiers } from './support.js';

const ALICE = '1';
const BOB = '2';
/** No user: `undefined` would pick the helpers' default (Alice). */
const ANON = null;
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

/** people as in the demo, but `email` only for its owner: not usable in filters, sorts or fieldsets. */
const people = defineResource({
  type: 'people',
  fields: [
    Attribute.make('name').type('string').writable().required(),
    Attribute.make('email')
      .type('string')
      .nullable()
      .writable()
      .visible(
        (person: { id: number } | undefined, ctx) =>
          person !== undefined && String(person.id) === ctx.getAttribute('user'),
      ),
    Attribute.make('createdAt').type('date-time'),
    ToMany.make('articles').type('articles').includable(),
  ],
  endpoints: [
    Show.make(),
    Index.make().paginate(20, 50).defaultSort('name'),
    Create.make(),
    Update.make(),
    Delete.make(),
  ],
  filters: [Where.make('name'), Where.make('email')],
  sorts: [SortBy.make('name'), SortBy.make('email')],
});

/** tags as in the demo, with `articles` writable: replacing it must keep the members Alice cannot see. */
const tags = defineResource({
  type: 'tags',
  fields: [
    Attribute.make('name').type('string').writable().required(),
    ToMany.make('articles').type('articles').includable().writable(),
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

type Result = { status: number; body: any; text: string };

describe.each(['sqlite', 'postgres'] as const)('scope on %s', (dialect) => {
  let pg: TestDatabase | undefined;
  let database: OpenDatabase;
  let api: JsonApi;
  /** Bob's drafts and the comments on them. */
  let hiddenArticles: string[];
  let hiddenComments: string[];
  /** Every draft (id, author) and every comment on one (id, article): what each user may not see. */
  let drafts: Array<{ id: string; author: string }>;
  let draftComments: Array<{ id: string; article: string }>;
  let bobDraft: string;
  let bobDraftTag: string;
  let hiddenComment: string;
  /** A comment Alice may see, and one of Alice's published articles, and Alice's draft. */
  let aliceComment: string;
  let aliceArticle: string;
  let aliceDraft: string;
  let bobPublished: string;
  const errors: unknown[] = [];

  beforeAll(async () => {
    if (dialect === 'postgres') pg = await createPostgresDatabase();
    database = openDatabase({ databaseUrl: pg?.url });
    const { db } = database;
    await migrate(db, database.dialect);
    await seed(db, 30);
    // Mark what Alice must never see, so that any leak shows up as text.
    await db
      .updateTable('articles')
      .set({ title: 'SECRET draft', body: 'SECRET body' })
      .where('status', '=', 'draft')
      .where('author_id', '=', 2)
      .execute();
    await db.updateTable('people').set({ email: 'SECRET-bob@example.com' }).where('id', '=', 2).execute();
    const bobDrafts = await db
      .selectFrom('articles')
      .select('id')
      .where('status', '=', 'draft')
      .where('author_id', '=', 2)
      .orderBy('id')
      .execute();
    hiddenArticles = bobDrafts.map((r) => String(r.id));
    await db
      .updateTable('comments')
      .set({ body: 'SECRET comment' })
      .where(
        'article_id',
        'in',
        bobDrafts.map((r) => r.id),
      )
      .execute();
    const comments = await db
      .selectFrom('comments')
      .select('id')
      .where(
        'article_id',
        'in',
        bobDrafts.map((r) => r.id),
      )
      .orderBy('id')
      .execute();
    hiddenComments = comments.map((r) => String(r.id));
    const tagged = await db
      .selectFrom('article_tags')
      .selectAll()
      .where(
        'article_id',
        'in',
        bobDrafts.map((r) => r.id),
      )
      .orderBy('article_id')
      .orderBy('tag_id')
      .executeTakeFirstOrThrow();
    bobDraft = String(tagged.article_id);
    bobDraftTag = String(tagged.tag_id);
    hiddenComment = hiddenComments[0]!;
    const visibleComment = await db
      .selectFrom('comments')
      .innerJoin('articles', 'articles.id', 'comments.article_id')
      .select('comments.id')
      .where('articles.status', '=', 'published')
      .orderBy('comments.id')
      .executeTakeFirstOrThrow();
    aliceComment = String(visibleComment.id);
    const own = await db
      .selectFrom('articles')
      .select(['id', 'status'])
      .where('author_id', '=', 1)
      .orderBy('id')
      .execute();
    aliceArticle = String(own.find((r) => r.status === 'published')!.id);
    aliceDraft = String(own.find((r) => r.status === 'draft')!.id);
    bobPublished = String(
      (
        await db
          .selectFrom('articles')
          .select('id')
          .where('author_id', '=', 2)
          .where('status', '=', 'published')
          .orderBy('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    drafts = (await db.selectFrom('articles').select(['id', 'author_id']).where('status', '=', 'draft').execute()).map(
      (r) => ({ id: String(r.id), author: String(r.author_id) }),
    );
    draftComments = (
      await db
        .selectFrom('comments')
        .innerJoin('articles', 'articles.id', 'comments.article_id')
        .select(['comments.id', 'comments.article_id'])
        .where('articles.status', '=', 'draft')
        .execute()
    ).map((r) => ({ id: String(r.id), article: String(r.article_id) }));
    expect(hiddenArticles.length).toBeGreaterThan(0);
    expect(hiddenComments.length).toBeGreaterThan(0);

    const store = createStore(db, { scoped: true });
    api = new JsonApi({ transaction: kyselyTransaction(db), extensions: [atomic()], onError: (e) => errors.push(e) })
      .resource({ ...people, ...store.people })
      .resource({ ...schema.articles, ...store.articles })
      .resource({ ...schema.comments, ...store.comments })
      .resource({ ...tags, ...store.tags });
  });
  afterAll(async () => {
    await database?.close();
    await pg?.drop();
  });

  async function call(method: string, path: string, user: string | null, payload?: unknown): Promise<Result> {
    const init: RequestInit = { method };
    if (payload !== undefined) {
      const type = path === '/operations' ? ATOMIC : 'application/vnd.api+json';
      init.body = JSON.stringify(payload);
      init.headers = { 'content-type': type, accept: type };
    }
    const response = await api.fetch(new Request(`http://localhost${path}`, init), {
      attributes: user === null ? {} : { user },
    });
    const text = await response.text();
    const body = text === '' ? undefined : JSON.parse(text);
    if (body !== undefined)
      (path === '/operations' && response.ok ? expectValidAtomicDocument : expectValidDocument)(body);
    expect(response.status, text).toBeLessThan(500);
    return { status: response.status, body, text };
  }

  /** What Alice (or an anonymous client) may never get: hidden identifiers, secret text. */
  function expectNothingHidden(result: Result, user: string | null = ALICE): void {
    // Links echo the request's own query (a filter value the client typed); the rest may not.
    const { links: _links, ...rest } = result.body ?? {};
    expect(JSON.stringify(rest)).not.toContain('SECRET');
    const seen = new Set(identifiers(result.body));
    const articles = new Set(drafts.filter((d) => d.author !== user).map((d) => d.id));
    for (const id of articles) expect(seen.has(`articles/${id}`), `articles/${id} reached ${user}`).toBe(false);
    for (const c of draftComments)
      if (articles.has(c.article)) expect(seen.has(`comments/${c.id}`), `comments/${c.id} reached ${user}`).toBe(false);
  }

  const get = async (path: string, user: string | null = ALICE) => {
    const result = await call('GET', path, user);
    if (user !== BOB) expectNothingHidden(result, user);
    return result;
  };

  /** A write that must be refused with `status` and leave every table as it was. */
  async function refused(
    status: number,
    method: string,
    path: string,
    payload?: unknown,
    user = ALICE,
  ): Promise<Result> {
    const before = await dump(database.db);
    const result = await call(method, path, user, payload);
    expect(result.status, result.text).toBe(status);
    expectNothingHidden(result, user);
    expect(await dump(database.db)).toBe(before);
    return result;
  }

  /** Articles the user may see, by id, from the database itself. */
  async function visibleArticleIds(user: string | null, authorId?: number): Promise<string[]> {
    let query = database.db.selectFrom('articles').select('id');
    query = query.where((eb) =>
      user === null
        ? eb('status', '=', 'published')
        : eb.or([eb('status', '=', 'published'), eb('author_id', '=', Number(user))]),
    );
    if (authorId !== undefined) query = query.where('author_id', '=', authorId);
    return (await query.orderBy('id').execute()).map((r) => String(r.id));
  }

  /** Every page of a collection: the ids and the meta.total of the first page. */
  async function all(path: string, user: string | null = ALICE): Promise<{ ids: string[]; total: unknown }> {
    const ids: string[] = [];
    let next: string | null = `${path}${path.includes('?') ? '&' : '?'}page[limit]=50`;
    let total: unknown;
    while (next) {
      const result = await get(next, user);
      expect(result.status, result.text).toBe(200);
      total ??= result.body.meta?.total;
      ids.push(...result.body.data.map((r: any) => r.id));
      next = result.body.links?.next
        ? new URL(result.body.links.next).pathname + new URL(result.body.links.next).search
        : null;
    }
    return { ids, total };
  }
  const sorted = (ids: string[]) => [...ids].sort((a, b) => Number(a) - Number(b));

  describe('reads', () => {
    it('index and meta.total list and count only visible rows, for Alice, anonymous and Bob', async () => {
      for (const user of [ALICE, ANON, BOB]) {
        const { ids, total } = await all('/articles', user);
        const expected = await visibleArticleIds(user);
        expect(sorted(ids)).toEqual(expected);
        expect(total).toBe(expected.length);
      }
      const bob = await all('/articles', BOB);
      for (const id of hiddenArticles) expect(bob.ids).toContain(id); // the scope lets the author in
    });

    it('filters and sorts cannot reach hidden rows: by author, status, title, search', async () => {
      const byBob = await all('/articles?filter[author]=2');
      expect(sorted(byBob.ids)).toEqual(await visibleArticleIds(ALICE, 2));
      expect(byBob.total).toBe(byBob.ids.length);
      const drafts = await all('/articles?filter[status]=draft');
      expect(sorted(drafts.ids)).toEqual(
        (await visibleArticleIds(ALICE)).filter((id) => !hiddenArticles.includes(id) && drafts.ids.includes(id)),
      );
      expect(drafts.ids).toContain(aliceDraft);
      for (const path of [
        '/articles?filter[title]=SECRET%20draft',
        '/articles?filter[search]=secret',
        '/articles?filter[author][]=2&filter[status]=draft',
      ]) {
        const { ids, total } = await all(path);
        expect(ids, path).toEqual([]);
        expect(total, path).toBe(0);
      }
      for (const sort of ['title', '-title', 'createdAt', '-updatedAt', 'title,-createdAt']) {
        const { ids } = await all(`/articles?sort=${sort}`);
        expect(sorted(ids)).toEqual(await visibleArticleIds(ALICE));
      }
      // The positive control: Bob finds his drafts with the same filter.
      expect((await all('/articles?filter[title]=SECRET%20draft', BOB)).ids.length).toBe(hiddenArticles.length);
    });

    it('show, and every related and relationship endpoint of a hidden row, are 404 (not 403)', async () => {
      for (const path of [
        `/articles/${bobDraft}`,
        `/articles/${bobDraft}?include=author,comments,tags`,
        `/articles/${bobDraft}?fields[articles]=title`,
        `/articles/${bobDraft}/author`,
        `/articles/${bobDraft}/comments`,
        `/articles/${bobDraft}/tags`,
        `/articles/${bobDraft}/relationships/author`,
        `/articles/${bobDraft}/relationships/comments`,
        `/articles/${bobDraft}/relationships/tags`,
        `/comments/${hiddenComment}`,
        `/comments/${hiddenComment}/article`,
        `/comments/${hiddenComment}/author`,
        `/comments/${hiddenComment}/relationships/article`,
      ]) {
        for (const user of [ALICE, ANON]) {
          const result = await get(path, user);
          expect(result.status, `${path} as ${user}`).toBe(404);
        }
      }
      expect((await get(`/articles/${bobDraft}`, BOB)).status).toBe(200);
      expect((await get(`/comments/${hiddenComment}/article`, BOB)).body.data.id).toBe(bobDraft);
    });

    it('includes (to-one, to-many, nested) and related endpoints of visible rows leave hidden rows out', async () => {
      const paths = [
        '/people/2?include=articles',
        '/people/2?include=articles.comments,articles.tags',
        '/people?include=articles.comments.author&page[limit]=50',
        '/people/2/articles?include=comments,tags&page[limit]=50',
        '/people/2/relationships/articles?page[limit]=50',
        `/tags/${bobDraftTag}?include=articles.author,articles.comments`,
        `/tags/${bobDraftTag}/articles?page[limit]=50`,
        `/tags/${bobDraftTag}/relationships/articles?page[limit]=50`,
        '/tags?include=articles.comments.article&page[limit]=50',
        '/comments?include=article.author.articles,article.tags&page[limit]=100',
        `/comments/${aliceComment}?include=article.comments,author.articles`,
        `/comments/${aliceComment}/article?include=comments`,
        '/articles?include=author.articles.comments,comments.article,tags.articles&page[limit]=50',
        `/articles/${aliceArticle}/comments?include=article`,
      ];
      for (const path of paths) {
        const result = await get(path);
        expect(result.status, `${path}: ${result.text}`).toBe(200);
      }
      // Linkage and counts on the relationship endpoints match the visible rows exactly.
      const bobs = await all('/people/2/articles');
      expect(sorted(bobs.ids)).toEqual(await visibleArticleIds(ALICE, 2));
      expect(bobs.total).toBe(bobs.ids.length);
      const linkage = await all('/people/2/relationships/articles');
      expect(sorted(linkage.ids)).toEqual(await visibleArticleIds(ALICE, 2));
      const included = await get('/people/2?include=articles');
      expect(sorted(included.body.data.relationships.articles.data.map((r: any) => r.id))).toEqual(
        await visibleArticleIds(ALICE, 2),
      );
      // Bob, through the same include, gets his drafts: the checks above are not vacuous.
      const own = await get('/people/2?include=articles', BOB);
      expect(own.body.data.relationships.articles.data.map((r: any) => r.id)).toContain(bobDraft);
      const tagged = await get(`/tags/${bobDraftTag}/relationships/articles?page[limit]=50`, BOB);
      expect(tagged.body.data.map((r: any) => r.id)).toContain(bobDraft);
    });

    it('comments: index, counts by filter, and filters naming a hidden article find nothing', async () => {
      const { ids } = await all('/comments');
      for (const id of hiddenComments) expect(ids).not.toContain(id);
      expect((await all(`/comments?filter[article]=${bobDraft}`)).ids).toEqual([]);
      expect(
        (await all(`/comments?filter[article][]=${bobDraft}&filter[article][]=${aliceArticle}`)).ids.length,
      ).toBeGreaterThan(0);
      expect((await all(`/comments?filter[article]=${bobDraft}`, BOB)).ids.length).toBeGreaterThan(0);
    });

    it("field visibility: Bob's email is absent everywhere, and unusable in filters, sorts and fieldsets", async () => {
      for (const path of [
        '/people/2',
        '/people?page[limit]=50',
        '/articles?include=author&page[limit]=50',
        `/articles/${bobPublished}/author`,
        `/comments/${aliceComment}?include=author`,
      ]) {
        const result = await get(path);
        expect(result.status).toBe(200);
      }
      for (const path of [
        '/people?filter[email]=SECRET-bob@example.com',
        '/people?sort=email',
        '/people?fields[people]=name,email',
        '/people/2?fields[people]=email',
      ]) {
        expect((await get(path)).status, path).toBe(400);
      }
      const self = await get('/people/1');
      expect(self.body.data.attributes).toHaveProperty('email');
      expect((await get('/people/2', BOB)).body.data.attributes.email).toBe('SECRET-bob@example.com');
      await refused(422, 'PATCH', '/people/2', {
        data: { type: 'people', id: '2', attributes: { email: 'mine@example.com' } },
      });
    });
  });

  describe('writes', () => {
    it('update and delete of a hidden row are 404, and change nothing', async () => {
      const patch = { data: { type: 'articles', id: bobDraft, attributes: { title: 'mine now' } } };
      expect((await refused(404, 'PATCH', `/articles/${bobDraft}`, patch)).body.errors[0].status).toBe('404');
      await refused(404, 'DELETE', `/articles/${bobDraft}`);
      await refused(404, 'PATCH', `/comments/${hiddenComment}`, {
        data: { type: 'comments', id: hiddenComment, attributes: { body: 'x' } },
      });
      await refused(404, 'DELETE', `/comments/${hiddenComment}`);
      await refused(404, 'DELETE', `/articles/${bobDraft}`, undefined, '3');
      // Bob's published article is visible: the policy answers 403 (the endpoint, not the row, is refused).
      await refused(403, 'DELETE', `/articles/${bobPublished}`);
    });

    it('linkage to a hidden row is 404 on create, update and relationship writes', async () => {
      const comment = (article: string) => ({
        data: {
          type: 'comments',
          attributes: { body: 'hello' },
          relationships: {
            author: { data: { type: 'people', id: ALICE } },
            article: { data: { type: 'articles', id: article } },
          },
        },
      });
      const created = await refused(404, 'POST', '/comments', comment(bobDraft));
      expect(created.body.errors[0]).toMatchObject({
        code: 'related_not_found',
        source: { pointer: '/data/relationships/article/data' },
      });
      await refused(404, 'PATCH', `/comments/${aliceComment}`, {
        data: {
          type: 'comments',
          id: aliceComment,
          relationships: { article: { data: { type: 'articles', id: bobDraft } } },
        },
      });
      await refused(404, 'PATCH', `/comments/${aliceComment}/relationships/article`, {
        data: { type: 'articles', id: bobDraft },
      });
      await refused(404, 'PATCH', `/tags/${bobDraftTag}`, {
        data: {
          type: 'tags',
          id: bobDraftTag,
          relationships: { articles: { data: [{ type: 'articles', id: bobDraft }] } },
        },
      });
      for (const method of ['POST', 'DELETE', 'PATCH']) {
        await refused(404, method, `/tags/${bobDraftTag}/relationships/articles`, {
          data: [{ type: 'articles', id: bobDraft }],
        });
        await refused(404, method, `/tags/${bobDraftTag}/relationships/articles`, {
          data: [
            { type: 'articles', id: aliceArticle },
            { type: 'articles', id: hiddenArticles.at(-1)! },
          ],
        });
      }
      // The target of a relationship write is found through the scope too.
      await refused(404, 'PATCH', `/articles/${bobDraft}/relationships/tags`, { data: [] });
      await refused(404, 'POST', `/articles/${bobDraft}/relationships/tags`, { data: [{ type: 'tags', id: '1' }] });
      // Bob links his own draft: allowed (the scope, not a blanket refusal, decides).
      const before = await dump(database.db);
      const ok = await call('POST', '/comments', BOB, comment(bobDraft));
      expect(ok.status, ok.text).toBe(201);
      await database.db.deleteFrom('comments').where('id', '=', Number(ok.body.data.id)).execute();
      // ...restoring the table but not the sequence: compare the rows only.
      expect(await dump(database.db)).toBe(before);
    });

    it('replacing a to-many relationship keeps the members the request cannot see', async () => {
      const members = async () =>
        (
          await database.db
            .selectFrom('article_tags')
            .select('article_id')
            .where('tag_id', '=', Number(bobDraftTag))
            .orderBy('article_id')
            .execute()
        ).map((r) => String(r.article_id));
      const before = await members();
      expect(before).toContain(bobDraft);
      const replaced = await call('PATCH', `/tags/${bobDraftTag}/relationships/articles`, ALICE, {
        data: [{ type: 'articles', id: aliceArticle }],
      });
      expect(replaced.status, replaced.text).toBe(204);
      const after = await members();
      expect(after).toContain(bobDraft);
      expect(after).toContain(aliceArticle);
      const visible = await visibleArticleIds(ALICE);
      expect(after.filter((id) => visible.includes(id))).toEqual([aliceArticle]);
      // Every member Alice cannot see is still there.
      expect(after.filter((id) => !visible.includes(id))).toEqual(before.filter((id) => !visible.includes(id)));
      // Alice sees exactly what she wrote.
      expect((await all(`/tags/${bobDraftTag}/relationships/articles`)).ids).toEqual([aliceArticle]);
      // Put the visible members back (as they were), through the API.
      const restore = await call('PATCH', `/tags/${bobDraftTag}`, ALICE, {
        data: {
          type: 'tags',
          id: bobDraftTag,
          relationships: {
            articles: { data: before.filter((id) => visible.includes(id)).map((id) => ({ type: 'articles', id })) },
          },
        },
      });
      expect(restore.status, restore.text).toBe(200);
      expect(await members()).toEqual(before);
    });

    it('Atomic Operations: every one of those writes is refused with a pointer into the operation, and the batch is rolled back', async () => {
      const valid = {
        op: 'update',
        ref: { type: 'articles', id: aliceArticle },
        data: { type: 'articles', id: aliceArticle, attributes: { title: 'changed by Alice' } },
      };
      const attacks: Array<[string, unknown]> = [
        [
          'update',
          {
            op: 'update',
            ref: { type: 'articles', id: bobDraft },
            data: { type: 'articles', id: bobDraft, attributes: { title: 'x' } },
          },
        ],
        ['update by data', { op: 'update', data: { type: 'articles', id: bobDraft, attributes: { title: 'x' } } }],
        ['remove', { op: 'remove', ref: { type: 'articles', id: bobDraft } }],
        ['remove by href', { op: 'remove', href: `/comments/${hiddenComment}` }],
        [
          'add linking',
          {
            op: 'add',
            data: {
              type: 'comments',
              attributes: { body: 'x' },
              relationships: {
                author: { data: { type: 'people', id: ALICE } },
                article: { data: { type: 'articles', id: bobDraft } },
              },
            },
          },
        ],
        [
          'relationship add',
          {
            op: 'add',
            ref: { type: 'tags', id: bobDraftTag, relationship: 'articles' },
            data: [{ type: 'articles', id: bobDraft }],
          },
        ],
        [
          'relationship remove',
          {
            op: 'remove',
            ref: { type: 'tags', id: bobDraftTag, relationship: 'articles' },
            data: [{ type: 'articles', id: bobDraft }],
          },
        ],
        [
          'relationship replace',
          {
            op: 'update',
            ref: { type: 'comments', id: aliceComment, relationship: 'article' },
            data: { type: 'articles', id: bobDraft },
          },
        ],
        [
          'relationship of a hidden row',
          { op: 'update', ref: { type: 'articles', id: bobDraft, relationship: 'tags' }, data: [] },
        ],
      ];
      for (const [name, attack] of attacks) {
        const result = await refused(404, 'POST', '/operations', { 'atomic:operations': [valid, attack] });
        expect(result.body.errors[0].source.pointer, name).toMatch(/^\/atomic:operations\/1/);
      }
      // The valid operation alone goes through (so the rollback above was real).
      const ok = await call('POST', '/operations', ALICE, { 'atomic:operations': [valid] });
      expect(ok.status, ok.text).toBe(200);
      expectNothingHidden(ok);
    });

    it('a to-one relationship of a visible row to a hidden row reads as null: never its id, never included', async () => {
      // Comments unscoped here (only articles are), so a visible comment can point at a hidden draft.
      const db = database.db;
      const partial = defineTableStore(db, {
        people: {
          table: 'people',
          columns: { createdAt: 'created_at' },
          relationships: { articles: { type: 'toMany', table: 'articles', foreignKey: 'author_id' } },
        },
        articles: {
          table: 'articles',
          columns: { createdAt: 'created_at', updatedAt: 'updated_at', authorId: 'author_id' },
          relationships: {
            author: { type: 'toOne', foreignKey: 'author_id' },
            comments: { type: 'toMany', table: 'comments', foreignKey: 'article_id' },
            tags: {
              type: 'toMany',
              table: 'tags',
              through: { table: 'article_tags', from: 'article_id', to: 'tag_id' },
            },
          },
          scope: (query, ctx) =>
            query.where((eb) =>
              eb.or([
                eb('articles.status', '=', 'published'),
                eb('articles.author_id', '=', Number(ctx.getAttribute('user') ?? 0)),
              ]),
            ),
          filters: { search: (query) => query },
          policy: () => true,
        },
        comments: {
          table: 'comments',
          columns: { createdAt: 'created_at', authorId: 'author_id', articleId: 'article_id' },
          relationships: {
            author: { type: 'toOne', foreignKey: 'author_id' },
            article: { type: 'toOne', foreignKey: 'article_id' },
          },
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
      const open = new JsonApi({ onError: (e) => errors.push(e) })
        .resource({ ...people, ...partial.people })
        .resource({ ...schema.articles, ...partial.articles })
        .resource({ ...schema.comments, ...partial.comments })
        .resource({ ...tags, ...partial.tags });
      const fetchAs = async (path: string, user: string) => {
        const response = await open.fetch(new Request(`http://localhost${path}`), { attributes: { user } });
        const body = await response.json();
        expectValidDocument(body);
        return { status: response.status, body, text: JSON.stringify(body) };
      };
      for (const path of [
        `/comments/${hiddenComment}?include=article`,
        `/comments/${hiddenComment}/relationships/article`,
        `/comments/${hiddenComment}/article`,
      ]) {
        const result = await fetchAs(path, ALICE);
        expect(result.status, result.text).toBe(200);
        expect(identifiers(result.body)).not.toContain(`articles/${bobDraft}`);
        expect(result.text).not.toContain('SECRET draft');
      }
      expect((await fetchAs(`/comments/${hiddenComment}/relationships/article`, ALICE)).body.data).toBeNull();
      expect((await fetchAs(`/comments/${hiddenComment}/relationships/article`, BOB)).body.data).toEqual({
        type: 'articles',
        id: bobDraft,
      });
    });

    it('no request in this file was a 500', () => {
      expect(errors).toEqual([]);
    });
  });
});
