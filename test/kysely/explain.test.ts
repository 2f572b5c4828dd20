/**
 * The query language's SQL uses the example's indexes, on SQLite and PostgreSQL: the statement
 * the Kysely store runs for each of examples/blog/README.md's paths and operators is explained by the
 * database itself (`EXPLAIN QUERY PLAN`, `EXPLAIN` with sequential scans discouraged, as a table
 * of this size would otherwise be scanned whatever the indexes), and the plan names the index.
 */
import { JsonApi } from 'jsonapi-gen';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import * as schema from '../../examples/blog/schema.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { DIALECTS } from './harness.js';

/** Each route, and the index its filtered statement must use. */
const CASES: Array<[string, RegExp]> = [
  ['/articles?filter[author.name]=Ada%20Lovelace', /people_name_index/],
  ['/articles?filter[tags.name]=typescript', /article_tags_tag_id_index|tags_name_key|sqlite_autoindex_tags_1/],
  ['/articles?filter[createdAt][gte]=2024-01-01T00:00:00Z&sort=createdAt', /articles_created_at_index/],
  // A count is a correlated subquery: each article's comments found by the foreign key's index.
  ['/articles?filter[commentCount][gte]=2', /comments_article_id_index/],
  ['/articles?filter[tagCount]=0', /article_tags_pk|sqlite_autoindex_article_tags_1/],
  // A group with a path: the related rows that match found by their index.
  ['/articles?filter[or][0][author.name]=Ada%20Lovelace&filter[or][1][title]=x', /people_name_index/],
  ['/articles?filter[not][tags.name]=typescript', /article_tags_tag_id_index|tags_name_key|sqlite_autoindex_tags_1/],
];

describe.each(DIALECTS)('query plans on %s', (dialect) => {
  let pg: TestDatabase | undefined;
  let database: OpenDatabase;
  let api: JsonApi;
  const run: Array<{ sql: string; parameters: readonly unknown[] }> = [];

  beforeAll(async () => {
    if (dialect === 'postgres') pg = await createPostgresDatabase();
    database = openDatabase({
      databaseUrl: pg?.url,
      log: (event) =>
        void (event.level === 'query' && run.push({ sql: event.query.sql, parameters: event.query.parameters })),
    });
    await migrate(database.db, database.dialect);
    await seed(database.db, 200);
    const store = createStore(database.db);
    api = new JsonApi()
      .resource({ ...schema.people, ...store.people })
      .resource({ ...schema.articles, ...store.articles })
      .resource({ ...schema.comments, ...store.comments })
      .resource({ ...schema.tags, ...store.tags });
  });
  afterAll(async () => {
    await database?.close();
    await pg?.drop();
  });

  /** The statement's text with its values written in, for EXPLAIN (the values are this test's constants). */
  const literal = (text: string, parameters: readonly unknown[]) => {
    let i = 0;
    const value = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
    return dialect === 'postgres'
      ? text.replace(/\$(\d+)/g, (_, n: string) => value(parameters[Number(n) - 1]))
      : text.replace(/\?/g, () => value(parameters[i++]));
  };

  it.each(CASES)('%s uses %s', async (path, index) => {
    run.length = 0;
    const response = await api.fetch(new Request(`http://localhost${path}`));
    expect(response.status).toBe(200);
    const statement = run.find((s) => /^select "articles"\.\*/.test(s.sql) && / limit /.test(s.sql))!;
    expect(statement, run.map((s) => s.sql).join('\n')).toBeDefined();
    const text = literal(statement.sql, statement.parameters);
    let plan: string;
    if (dialect === 'sqlite') {
      const rows = await sql.raw<{ detail: string }>(`explain query plan ${text}`).execute(database.db);
      plan = rows.rows.map((r) => r.detail).join('\n');
    } else {
      plan = await database.db.connection().execute(async (connection) => {
        await sql`set enable_seqscan = off`.execute(connection);
        const rows = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${text}`).execute(connection);
        await sql`reset enable_seqscan`.execute(connection);
        return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    }
    expect(plan, plan).toMatch(index);
  });
});
