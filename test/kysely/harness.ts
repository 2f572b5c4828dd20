/**
 * The store suites' fixture: the blog's tables, seeded, on SQLite or on a PostgreSQL or MySQL
 * (MariaDB) database of this file's own, served by a JsonApi with the blog schema and the Kysely store's data
 * layers, whose statements run through Kysely's executor or on the driver directly (the
 * store's two runners), or the Prisma or the Drizzle store's (the demo's mappings); every SQL
 * statement the store runs is recorded.
 */
import { type Context, JsonApi, atomic } from 'jsonapi-gen';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { type RunnerName, kyselyTransaction } from '@jsonapi-gen/kysely';
import { prismaTransaction } from '@jsonapi-gen/prisma';
import { drizzleTransaction } from '@jsonapi-gen/drizzle';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import type { DataLayers } from '../../examples/blog/generated/index.js';
import { createPrismaStore, openPrisma } from '../../examples/blog/prisma-store.js';
import { createDrizzleStore, openDrizzle } from '../../examples/blog/drizzle-store.js';
import * as schema from '../../examples/blog/schema.js';
import { seed } from '../../examples/blog/seed.js';
import { type StoreOptions, createStore } from '../../examples/blog/store.js';
import { createMysqlDatabase, createPostgresDatabase, emptyKysely, type TestDatabase } from '../support/databases.js';
import { expectValidAtomicDocument } from '../support/atomic-schema.js';
import { expectValidDocument } from '../support/validate.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';
/** The dialects with both runners (and the Prisma store); MySQL is in `STORES` only. */
export const DIALECTS: DialectName[] = ['sqlite', 'postgres'];
/** The store's runners: Kysely's executor, and the driver directly. */
export const RUNNERS: RunnerName[] = ['kysely', 'direct'];
/**
 * Every dialect with every runner it has, for `describe.each(STORES)('... on %s (%s runner)',
 * (dialect, runner) => ...)`: MySQL runs on Kysely's executor only.
 */
export const STORES: Array<[DialectName, RunnerName]> = [
  ...DIALECTS.flatMap((dialect) => RUNNERS.map((runner): [DialectName, RunnerName] => [dialect, runner])),
  ['mysql', 'kysely'],
];

/** The data layers a suite runs on: the Kysely store with one of its runners, the Prisma store or the Drizzle store. */
export type Backend = RunnerName | 'prisma' | 'drizzle';
/** The Prisma store on each dialect, for `describe.each([...STORES, ...PRISMA_STORES])`. */
export const PRISMA_STORES: Array<[DialectName, Backend]> = [...DIALECTS, 'mysql' as const].map(
  (dialect): [DialectName, Backend] => [dialect, 'prisma'],
);
/** The Drizzle store on each dialect, for `describe.each([...STORES, ...DRIZZLE_STORES])`. */
export const DRIZZLE_STORES: Array<[DialectName, Backend]> = [...DIALECTS, 'mysql' as const].map(
  (dialect): [DialectName, Backend] => [dialect, 'drizzle'],
);

/** A write request's transaction, as `JsonApi`'s `transaction` option takes it. */
type Transaction = <T>(run: () => Promise<T>, context: Context) => Promise<T>;

