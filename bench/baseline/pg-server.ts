/**
 * The benchmark's PostgreSQL baseline: `./server.ts` (the hand-written SQLite baseline) ported
 * to node-postgres, as a careful engineer writes it: a pool of 10, every statement named
 * (`{ name, text, values }`, so PostgreSQL parses and plans it once per connection), `IN` lists
 * as `= any($1)` (one statement shape whatever the arity), batched include queries, one
 * `JSON.stringify` per response, the same documents as the demo. POST /articles in five
 * statements: BEGIN, both linkage checks in one query, INSERT ... RETURNING, the tag links in
 * one INSERT ... SELECT unnest, the outbox entry, COMMIT. No response caching.
 *
 * Routes: GET /articles (page[limit], page[offset], include of author, tags, comments,
 * comments.author; default sort -createdAt; counted), GET /articles/{id}, POST /articles,
 * GET /people (page; default sort name; not counted). Anything else is a JSON:API 404.
 */
import pg from 'pg';
import {
  ARTICLES_PAGE,
  ARTICLE_FILTERS,
  ARTICLE_INCLUDES,
  type CreateValues,
  HttpError,
  PEOPLE_PAGE,
  type Row,
  pageLinks,
  readGroupFilter,
  readQuery,
  serializers,
  serveBaseline,
} from './blog-api.js';

export interface PgBaselineOptions {
  /** The PostgreSQL URL of the demo's database, migrated and seeded. */
  databaseUrl: string;
  /** Port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  /** Called with every SQL statement run (the benchmark counts them). */
  onStatement?: (sql: string) => void;
}

export interface PgBaseline {
  url: string;
  close(): Promise<void>;
}

