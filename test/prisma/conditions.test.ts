/**
 * `prismaWhere` against the real thing: each condition's where run by the generated client on
 * the seeded demo database (SQLite, better-sqlite3 adapter), its articles or people compared
 * with the same condition evaluated in plain TypeScript over the seed's rows, with the
 * runtime's meaning (a leaf on a null field is false, so `not` of it is true).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { Condition, ConditionValue, FilterCondition } from 'jsonapi-gen';
import { type PrismaWhere, type WhereOptions, prismaWhere } from '@jsonapi-gen/prisma';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { PrismaClient } from '../../examples/blog/prisma/generated/sqlite/client.js';
import { seed, seedRows } from '../../examples/blog/seed.js';

const ARTICLES = 40;
const rows = seedRows(ARTICLES);

/** The seed's rows as resources: attributes by their JSON:API names, to-one ids, to-many related rows. */
type Row = Record<string, unknown>;
const people: Row[] = rows.people.map((p, i) => ({ id: i + 1, name: p.name, email: p.email, createdAt: p.created_at }));
const tags: Row[] = rows.tags.map((t, i) => ({ id: i + 1, name: t.name }));
const comments: Row[] = rows.comments.map((c, i) => ({ id: i + 1, body: c.body, articleId: c.article_id }));
const articles: Row[] = rows.articles.map((a, i) => ({
  id: i + 1,
  title: a.title,
  body: a.body,
  status: a.status,
  createdAt: a.created_at,
  author: a.author_id,
}));
/** Related rows of a resource, by type and relationship. */
const RELATED: Record<string, Record<string, (row: Row) => Row[]>> = {
  articles: {
    author: (a) => people.filter((p) => p.id === a.author),
    comments: (a) => comments.filter((c) => c.articleId === a.id),
    tags: (a) => rows.article_tags.filter((t) => t.article_id === a.id).map((t) => tags[t.tag_id - 1]!),
  },
  people: { articles: (p) => articles.filter((a) => a.author === p.id) },
};

/** A leaf on one row, as the runtime means it: a null field matches nothing but `null` (and an empty `nin`). */
function holds(row: Row, attribute: string, condition: Condition): boolean {
  const field = row[attribute] as ConditionValue | null;
  const { op, value } = condition;
  if (op === 'null') return (field === null) === value;
  if (op === 'nin' && (value as unknown[]).length === 0) return true;
  if (field === null) return false;
  const norm = (v: unknown) => (condition.caseInsensitive ? String(v).toLowerCase() : String(v));
  // Ids come as text (`filter[author]=2`); the rows hold numbers.
  const v = typeof field === 'number' && typeof value === 'string' ? Number(value) : (value as ConditionValue);
  switch (op) {
    case 'eq':
      return field === v;
    case 'ne':
      return field !== v;
    case 'in':
      return (value as ConditionValue[]).includes(field);
    case 'nin':
      return !(value as ConditionValue[]).includes(field);
    case 'lt':
      return field < v;
    case 'lte':
      return field <= v;
    case 'gt':
      return field > v;
    case 'gte':
      return field >= v;
    case 'contains':
      return norm(field).includes(norm(v));
    case 'startsWith':
      return norm(field).startsWith(norm(v));
    case 'endsWith':
      return norm(field).endsWith(norm(v));
  }
}

/** Whether a related row of `type` is in that type's scope. */
type Scope = (type: string, row: Row) => boolean;

function evaluate(type: string, row: Row, condition: FilterCondition, scope?: Scope): boolean {
  switch (condition.op) {
    case 'and':
      return condition.conditions.every((c) => evaluate(type, row, c, scope));
    case 'or':
      return condition.conditions.some((c) => evaluate(type, row, c, scope));
    case 'not':
      return !condition.conditions.every((c) => evaluate(type, row, c, scope));
    case 'custom':
      throw new Error('no custom filters here');
  }
  const inScope = (relatedType: string, related: Row[]) => related.filter((r) => scope?.(relatedType, r) ?? true);
  if (condition.count) {
    const n = inScope(condition.count.type, RELATED[type]![condition.count.relationship]!(row)).length;
    return holds({ n }, 'n', condition);
  }
  if (condition.path) {
    const { relationship, attribute } = condition.path;
    return inScope(condition.path.type, RELATED[type]![relationship]!(row)).some((r) => holds(r, attribute, condition));
  }
  return holds(row, condition.field, condition);
}

