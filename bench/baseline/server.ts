/**
 * The benchmark's baseline: the blog's benchmarked routes written by hand on `node:http` and
 * better-sqlite3, no framework. What a careful engineer writes: prepared statements (one per
 * statement shape, `IN (...)` lists prepared once per arity), batched include queries, one
 * `JSON.stringify` per response, the same documents as the demo (same members, links, meta),
 * from the same database file with the same indexes. No response caching.
 *
 * Routes: GET /articles (page[limit], page[offset], include of author, tags, comments,
 * comments.author; filter[createdAt][gte] and filter[tags.name]; default sort -createdAt;
 * counted), GET /articles/{id}, POST /articles,
 * GET /people (page; default sort name; not counted). Anything else is a JSON:API 404.
 */
import SQLite from 'better-sqlite3';
import {
  ARTICLES_PAGE,
  ARTICLE_FILTERS,
  ARTICLE_INCLUDES,
  type CreateValues,
  HttpError,
  PEOPLE_PAGE,
  type Row,
  pageLinks,
  readArticleFilters,
  readGroupFilter,
  readQuery,
  serializers,
  serveBaseline,
} from './blog-api.js';

type Statement = SQLite.Statement<unknown[], Row>;

export interface BaselineOptions {
  /** The SQLite file, migrated and seeded (the demo's). */
  db: string;
  /** Port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  /** Called with every SQL statement run (the benchmark counts them). */
  onStatement?: (sql: string) => void;
}

export interface Baseline {
  url: string;
  close(): Promise<void>;
}

