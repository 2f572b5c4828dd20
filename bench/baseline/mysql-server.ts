/**
 * The benchmark's MySQL / MariaDB baseline: `./pg-server.ts` ported to mysql2, as a careful
 * engineer writes it: a pool of 10, every statement prepared (`pool.execute`, which mysql2
 * prepares once per connection and statement text), `IN` lists with one placeholder per value
 * (MySQL has no array parameter: one statement shape per arity), batched include queries, one
 * `JSON.stringify` per response, the same documents as the demo. Date-times come back as the
 * server's text (`dateStrings`) and are sliced into RFC 3339. POST /articles in six statements:
 * BEGIN, both linkage checks in one query, INSERT (the row answered from what was written and
 * the insert id: MySQL has no RETURNING), the tag links in one multi-row INSERT, the outbox
 * entry, COMMIT. No response caching.
 *
 * Routes: GET /articles (page[limit], page[offset], include of author, tags, comments,
 * comments.author; default sort -createdAt; counted; route g's filter), GET /articles/{id},
 * POST /articles, GET /people (page; default sort name; not counted). Anything else is a
 * JSON:API 404.
 */
import mysql from 'mysql2/promise';
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

export interface MysqlBaselineOptions {
  /** The `mysql://` URL of the demo's database, migrated and seeded. */
  databaseUrl: string;
  /** Port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  /** Called with every SQL statement run (the benchmark counts them). */
  onStatement?: (sql: string) => void;
}

export interface MysqlBaseline {
  url: string;
  close(): Promise<void>;
}

/** `?, ?, ...`: one placeholder per value of an `IN` list. */
const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/**
 * A `datetime(3)` of a UTC session as RFC 3339 with milliseconds: the server's text is
 * `YYYY-MM-DD HH:MM:SS[.fff]` (no fraction when it is zero).
 */
const rfc3339 = (text: string) => `${text.slice(0, 10)}T${text.slice(11, 19)}.${(text.slice(20) + '000').slice(0, 3)}Z`;