const OPTIONS: WhereOptions = {
  provider: 'sqlite',
  types: {
    articles: {
      fields: { author: 'authorId' },
      nullable: ['body'],
      relationships: {
        author: { field: 'author' },
        comments: { field: 'comments' },
        tags: { field: 'tags', through: 'tag' },
      },
      value: (field, value) => (field === 'id' || field === 'author' ? Number(value) : value),
    },
    people: { nullable: ['email'], relationships: { articles: { field: 'articles' } } },
    comments: {},
    tags: {},
  },
};

const author = (op: Condition['op'], value: Condition['value'], caseInsensitive?: boolean): Condition => ({
  field: 'author.name',
  op,
  value,
  path: { relationship: 'author', type: 'people', attribute: 'name', many: false },
  ...(caseInsensitive ? { caseInsensitive } : {}),
});
const tagNamed = (name: string): Condition => ({
  field: 'tags.name',
  op: 'eq',
  value: name,
  path: { relationship: 'tags', type: 'tags', attribute: 'name', many: true },
});
const tagCount = (op: Condition['op'], value: number): Condition => ({
  field: 'tagCount',
  op,
  value,
  count: { relationship: 'tags', type: 'tags' },
});
const bodyContains = (value: string): Condition => ({ field: 'body', op: 'contains', value, caseInsensitive: true });