/** Starts the baseline server; resolves once it listens. */
export async function startBaseline(options: BaselineOptions): Promise<Baseline> {
  const sqlite = new SQLite(options.db);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  const onStatement = options.onStatement;

  const prepared = new Map<string, Statement>();
  const statement = (sql: string): Statement => {
    let s = prepared.get(sql);
    if (!s) prepared.set(sql, (s = sqlite.prepare(sql) as Statement));
    return s;
  };
  const all = (sql: string, params: unknown[]): Row[] => {
    onStatement?.(sql);
    return statement(sql).all(...params);
  };
  const get = (sql: string, params: unknown[]): Row | undefined => {
    onStatement?.(sql);
    return statement(sql).get(...params);
  };
  const run = (sql: string, params: unknown[]) => {
    onStatement?.(sql);
    return statement(sql).run(...params);
  };
  const marks = (n: number) => '?,'.repeat(n).slice(0, -1);

  const { article, person, tag, comment, identifier } = serializers((value) => value);

  // ---- includes of articles, batched: one statement per relationship per level ----
  const includeArticles = (
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
      comments = all(`select * from comments where article_id in (${marks(ids.length)}) order by id`, ids);
    // People: the articles' authors and, with comments.author, the comments' authors, in one statement.
    const peopleById = new Map<number, Row>();
    const wantAuthors = include.has('author');
    const wantCommentAuthors = include.has('comments.author');
    if (wantAuthors || wantCommentAuthors) {
      const keys = new Set<number>();
      if (wantAuthors) for (const r of rows) keys.add(r.author_id);
      if (wantCommentAuthors) for (const c of comments) keys.add(c.author_id);
      const list = [...keys];
      for (const p of all(`select * from people where id in (${marks(list.length)})`, list)) peopleById.set(p.id, p);
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
      if (include.has('tags')) includeTags();
      if (wantCommentAuthors) {
        for (const [c, object] of commentObjects) {
          const p = peopleById.get(c.author_id);
          object.relationships.author.data = p ? identifier('people', p.id) : null;
          if (p) add(`people:${p.id}`, () => person(base, p));
        }
      }
    } else if (include.has('tags')) {
      includeTags();
    }
    function includeTags() {
      const tagRows = all(
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

  const listArticles = (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, ARTICLES_PAGE, ARTICLE_INCLUDES, ARTICLE_FILTERS);
    // The filtered route of issue 25: what one writes by hand for "created since, with this tag".
    const filters = readArticleFilters(query.params);
    const where: string[] = [];
    const params: unknown[] = [];
    if (filters.createdAtGte !== undefined) {
      where.push('created_at >= ?');
      params.push(filters.createdAtGte);
    }
    if (filters.tagName !== undefined) {
      where.push(
        'id in (select article_id from article_tags join tags on tags.id = article_tags.tag_id where tags.name = ?)',
      );
      params.push(filters.tagName);
    }
    const group = readGroupFilter(query.params);
    if (group) {
      // Route g: glob is SQLite's case-sensitive match (the title has no glob characters to escape).
      where.push(
        '(title glob ? or author_id in (select id from people where name = ?)' +
          ' or id in (select article_id from article_tags join tags on tags.id = article_tags.tag_id where tags.name = ?))',
        '(select count(*) from comments where comments.article_id = articles.id) >= ?',
      );
      params.push(`*${group.titleContains}*`, group.authorName, group.tagName, group.minComments);
    }
    const clause = where.length > 0 ? ` where ${where.join(' and ')}` : '';
    const total = (get(`select count(*) as count from articles${clause}`, params) as { count: number }).count;
    const rows = all(`select * from articles${clause} order by created_at desc, id limit ? offset ?`, [
      ...params,
      query.limit,
      query.offset,
    ]);
    const data = rows.map((r) => article(base, r));
    const document: Row = {
      jsonapi: { version: '1.1' },
      links: { self: selfLink, ...pageLinks(base, path, query, rows.length, total) },
      data,
    };
    if (query.params.has('include')) {
      document.included = includeArticles(
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

  const showArticle = (base: string, id: string, search: string, selfLink: string) => {
    const query = readQuery(search, undefined, ARTICLE_INCLUDES);
    const row = /^\d+$/.test(id) ? get('select * from articles where id = ?', [Number(id)]) : undefined;
    if (!row) throw new HttpError(404, `There is no resource of type "articles" with id "${id}"`);
    const data = article(base, row);
    const document: Row = { jsonapi: { version: '1.1' }, links: { self: selfLink }, data };
    if (query.params.has('include'))
      document.included = includeArticles(base, [row], [data], query.include, new Set([`articles:${row.id}`]));
    return document;
  };

  const listPeople = (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, PEOPLE_PAGE, []);
    const rows = all('select * from people order by name asc, id limit ? offset ?', [query.limit, query.offset]);
    return {
      jsonapi: { version: '1.1' },
      links: { self: selfLink, ...pageLinks(base, path, query, rows.length, undefined) },
      data: rows.map((r) => person(base, r)),
    };
  };

  const inTransaction = sqlite.transaction((values: CreateValues) => {
    if (!get('select id from people where id = ?', [values.authorId]))
      throw new HttpError(404, `There is no resource of type "people" with id "${values.authorId}"`, {
        pointer: '/data/relationships/author',
      });
    if (values.tagIds.length > 0) {
      const found = all(`select id from tags where id in (${marks(values.tagIds.length)})`, values.tagIds);
      if (found.length !== values.tagIds.length)
        throw new HttpError(404, 'A related tags resource does not exist', { pointer: '/data/relationships/tags' });
    }
    const now = new Date().toISOString();
    const id =
      values.status === undefined
        ? run('insert into articles (title, body, author_id, created_at, updated_at) values (?, ?, ?, ?, ?)', [
            values.title,
            values.body ?? null,
            values.authorId,
            now,
            now,
          ]).lastInsertRowid
        : run(
            'insert into articles (title, body, status, author_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
            [values.title, values.body ?? null, values.status, values.authorId, now, now],
          ).lastInsertRowid;
    if (values.tagIds.length > 0) {
      run(
        `insert into article_tags (article_id, tag_id) values ${'(?, ?),'.repeat(values.tagIds.length).slice(0, -1)}`,
        values.tagIds.flatMap((t) => [id, t]),
      );
    }
    // The demo's outbox: one entry per article written, in the same transaction.
    run(
      "insert into jsonapi_outbox (action, resource_type, resource_id, changed, occurred_at) values ('create', 'articles', ?, ?, ?)",
      [String(id), values.changed, now],
    );
    return get('select * from articles where id = ?', [id])!;
  });
  const createArticle = (values: CreateValues) => {
    onStatement?.('begin');
    const row = inTransaction(values);
    onStatement?.('commit');
    return row;
  };

  return serveBaseline({ listArticles, showArticle, listPeople, createArticle, article }, options.port ?? 0, () => {
    sqlite.close();
    return Promise.resolve();
  });
}