/** Starts the MySQL baseline server; resolves once it listens. */
export async function startMysqlBaseline(options: MysqlBaselineOptions): Promise<MysqlBaseline> {
  const pool = mysql.createPool({ uri: options.databaseUrl, connectionLimit: 10, dateStrings: true, timezone: 'Z' });
  const onStatement = options.onStatement;

  type Client = mysql.Pool | mysql.PoolConnection;
  /** What the statements bind: ids, counts, text, and null for a missing body. */
  type Params = Array<string | number | null>;
  const all = async (sql: string, params: Params, client: Client = pool): Promise<Row[]> => {
    onStatement?.(sql);
    const [rows] = await client.execute(sql, params);
    return rows as Row[];
  };
  const get = async (sql: string, params: Params, client: Client = pool): Promise<Row | undefined> =>
    (await all(sql, params, client))[0];
  const write = async (sql: string, params: Params, client: Client): Promise<mysql.ResultSetHeader> => {
    onStatement?.(sql);
    const [result] = await client.execute<mysql.ResultSetHeader>(sql, params);
    return result;
  };

  const { article, person, tag, comment, identifier } = serializers(rfc3339);

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
    const ids = rows.map((r) => r.id as number);
    let comments: Row[] = [];
    if (include.has('comments'))
      comments = await all(`select * from comments where article_id in (${marks(ids.length)}) order by id`, ids);
    // People: the articles' authors and, with comments.author, the comments' authors, in one statement.
    const peopleById = new Map<number, Row>();
    const wantAuthors = include.has('author');
    const wantCommentAuthors = include.has('comments.author');
    if (wantAuthors || wantCommentAuthors) {
      const keys = new Set<number>();
      if (wantAuthors) for (const r of rows) keys.add(r.author_id);
      if (wantCommentAuthors) for (const c of comments) keys.add(c.author_id);
      const list = [...keys];
      for (const p of await all(`select * from people where id in (${marks(list.length)})`, list))
        peopleById.set(p.id, p);
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
        `select tags.*, article_tags.article_id as owner from tags join article_tags on article_tags.tag_id = tags.id where article_tags.article_id in (${marks(ids.length)}) order by tags.id`,
        ids,
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
      ? " where (title like concat('%', ?, '%') or author_id in (select id from people where name = ?)" +
        ' or id in (select article_id from article_tags join tags on tags.id = article_tags.tag_id where tags.name = ?))' +
        ' and (select count(*) from comments where comments.article_id = articles.id) >= ?'
      : '';
    const params = group ? [group.titleContains, group.authorName, group.tagName, group.minComments] : [];
    // The count and the page do not depend on each other: both in flight at once. LIMIT and
    // OFFSET go as text: MySQL 8's prepared statements refuse them as numbers.
    const [counted, rows] = await Promise.all([
      get(`select count(*) as count from articles${clause}`, params),
      all(`select * from articles${clause} order by created_at desc, id limit ? offset ?`, [
        ...params,
        String(query.limit),
        String(query.offset),
      ]),
    ]);
    const total = Number((counted as { count: number | string }).count);
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
        ? await get('select * from articles where id = ?', [Number(id)])
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
    const rows = await all('select * from people order by name asc, id limit ? offset ?', [
      String(query.limit),
      String(query.offset),
    ]);
    return {
      jsonapi: { version: '1.1' },
      links: { self: selfLink, ...pageLinks(base, path, query, rows.length, undefined) },
      data: rows.map((r) => person(base, r)),
    };
  };

  const createArticle = async (values: CreateValues): Promise<Row> => {
    const connection = await pool.getConnection();
    try {
      onStatement?.('begin');
      await connection.beginTransaction();
      // Both linkage checks in one query: does the author exist, how many of the tags do.
      const tagCheck =
        values.tagIds.length > 0 ? `(select count(*) from tags where id in (${marks(values.tagIds.length)}))` : '0';
      const found = (await get(
        `select exists(select 1 from people where id = ?) as author, ${tagCheck} as tags`,
        [values.authorId, ...values.tagIds],
        connection,
      ))!;
      if (!Number(found.author))
        throw new HttpError(404, `There is no resource of type "people" with id "${values.authorId}"`, {
          pointer: '/data/relationships/author',
        });
      if (Number(found.tags) !== values.tagIds.length)
        throw new HttpError(404, 'A related tags resource does not exist', { pointer: '/data/relationships/tags' });
      const now = new Date().toISOString();
      // MySQL's DATETIME takes `YYYY-MM-DD HH:MM:SS.fff` (MariaDB refuses RFC 3339's `T...Z`).
      const stored = `${now.slice(0, 10)} ${now.slice(11, 23)}`;
      // The column's default status, as the demo's schema declares it.
      const status = values.status ?? 'draft';
      const { insertId } = await write(
        'insert into articles (title, body, status, author_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
        [values.title, values.body ?? null, status, values.authorId, stored, stored],
        connection,
      );
      if (values.tagIds.length > 0) {
        await write(
          `insert into article_tags (article_id, tag_id) values ${values.tagIds.map(() => '(?, ?)').join(', ')}`,
          values.tagIds.flatMap((tagId) => [insertId, tagId]),
          connection,
        );
      }
      // The demo's outbox: one entry per article written, in the same transaction.
      await write(
        "insert into jsonapi_outbox (action, resource_type, resource_id, changed, occurred_at) values ('create', 'articles', ?, ?, ?)",
        [String(insertId), values.changed, stored],
        connection,
      );
      onStatement?.('commit');
      await connection.commit();
      return {
        id: insertId,
        title: values.title,
        body: values.body ?? null,
        status,
        author_id: values.authorId,
        created_at: stored,
        updated_at: stored,
      };
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    } finally {
      connection.release();
    }
  };

  return serveBaseline({ listArticles, showArticle, listPeople, createArticle, article }, options.port ?? 0, () =>
    pool.end(),
  );
}
