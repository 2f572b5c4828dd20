/**
 * The write functions of the Drizzle data layer on the demo database, SQLite and PostgreSQL,
 * through the demo's Drizzle tables: rows written with their relationships, only the members
 * sent changed, to-many replaced, added and removed (join table and foreign key), If-Match
 * honoured with a conditional update, the existence check, and a request's transaction rolled
 * back leaving nothing.
 */
import { asc, eq, isNotNull } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { Context } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleTransaction } from '../../integrations/drizzle/transaction.js';
import {
  type WriteTable,
  changeToMany,
  createRow,
  deleteRow,
  drizzleExistence,
  updateRow,
} from '../../integrations/drizzle/writes.js';
import { type DemoDatabase, articlesTable, demoDatabase, tagsTable } from './writes-databases.js';

const context = (ifMatch = false) => {
  const ctx = new Context(new Request('http://localhost/articles', { method: 'POST' }));
  ctx.ifMatch = ifMatch;
  return ctx;
};

describe.each(['sqlite', 'postgres', 'mysql'] as const)('Drizzle writes on %s', (dialect) => {
  let d: DemoDatabase;
  // Both dialects' databases run these queries alike; the SQLite type stands for both.
  let q: BetterSQLite3Database;
  let ARTICLES: WriteTable;
  let TAGS: WriteTable;
  const article = async (id: number) =>
    (await q.select().from(d.tables.articles).where(eq(d.tables.articles.id, id)))[0]!;
  const tagIdsOf = async (articleId: number) =>
    (
      await q
        .select()
        .from(d.tables.articleTags)
        .where(eq(d.tables.articleTags.articleId, articleId))
        .orderBy(asc(d.tables.articleTags.tagId))
    ).map((t) => t.tagId);

  beforeAll(async () => {
    d = await demoDatabase(dialect);
    q = d.db as unknown as BetterSQLite3Database;
    ARTICLES = articlesTable(d.tables);
    TAGS = tagsTable(d.tables);
  });
  afterAll(() => d.close());

  it('creates an article with its author, tags and the server-set values, and returns it as stored', async () => {
    const row = await createRow(
      d.db,
      ARTICLES,
      {
        attributes: { title: 'Fresh', status: 'published' },
        relationships: {
          author: { type: 'people', id: '2' },
          tags: [
            { type: 'tags', id: '1' },
            { type: 'tags', id: '3' },
          ],
        },
      },
      context(),
    );
    expect(row).toMatchObject({ title: 'Fresh', status: 'published', authorId: 2, body: null, version: 1 });
    const stored = await article(row.id as number);
    expect(stored).toMatchObject({ title: 'Fresh', authorId: 2, version: 1 });
    expect(new Date(stored.createdAt).toISOString()).toBe('2030-01-02T03:04:05.000Z');
    expect(await tagIdsOf(stored.id)).toEqual([1, 3]);
  });

  it('updates only the members sent, replaces a to-many, and moves the version on', async () => {
    const before = await article(2);
    const row = await updateRow(
      d.db,
      ARTICLES,
      before,
      { attributes: { title: 'Renamed' }, relationships: { tags: [{ type: 'tags', id: '4' }] } },
      context(),
    );
    expect(row).toMatchObject({
      title: 'Renamed',
      body: before.body,
      authorId: before.authorId,
      version: before.version + 1,
    });
    expect(await article(2)).toMatchObject({ title: 'Renamed', version: before.version + 1 });
    expect(await tagIdsOf(2)).toEqual([4]);
  });

  it('under If-Match, writes at the version read and answers 412 with nothing changed when it moved on', async () => {
    const read = await article(3);
    const tags = await tagIdsOf(3);
    expect(tags.length).toBeGreaterThan(0);
    await updateRow(d.db, ARTICLES, read, { attributes: { title: 'First' }, relationships: {} }, context(true));
    const stale = updateRow(
      d.db,
      ARTICLES,
      read,
      { attributes: { title: 'Second' }, relationships: { tags: [] } },
      context(true),
    );
    await expect(stale).rejects.toMatchObject({ status: 412, code: 'stale' });
    expect(await article(3)).toMatchObject({ title: 'First', version: read.version + 1 });
    expect(await tagIdsOf(3)).toEqual(tags);
    await expect(deleteRow(d.db, ARTICLES, read, context(true))).rejects.toMatchObject({ status: 412 });
    await expect(
      changeToMany(d.db, ARTICLES, read, 'tags', [{ type: 'tags', id: String(tags[0]) }], true, context(true)),
    ).rejects.toMatchObject({ status: 412 });
    expect(await article(3)).toBeDefined();
    expect(await tagIdsOf(3)).toEqual(tags);
    // Without If-Match, the same stale read writes (last writer wins).
    await updateRow(d.db, ARTICLES, read, { attributes: { title: 'Third' }, relationships: {} }, context());
    expect(await article(3)).toMatchObject({ title: 'Third', version: read.version + 2 });
  });

  it('adds and removes to-many members through the join table, and deletes', async () => {
    const { articleTags } = d.tables;
    await q.delete(articleTags).where(eq(articleTags.articleId, 5));
    const current = await article(5);
    const two = [
      { type: 'tags', id: '2' },
      { type: 'tags', id: '5' },
    ];
    await changeToMany(d.db, ARTICLES, current, 'tags', two, false, context());
    expect(await tagIdsOf(5)).toEqual([2, 5]);
    const bumped = await article(5);
    expect(bumped.version).toBe(current.version + 1);
    await changeToMany(d.db, ARTICLES, bumped, 'tags', [{ type: 'tags', id: '2' }], true, context());
    expect(await tagIdsOf(5)).toEqual([5]);
    await deleteRow(d.db, ARTICLES, bumped, context());
    expect(await q.select().from(d.tables.articles).where(eq(d.tables.articles.id, 5))).toEqual([]);
    await expect(deleteRow(d.db, ARTICLES, bumped, context())).rejects.toMatchObject({ status: 404 });
  });

  it("adds a to-many member held by the related row's foreign key", async () => {
    const { comments } = d.tables;
    const [comment] = await q.select().from(comments).where(eq(comments.articleId, 6)).limit(1);
    const target = await article(7);
    await changeToMany(
      d.db,
      ARTICLES,
      target,
      'comments',
      [{ type: 'comments', id: String(comment!.id) }],
      false,
      context(),
    );
    const [moved] = await q.select().from(comments).where(eq(comments.id, comment!.id));
    expect(moved!.articleId).toBe(7);
  });

  it('keeps, when replacing or removing, the members outside the scope the request may see', async () => {
    const { articleTags, tags } = d.tables;
    const scoped: WriteTable = {
      ...ARTICLES,
      toMany: {
        tags: {
          related: tags.id,
          through: { from: articleTags.articleId, to: articleTags.tagId },
          scope: () => eq(tags.id, 1),
        },
      },
    };
    await q.delete(articleTags).where(eq(articleTags.articleId, 8));
    await q.insert(articleTags).values([
      { articleId: 8, tagId: 1 },
      { articleId: 8, tagId: 2 },
    ]);
    await updateRow(d.db, scoped, await article(8), { attributes: {}, relationships: { tags: [] } }, context());
    expect(await tagIdsOf(8)).toEqual([2]); // tag 2 is outside the scope: kept
    await changeToMany(d.db, scoped, await article(8), 'tags', [{ type: 'tags', id: '2' }], true, context());
    expect(await tagIdsOf(8)).toEqual([2]);
  });

  it('tells which related ids exist, within a scope', async () => {
    const { people, tags } = d.tables;
    const check = drizzleExistence(d.db, {
      tags: { id: tags.id },
      people: { id: people.id, scope: () => isNotNull(people.email) },
    });
    const answers = await check.exist(
      [
        { member: 'tags', ids: ['1', '999', 'abc'] },
        { member: 'people', ids: ['1', '4'] },
      ],
      context(),
    );
    expect(answers).toEqual([
      [true, false, false],
      [true, false], // person 4 has no email: outside the scope
    ]);
  });

  it('keeps the existence checks of two tables apart, the same member name and ids asked of each', async () => {
    const { people, tags } = d.tables;
    const personIds = (await q.select({ id: people.id }).from(people)).map((row) => String(row.id));
    const tagIds = (await q.select({ id: tags.id }).from(tags)).map((row) => String(row.id));
    // Every id of the first table, asked of it (all there: its count says so) and then of the other,
    // where some are missing: a count the other table shared with the first would say all are there.
    const [first, second] = personIds.some((id) => !tagIds.includes(id))
      ? ([
          [people.id, personIds],
          [tags.id, tagIds],
        ] as const)
      : ([
          [tags.id, tagIds],
          [people.id, personIds],
        ] as const);
    const ids = first[1];
    expect(ids.some((id) => !second[1].includes(id))).toBe(true);
    for (const [column, present] of [first, second]) {
      const check = drizzleExistence(d.db, { related: { id: column } });
      const [answers] = await check.exist([{ member: 'related', ids }], context());
      expect(answers).toEqual(ids.map((id) => present.includes(id)));
    }
  });

  it('rolls back everything a request wrote when it fails, in its one transaction', async () => {
    const transaction = drizzleTransaction(d.db);
    const ctx = context();
    const { tags } = d.tables;
    const before = await q.select().from(tags);
    const failing = transaction(async () => {
      await createRow(d.db, TAGS, { attributes: { name: 'kept?' }, relationships: {} }, ctx);
      await createRow(d.db, TAGS, { attributes: { name: 'databases' }, relationships: {} }, ctx); // taken
    }, ctx);
    await expect(failing).rejects.toMatchObject({ status: 409 });
    expect(await q.select().from(tags)).toEqual(before);
    // A request's work after it commits.
    await transaction(() => createRow(d.db, TAGS, { attributes: { name: 'kept' }, relationships: {} }, ctx), ctx);
    expect(await q.select().from(tags).where(eq(tags.name, 'kept'))).toHaveLength(1);
  });
});