export interface Fixture {
  database: OpenDatabase;
  api: JsonApi;
  /** The blog's data layers on this fixture's database, by its store (`{ scoped: true }`: the scoped store). */
  store(options?: StoreOptions): DataLayers;
  /** The `transaction` option of a JsonApi on `store()`'s data layers. */
  transaction: Transaction;
  /**
   * SQL of every statement the driver ran since the last `statements.length = 0` (on SQLite
   * with its values written in; on MySQL with names in double quotes, as the others quote them).
   */
  statements: string[];
  /** A request through `api.fetch`; the response body parsed and checked against the JSON:API schema. */
  request(method: string, path: string, user?: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function openFixture(dialect: DialectName, articles = 60, backend: Backend = 'kysely'): Promise<Fixture> {
  let server: TestDatabase | undefined;
  if (dialect === 'postgres') server = await createPostgresDatabase();
  if (dialect === 'mysql') server = await createMysqlDatabase();
  const statements: string[] = [];
  // MySQL quotes names with backticks: recorded as the other dialects quote them, so that one
  // pattern reads a statement on each.
  const onStatement = (sql: string) => void statements.push(dialect === 'mysql' ? sql.replace(/`/g, '"') : sql);
  const runner = backend === 'prisma' || backend === 'drizzle' ? 'kysely' : backend;
  const database = openDatabase({
    databaseUrl: server?.url,
    runner,
    ...(runner === backend && { onStatement }),
  });
  await migrate(database.db, database.dialect);
  await seed(database.db, articles);
  const where = server ? { databaseUrl: server.url } : { file: database.location };
  const prisma = backend === 'prisma' ? openPrisma(where, { onQuery: onStatement }) : undefined;
  const drizzle = backend === 'drizzle' ? openDrizzle(where, { onQuery: onStatement }) : undefined;
  const provider = dialect === 'sqlite' ? 'sqlite' : 'postgresql';
  const storeOf = (options?: StoreOptions): DataLayers =>
    prisma
      ? createPrismaStore(prisma, dialect === 'mysql' ? 'mysql' : provider, options)
      : drizzle
        ? createDrizzleStore(drizzle.db, drizzle.dialect, options)
        : createStore(database.db, options);
  const transaction: Transaction = prisma
    ? prismaTransaction(prisma)
    : drizzle
      ? drizzleTransaction(drizzle.db)
      : kyselyTransaction(database.db);
  const store = storeOf();
  const api = new JsonApi({ transaction, extensions: [atomic()] })
    .resource({ ...schema.people, ...store.people })
    .resource({ ...schema.articles, ...store.articles })
    .resource({ ...schema.comments, ...store.comments })
    .resource({ ...schema.tags, ...store.tags });
  statements.length = 0;
  return {
    database,
    api,
    store: storeOf,
    transaction,
    statements,
    async request(method, path, user, payload) {
      const init: RequestInit = { method };
      if (payload !== undefined) {
        const atomicExt = path === '/operations' ? '; ext="https://jsonapi.org/ext/atomic"' : '';
        init.body = JSON.stringify(payload);
        init.headers = {
          'content-type': `application/vnd.api+json${atomicExt}`,
          accept: `application/vnd.api+json${atomicExt}`,
        };
      }
      const response = await api.fetch(new Request(`http://localhost${path}`, init), {
        attributes: user === undefined ? {} : { user },
      });
      const text = await response.text();
      const body = text === '' ? undefined : JSON.parse(text);
      if (body !== undefined)
        (path === '/operations' && response.ok ? expectValidAtomicDocument : expectValidDocument)(body);
      return { status: response.status, body };
    },
    async close() {
      await prisma?.$disconnect();
      await drizzle?.close();
      await database.close();
      await server?.drop();
    },
  };
}

/** An article as the blog serves it, with its author's name and its tags' names. */
export interface ServedArticle {
  id: string;
  title: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  author: string;
  tags: string[];
}

/** Every article the fixture serves (up to 50), read through the API with its author and tags. */
export async function servedArticles(f: Fixture): Promise<ServedArticle[]> {
  const { body } = await f.request('GET', '/articles?page[limit]=50&include=author,tags', '1');
  const names = new Map(
    (body.included as Array<{ type: string; id: string; attributes: { name: string } }>).map((r) => [
      `${r.type}:${r.id}`,
      r.attributes.name,
    ]),
  );
  return (
    body.data as Array<{ id: string; attributes: Omit<ServedArticle, 'id' | 'author' | 'tags'>; relationships: any }>
  ).map((a) => ({
    id: a.id,
    ...a.attributes,
    author: names.get(`people:${a.relationships.author.data.id}`)!,
    tags: (a.relationships.tags.data as Array<{ id: string }>).map((t) => names.get(`tags:${t.id}`)!),
  }));
}

/** A suite's own tables on an empty database, and the API serving them (set before the suite's tests run). */
export interface TableSuite<DB> {
  db: Kysely<DB>;
  api: JsonApi;
}

/**
 * For a suite over tables of its own: before its tests, an empty database of `dialect`
 * (`emptyKysely`, for `runner`) that `setup` fills and serves, returning the API; after them,
 * the database is closed.
 *
 * @example
 * const suite = tableSuite<Db>(dialect, async (db) => { await db.schema.createTable('notes')...; return new JsonApi().resource(...); });
 * it('...', async () => { await suite.api.fetch(...); });
 */
export function tableSuite<DB>(
  dialect: DialectName,
  setup: (db: Kysely<DB>) => Promise<JsonApi>,
  runner: RunnerName = 'kysely',
): TableSuite<DB> {
  const suite = {} as TableSuite<DB>;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const empty = await emptyKysely<DB>(dialect, runner);
    close = empty.close;
    suite.db = empty.db;
    suite.api = await setup(empty.db);
  });
  afterAll(async () => {
    await close?.();
  });
  return suite;
}