/** Starts the PostgreSQL baseline server; resolves once it listens. */
export async function startPgBaseline(options: PgBaselineOptions): Promise<PgBaseline> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
  pool.on('error', () => undefined); // a lost idle client is replaced by the pool
  const onStatement = options.onStatement;

  // One name per statement text, so each connection prepares each statement once.
  const names = new Map<string, string>();
  const config = (text: string, values: unknown[]) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `b${names.size}`));
    return { name, text, values };
  };
  type Client = pg.Pool | pg.PoolClient;
  const all = async (sql: string, params: unknown[], client: Client = pool): Promise<Row[]> => {
    onStatement?.(sql);
    return (await client.query(config(sql, params))).rows;
  };
  const get = async (sql: string, params: unknown[], client: Client = pool): Promise<Row | undefined> =>
    (await all(sql, params, client))[0];
  const iso = (value: Date) => value.toISOString();

  const { article, person, tag, comment, identifier } = serializers(iso);

  // ---- includes of articles, batched: one statement per relationship per level ----
  const includeArticles = async (
    base: string,
    rows: readonly Row[],
    objects: ReturnType<typeof article>[],
    include: Set<string>,
    exclude: Set<string>,
  ) => {
    const included: object[] = [];
    const seen = new Set<string>(exclude);
    const add = (key: string, make: () => object) => {
      if (seen.has(key)) return;
      seen.add(key);
      included.push(make());
    };
    if (rows.length === 0) return included;
    const ids = rows.map((r) => r.id);
    let comments: Row[] = [];
    if (include.has('comments'))
      comments = await all('select * from comments where article_id = any($1) order by id', [ids]);
    // People: the articles' authors and, with comments.author, the comments' authors, in one statement.
    const peopleById = new Map<number, Row>();
    const wantAuthors = include.has('author');
    const wantCommentAuthors = include.has('comments.author');
    if (wantAuthors || wantCommentAuthors) {
      const keys = new Set<number>();
      if (wantAuthors) for (const r of rows) keys.add(r.author_id);
      if (wantCommentAuthors) for (const c of comments) keys.add(c.author_id);
      const list = [...keys];
      for (const p of await all('select * from people where id = any($1)', [list])) peopleById.set(p.id, p);
    }
    if (wantAuthors) {
      rows.forEach((r, i) => {
        const p = peopleById.get(r.author_id);
        objects[i]!.relationships.author.data = p ? identifier('people', p.id) : null;
        if (p) add(`people:${p.id}`, () => person(base, p));
      });
    }
    if (include.has('comments')) {
      const byArticle = new Map<number, Row[]>(ids.map((id) => [id, []]));
      for (const c of comments) byArticle.get(c.article_id)!.push(c);
      const commentObjects: Array<[Row, ReturnType<typeof comment>]> = [];
      rows.forEach((r, i) => {
        objects[i]!.relationships.comments.data = byArticle.get(r.id)!.map((c) => {
          const key = `comments:${c.id}`;
          if (!seen.has(key)) {
            const object = comment(base, c);
            commentObjects.push([c, object]);
            add(key, () => object);
          }
          return identifier('comments', c.id);
        });
      });
      if (include.has('tags')) await includeTags();
      if (wantCommentAuthors) {
        for (const [c, object] of commentObjects) {
          const p = peopleById.get(c.author_id);
          object.relationships.author.data = p ? identifier('people', p.id) : null;
          if (p) add(`people:${p.id}`, () => person(base, p));
        }
      }
    } else if (include.has('tags')) {
      await includeTags();
    }
    async function includeTags() {
      const tagRows = await all(
        'select tags.*, article_tags.article_id as owner from tags join article_tags on article_tags.tag_id = tags.id where article_tags.article_id = any($1) order by tags.id',
        [ids],
      );
      const byArticle = new Map<number, Row[]>(ids.map((id) => [id, []]));
      for (const t of tagRows) byArticle.get(t.owner)!.push(t);
      rows.forEach((r, i) => {
        objects[i]!.relationships.tags.data = byArticle.get(r.id)!.map((t) => {
          add(`tags:${t.id}`, () => tag(base, t));
          return identifier('tags', t.id);
        });
      });
    }
    return included;
  };

  const listArticles = async (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, ARTICLES_PAGE, ARTICLE_INCLUDES, ARTICLE_FILTERS.slice(2));
    // Route g: "title contains, or by this author, or with this tag; with at least n comments".
    const group = readGroupFilter(query.params);
    const clause = group
      ? " where (title like '%' || $1 || '%' or author_id in (select id from people where name = $2)" +
        ' or id in (select article_id from article_tags join tags on tags.id = article_tags.tag_id where tags.name = $3))' +
        ' and (select count(*) from comments where comments.article_id = articles.id) >= $4'
      : '';
    const params = group ? [group.titleContains, group.authorName, group.tagName, group.minComments] : [];
    const n = params.length;
    // The count and the page do not depend on each other: both in flight at once.
    const [counted, rows] = await Promise.all([
      get(`select count(*)::int as count from articles${clause}`, params),
      all(`select * from articles${clause} order by created_at desc, id limit $${n + 1} offset $${n + 2}`, [
        ...params,
        query.limit,
        query.offset,
      ]),
    ]);
    const total = (counted as { count: number }).count;
    const data = rows.map((r) => article(base, r));
    const document: Row = {
      jsonapi: { version: '1.1' },
      links: { self: selfLink, ...pageLinks(base, path, query, rows.length, total) },
      data,
    };
    if (query.params.has('include')) {
      document.included = await includeArticles(
        base,
        rows,
        data,
        query.include,
        new Set(rows.map((r) => `articles:${r.id}`)),
      );
    }
    document.meta = { total };
    return document;
  };

  const showArticle = async (base: string, id: string, search: string, selfLink: string) => {
    const query = readQuery(search, undefined, ARTICLE_INCLUDES);
    const row =
      /^\d+$/.test(id) && Number(id) <= 2147483647
        ? await get('select * from articles where id = $1', [Number(id)])
        : undefined;
    if (!row) throw new HttpError(404, `There is no resource of type "articles" with id "${id}"`);
    const data = article(base, row);
    const document: Row = { jsonapi: { version: '1.1' }, links: { self: selfLink }, data };
    if (query.params.has('include'))
      document.included = await includeArticles(base, [row], [data], query.include, new Set([`articles:${row.id}`]));
    return document;
  };

  const listPeople = async (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, PEOPLE_PAGE, []);
    const rows = await all('select * from people order by name asc, id limit $1 offset $2', [
      query.limit,
      query.offset,
    ]);
    return {
      jsonapi: { version: '1.1' },
      links: { self: selfLink, ...pageLinks(base, path, query, rows.length, undefined) },
      data: rows.map((r) => person(base, r)),
    };
  };

  const createArticle = async (values: CreateValues): Promise<Row> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      onStatement?.('begin');
      // Both linkage checks in one query: does the author exist, how many of the tags do.
      const found = (await get(
        'select exists(select 1 from people where id = $1) as author, (select count(*)::int from tags where id = any($2)) as tags',
        [values.authorId, values.tagIds],
        client,
      ))!;
      if (!found.author)
        throw new HttpError(404, `There is no resource of type "people" with id "${values.authorId}"`, {
          pointer: '/data/relationships/author',
        });
      if (found.tags !== values.tagIds.length)
        throw new HttpError(404, 'A related tags resource does not exist', { pointer: '/data/relationships/tags' });
      const now = new Date().toISOString();
      const row =
        values.status === undefined
          ? await get(
              'insert into articles (title, body, author_id, created_at, updated_at) values ($1, $2, $3, $4, $5) returning *',
              [values.title, values.body ?? null, values.authorId, now, now],
              client,
            )
          : await get(
              'insert into articles (title, body, status, author_id, created_at, updated_at) values ($1, $2, $3, $4, $5, $6) returning *',
              [values.title, values.body ?? null, values.status, values.authorId, now, now],
              client,
            );
      if (values.tagIds.length > 0) {
        await all(
          'insert into article_tags (article_id, tag_id) select $1, unnest($2::int[])',
          [row!.id, values.tagIds],
          client,
        );
      }
      // The demo's outbox: one entry per article written, in the same transaction.
      await all(
        "insert into jsonapi_outbox (action, resource_type, resource_id, changed, occurred_at) values ('create', 'articles', $1, $2, $3)",
        [String(row!.id), values.changed, now],
        client,
      );
      await client.query('commit');
      onStatement?.('commit');
      return row!;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  return serveBaseline({ listArticles, showArticle, listPeople, createArticle, article }, options.port ?? 0, () =>
    pool.end(),
  );
}
