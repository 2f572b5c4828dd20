/**
 * Deterministic demo data: the same rows, ids and timestamps on every run (no clock, no
 * randomness). `articles` sets the scale: people = max(5, ceil(articles / 50)), comments =
 * 5 per article, 12 tags, 0 to 3 tags per article. 1,000 articles give the benchmark's
 * 20 people, 5,000 comments and 12 tags.
 */
import { type Kysely, MysqlIntrospector } from 'kysely';
import { mysqlDateTime } from '@jsonapi-gen/kysely';
import type { Database } from './db.js';

export interface SeedCounts {
  people: number;
  articles: number;
  comments: number;
  tags: number;
}

const FIRST = [
  'Ada',
  'Alan',
  'Barbara',
  'Claude',
  'Donald',
  'Edsger',
  'Frances',
  'Grace',
  'John',
  'Katherine',
  'Leslie',
  'Margaret',
  'Niklaus',
  'Radia',
  'Tim',
];
const LAST = [
  'Lovelace',
  'Turing',
  'Liskov',
  'Shannon',
  'Knuth',
  'Dijkstra',
  'Allen',
  'Hopper',
  'Backus',
  'Johnson',
  'Lamport',
  'Hamilton',
  'Wirth',
  'Perlman',
  'Berners-Lee',
];
const TAGS = [
  'databases',
  'typescript',
  'http',
  'json',
  'testing',
  'performance',
  'security',
  'design',
  'tooling',
  'postgres',
  'sqlite',
  'api',
];
const TOPICS = [
  'Indexes',
  'Transactions',
  'Pagination',
  'Caching',
  'Migrations',
  'Joins',
  'Streams',
  'Types',
  'Errors',
  'Links',
  'Sorting',
  'Filters',
];

/** 2024-01-01T00:00:00Z plus `hours`, as an ISO string. */
function at(hours: number): string {
  return new Date(Date.UTC(2024, 0, 1) + hours * 3_600_000).toISOString();
}

/** The counts `seed(db, articles)` creates. */
export function seedCounts(articles: number): SeedCounts {
  return { people: Math.max(5, Math.ceil(articles / 50)), articles, comments: articles * 5, tags: TAGS.length };
}

async function insertChunks<T extends keyof Database>(
  db: Kysely<Database>,
  table: T,
  rows: readonly object[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 500) as never)
      .execute();
  }
}

/** The rows of every table, as `seed` inserts them (ids 1..n in this order). */
export interface SeedRows {
  people: Array<{ name: string; email: string | null; created_at: string }>;
  tags: Array<{ name: string }>;
  articles: Array<{
    title: string;
    body: string | null;
    status: 'draft' | 'published';
    author_id: number;
    created_at: string;
    updated_at: string;
  }>;
  article_tags: Array<{ article_id: number; tag_id: number }>;
  comments: Array<{ body: string; author_id: number; article_id: number; created_at: string }>;
}

/** The demo's rows for `articles` articles: a pure function, so any data layer can hold the same data. */
export function seedRows(articles: number): SeedRows {
  const counts = seedCounts(articles);
  const links: SeedRows['article_tags'] = [];
  for (let a = 1; a <= counts.articles; a++) {
    for (let k = 0; k < a % 4; k++) links.push({ article_id: a, tag_id: ((a * 5 + k * 7) % counts.tags) + 1 });
  }
  return {
    people: Array.from({ length: counts.people }, (_, i) => {
      const name = `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]}${i >= FIRST.length ? ` ${Math.floor(i / FIRST.length) + 1}` : ''}`;
      return {
        name,
        email: i % 4 === 3 ? null : `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.com`,
        created_at: at(i),
      };
    }),
    tags: TAGS.map((name) => ({ name })),
    articles: Array.from({ length: counts.articles }, (_, i) => ({
      title: `${TOPICS[i % TOPICS.length]} in practice, part ${i + 1}`,
      body: i % 10 === 9 ? null : `Notes on ${TOPICS[i % TOPICS.length]!.toLowerCase()} (${i + 1}).`,
      status: i % 3 === 0 ? ('draft' as const) : ('published' as const),
      author_id: (i % counts.people) + 1,
      created_at: at(100 + i * 5),
      updated_at: at(100 + i * 5 + (i % 7) * 24),
    })),
    article_tags: links,
    comments: Array.from({ length: counts.comments }, (_, i) => ({
      body: `Comment ${i + 1}: ${i % 2 === 0 ? 'agreed' : 'a question'}.`,
      author_id: ((i * 3) % counts.people) + 1,
      article_id: (i % counts.articles) + 1,
      created_at: at(100 + (i % counts.articles) * 5 + 1 + Math.floor(i / counts.articles)),
    })),
  };
}

/**
 * Fills an empty database (ids 1..n in insertion order); does nothing when people exist.
 * Returns the counts it created (zeros when it did nothing).
 */
export async function seed(db: Kysely<Database>, articles = 120): Promise<SeedCounts> {
  const existing = await db
    .selectFrom('people')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) return { people: 0, articles: 0, comments: 0, tags: 0 };
  const rows = seedRows(articles);
  // MySQL's DATETIME takes an instant as UTC text without a zone (the store converts its own writes).
  const mysql = db.introspection instanceof MysqlIntrospector;
  const stored = (list: readonly object[]) =>
    mysql
      ? list.map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([column, value]) => [
              column,
              column.endsWith('_at') ? mysqlDateTime(value) : value,
            ]),
          ),
        )
      : list;
  await db.transaction().execute(async (trx) => {
    for (const table of ['people', 'tags', 'articles', 'article_tags', 'comments'] as const)
      await insertChunks(trx, table, stored(rows[table]));
  });
  return seedCounts(articles);
}
