/**
 * The write functions of the Prisma data layer on the demo database, SQLite and PostgreSQL,
 * through the generated clients: rows written, only the members sent changed, to-many
 * replaced, added and removed, If-Match honoured with a conditional update, the existence
 * check, and a request's transaction rolled back leaving nothing.
 */
import { Context } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prismaTransaction } from '../../integrations/prisma/transaction.js';
import {
  changeToMany,
  createRecord,
  deleteRecord,
  prismaExistence,
  updateRecord,
} from '../../integrations/prisma/writes.js';
import { type DemoDatabase, demoDatabase } from './writes-databases.js';
import { ARTICLES, TAGS } from './writes-models.js';

const context = (ifMatch = false) => {
  const ctx = new Context(new Request('http://localhost/articles', { method: 'POST' }));
  ctx.ifMatch = ifMatch;
  return ctx;
};

const tagIdsOf = async (d: DemoDatabase, articleId: number) =>
  (await d.prisma.articleTag.findMany({ where: { articleId }, orderBy: { tagId: 'asc' } })).map((t) => t.tagId);

describe.each(['sqlite', 'postgres'] as const)('Prisma writes on %s', (dialect) => {
  let d: DemoDatabase;
  beforeAll(async () => {
    d = await demoDatabase(dialect);
  });
  afterAll(() => d.close());

  it('creates an article with its author, tags and the server-set fields', async () => {
    const row = await createRecord(
      d.prisma,
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
    const stored = await d.prisma.article.findUniqueOrThrow({ where: { id: row.id as number } });
    expect(stored).toMatchObject({ title: 'Fresh', status: 'published', authorId: 2, body: null, version: 1 });
    expect(stored.createdAt.toISOString()).toBe('2030-01-02T03:04:05.000Z');
    expect(await tagIdsOf(d, stored.id)).toEqual([1, 3]);
  });

  it('updates only the members sent, replaces a to-many, and moves the version on', async () => {
    const before = await d.prisma.article.findUniqueOrThrow({ where: { id: 2 } });
    const row = await updateRecord(
      d.prisma,
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
    expect(await tagIdsOf(d, 2)).toEqual([4]);
  });

  it('under If-Match, writes at the version read and answers 412 with nothing changed when it moved on', async () => {
    const read = await d.prisma.article.findUniqueOrThrow({ where: { id: 3 } });
    const tags = await tagIdsOf(d, 3);
    expect(tags.length).toBeGreaterThan(0);
    await updateRecord(d.prisma, ARTICLES, read, { attributes: { title: 'First' }, relationships: {} }, context(true));
    const stale = updateRecord(
      d.prisma,
      ARTICLES,
      read,
      { attributes: { title: 'Second' }, relationships: { tags: [] } },
      context(true),
    );
    await expect(stale).rejects.toMatchObject({ status: 412, code: 'stale' });
    const now = await d.prisma.article.findUniqueOrThrow({ where: { id: 3 } });
    expect(now).toMatchObject({ title: 'First', version: read.version + 1 });
    expect(await tagIdsOf(d, 3)).toEqual(tags);
    await expect(deleteRecord(d.prisma, ARTICLES, read, context(true))).rejects.toMatchObject({ status: 412 });
    await expect(
      changeToMany(d.prisma, ARTICLES, read, 'tags', [{ type: 'tags', id: '1' }], true, context(true)),
    ).rejects.toMatchObject({ status: 412 });
    expect(await d.prisma.article.count({ where: { id: 3 } })).toBe(1);
    expect(await tagIdsOf(d, 3)).toEqual(tags);
  });

  it('adds and removes to-many members through the join model, and deletes', async () => {
    const article = await d.prisma.article.findUniqueOrThrow({ where: { id: 5 } });
    await d.prisma.articleTag.deleteMany({ where: { articleId: 5 } });
    await changeToMany(
      d.prisma,
      ARTICLES,
      article,
      'tags',
      [
        { type: 'tags', id: '2' },
        { type: 'tags', id: '5' },
      ],
      false,
      context(),
    );
    expect(await tagIdsOf(d, 5)).toEqual([2, 5]);
    const bumped = await d.prisma.article.findUniqueOrThrow({ where: { id: 5 } });
    expect(bumped.version).toBe(article.version + 1);
    await changeToMany(d.prisma, ARTICLES, bumped, 'tags', [{ type: 'tags', id: '2' }], true, context());
    expect(await tagIdsOf(d, 5)).toEqual([5]);
    await deleteRecord(d.prisma, ARTICLES, bumped, context());
    expect(await d.prisma.article.count({ where: { id: 5 } })).toBe(0);
    await expect(deleteRecord(d.prisma, ARTICLES, bumped, context())).rejects.toMatchObject({ status: 404 });
  });

  it('tells which related ids exist, within a scope', async () => {
    const check = prismaExistence(d.prisma, {
      tags: { model: 'tag' },
      people: { model: 'person', scope: () => ({ email: { not: null } }) },
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

  it('rolls back everything a request wrote when it fails, in its one transaction', async () => {
    const transaction = prismaTransaction(d.prisma);
    const ctx = context();
    const tagsBefore = await d.prisma.tag.count();
    const failing = transaction(async () => {
      await createRecord(d.prisma, TAGS, { attributes: { name: 'kept?' }, relationships: {} }, ctx);
      await createRecord(d.prisma, TAGS, { attributes: { name: 'json' }, relationships: {} }, ctx); // taken
    }, ctx);
    await expect(failing).rejects.toMatchObject({ status: 409 });
    expect(await d.prisma.tag.count()).toBe(tagsBefore);
    expect(await d.prisma.tag.findUnique({ where: { name: 'kept?' } })).toBeNull();
  });
});