describe('prismaWhere on SQLite', () => {
  let prisma: PrismaClient;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-prisma-where-'));
    const file = join(dir, 'blog.sqlite');
    const database = openDatabase({ file });
    await migrate(database.db, 'sqlite');
    await seed(database.db, ARTICLES);
    await database.close();
    prisma = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }) });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const articleIds = async (where: PrismaWhere) =>
    (await prisma.article.findMany({ where: where as never, select: { id: true }, orderBy: { id: 'asc' } })).map(
      (a) => a.id,
    );
  const personIds = async (where: PrismaWhere) =>
    (await prisma.person.findMany({ where: where as never, select: { id: true }, orderBy: { id: 'asc' } })).map(
      (p) => p.id,
    );

  /** The articles Prisma finds for `condition`, next to those the reference keeps; the reference keeps some, not all. */
  async function compareArticles(condition: FilterCondition, options: WhereOptions = OPTIONS, scope?: Scope) {
    const expected = articles.filter((a) => evaluate('articles', a, condition, scope)).map((a) => a.id);
    expect(expected.length, JSON.stringify(condition)).toBeGreaterThan(0);
    expect(expected.length, JSON.stringify(condition)).toBeLessThan(articles.length);
    expect(await articleIds(prismaWhere('articles', condition, options)), JSON.stringify(condition)).toEqual(expected);
  }

  const leaves: Array<[string, Condition]> = [
    ['eq', { field: 'status', op: 'eq', value: 'draft' }],
    ['ne on a nullable field (nulls do not match)', { field: 'body', op: 'ne', value: 'Notes on joins (6).' }],
    ['in', { field: 'status', op: 'in', value: ['draft'] }],
    ['nin', { field: 'title', op: 'nin', value: [rows.articles[0]!.title, rows.articles[1]!.title] }],
    ['lt on a date-time', { field: 'createdAt', op: 'lt', value: rows.articles[9]!.created_at }],
    ['gte on a date-time', { field: 'createdAt', op: 'gte', value: rows.articles[9]!.created_at }],
    ['contains, case-insensitive', { field: 'title', op: 'contains', value: 'PAGINATION', caseInsensitive: true }],
    ['startsWith, case-insensitive', { field: 'title', op: 'startsWith', value: 'joins', caseInsensitive: true }],
    ['endsWith, case-insensitive', { field: 'title', op: 'endsWith', value: 'PART 1', caseInsensitive: true }],
    ['null true', { field: 'body', op: 'null', value: true }],
    ['null false', { field: 'body', op: 'null', value: false }],
    ['an id read as text', { field: 'id', op: 'lte', value: '7' }],
    ['a to-one relationship by id', { field: 'author', op: 'eq', value: '2' }],
    ['a to-one path', author('eq', rows.people[2]!.name)],
    ['a to-one path, case-insensitive contains', author('contains', 'ADA', true)],
    ['a to-many path through the join model', tagNamed('json')],
    [
      'a to-many path',
      {
        field: 'comments.body',
        op: 'contains',
        value: 'COMMENT 3',
        caseInsensitive: true,
        path: { relationship: 'comments', type: 'comments', attribute: 'body', many: true },
      },
    ],
    ['a count: none', tagCount('eq', 0)],
    ['a count: some', tagCount('gt', 0)],
    ['a count: at least one', tagCount('gte', 1)],
  ];
  it.each(leaves)('%s', async (_, condition) => {
    await compareArticles(condition);
  });

  it('an empty in matches nothing, an empty nin everything (null fields too)', async () => {
    expect(await articleIds(prismaWhere('articles', { field: 'body', op: 'in', value: [] }, OPTIONS))).toEqual([]);
    expect(await articleIds(prismaWhere('articles', { field: 'body', op: 'nin', value: [] }, OPTIONS))).toHaveLength(
      ARTICLES,
    );
  });

  const groups: Array<[string, FilterCondition]> = [
    [
      'or',
      { op: 'or', conditions: [{ field: 'status', op: 'eq', value: 'draft' }, author('eq', rows.people[1]!.name)] },
    ],
    ['and', { op: 'and', conditions: [{ field: 'status', op: 'eq', value: 'published' }, tagNamed('json')] }],
    ['not of a leaf on a nullable field: null fields match', { op: 'not', conditions: [bodyContains('pagination')] }],
    [
      'not of several: not all hold',
      { op: 'not', conditions: [{ field: 'status', op: 'eq', value: 'draft' }, bodyContains('s')] },
    ],
    ['not of a to-many path: resources without related ones match', { op: 'not', conditions: [tagNamed('json')] }],
    ['not of not', { op: 'not', conditions: [{ op: 'not', conditions: [bodyContains('caching')] }] }],
    [
      'not of an or with a nested not',
      {
        op: 'not',
        conditions: [{ op: 'or', conditions: [{ op: 'not', conditions: [bodyContains('i')] }, tagCount('eq', 0)] }],
      },
    ],
    ['not of ne: nulls match', { op: 'not', conditions: [{ field: 'body', op: 'ne', value: 'Notes on joins (6).' }] }],
    ['not of nin', { op: 'not', conditions: [{ field: 'body', op: 'nin', value: ['Notes on joins (6).'] }] }],
  ];
  it.each(groups)('%s', async (_, condition) => {
    await compareArticles(condition);
  });

  it("needs the guard: Prisma's NOT alone drops the rows whose field is null", async () => {
    const condition: FilterCondition = { op: 'not', conditions: [bodyContains('pagination')] };
    const unguarded = {
      ...OPTIONS,
      types: { ...OPTIONS.types, articles: { ...OPTIONS.types.articles, nullable: [] } },
    };
    const withNull = articles.filter((a) => a.body === null).map((a) => a.id);
    expect(withNull.length).toBeGreaterThan(0);
    const found = await articleIds(prismaWhere('articles', condition, unguarded));
    expect(found.filter((id) => withNull.includes(id))).toEqual([]);
    expect(await articleIds(prismaWhere('articles', condition, OPTIONS))).toEqual(expect.arrayContaining(withNull));
  });

  it('not on people: a null email matches the negation of a text filter', async () => {
    const condition: FilterCondition = {
      op: 'not',
      conditions: [{ field: 'email', op: 'contains', value: 'ada', caseInsensitive: true }],
    };
    const expected = people.filter((p) => evaluate('people', p, condition)).map((p) => p.id);
    expect(expected).toContain(4);
    expect(await personIds(prismaWhere('people', condition, OPTIONS))).toEqual(expected);
  });

  it("paths and counts stay within the related type's scope", async () => {
    const scoped: WhereOptions = {
      ...OPTIONS,
      scope: (type) => (type === 'people' ? { id: { lte: 2 } } : type === 'tags' ? { id: { gt: 6 } } : undefined),
    };
    const scope: Scope = (type, r) =>
      type === 'people' ? (r.id as number) <= 2 : type === 'tags' ? (r.id as number) > 6 : true;
    await compareArticles(author('contains', 'a', true), scoped, scope);
    await compareArticles(tagCount('eq', 0), scoped, scope);
    const inScopeTag = rows.tags[rows.article_tags.find((t) => t.tag_id > 6)!.tag_id - 1]!.name;
    await compareArticles(tagNamed(inScopeTag), scoped, scope);
    await compareArticles({ op: 'not', conditions: [tagNamed(inScopeTag)] }, scoped, scope);
    // Out of scope: no article has the tag json as far as this request may see.
    expect(await articleIds(prismaWhere('articles', tagNamed('json'), scoped))).toEqual([]);
  });

  it('a count Prisma cannot compare goes through the count option, and throws without it', async () => {
    expect(() => prismaWhere('articles', tagCount('gt', 2), OPTIONS)).toThrow(
      /existence only; tagCount gt 2 needs the count option/,
    );
    const grouped = await prisma.articleTag.groupBy({ by: ['articleId'], _count: { _all: true } });
    const withCount: WhereOptions = {
      ...OPTIONS,
      count: (condition) => ({
        id: { in: grouped.filter((g) => holds({ n: g._count._all }, 'n', condition)).map((g) => g.articleId) },
      }),
    };
    await compareArticles(tagCount('gt', 2), withCount);
    await compareArticles({ op: 'not', conditions: [tagCount('gte', 2)] }, withCount);
  });

  it('refuses what Prisma cannot say on SQLite, and custom filters', () => {
    expect(() => prismaWhere('articles', { field: 'title', op: 'contains', value: 'Joins' }, OPTIONS)).toThrow(
      /case-sensitive contains \(title\) has no Prisma where on SQLite/,
    );
    expect(() => prismaWhere('articles', bodyContains('50%'), OPTIONS)).toThrow(/with % or _ \(body\)/);
    expect(() =>
      prismaWhere('articles', { op: 'or', conditions: [{ op: 'custom', field: 'search', value: 'x' }] }, OPTIONS),
    ).toThrow(/custom filter search/);
  });
});

describe('prismaWhere on MySQL', () => {
  const MYSQL: WhereOptions = { ...OPTIONS, provider: 'mysql' };

  it('says a case-sensitive text operator as LIKE with its wildcards made literal, and no `mode`', () => {
    // Prisma refuses `mode` on MySQL; a binary collation (utf8mb4_bin) makes its LIKE case-sensitive.
    expect(prismaWhere('articles', { field: 'title', op: 'contains', value: '50%_\\' }, MYSQL)).toEqual({
      title: { contains: '50\\%\\_\\\\' },
    });
  });

  it('refuses a case-insensitive one, which the store works out as a list of ids', () => {
    expect(() =>
      prismaWhere('articles', { field: 'title', op: 'startsWith', value: 'joins', caseInsensitive: true }, MYSQL),
    ).toThrow(/case-insensitive startsWith \(title\) has no Prisma where on MySQL/);
    const ids = { id: { in: [1, 2] } };
    const condition: Condition = { field: 'title', op: 'startsWith', value: 'joins', caseInsensitive: true };
    expect(prismaWhere('articles', condition, { ...MYSQL, leaf: () => ids })).toEqual(ids);
  });
});
