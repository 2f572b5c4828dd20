/**
 * The benchmark's baseline: the blog's benchmarked routes written by hand on `node:http` and
 * better-sqlite3, no framework. What a careful engineer writes: prepared statements (one per
 * statement shape, `IN (...)` lists prepared once per arity), batched include queries, one
 * `JSON.stringify` per response, the same documents as the demo (same members, links, meta),
 * from the same database file with the same indexes. No response caching.
 *
 * Routes: GET /articles (page[limit], page[offset], include of author, tags, comments,
 * comments.author; default sort -createdAt; counted), GET /articles/{id}, POST /articles,
 * GET /people (page; default sort name; not counted). Anything else is a JSON:API 404.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import SQLite from 'better-sqlite3';

type Row = Record<string, any>;
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

const MEDIA_TYPE = 'application/vnd.api+json';
const JSON_HEADERS = { 'content-type': MEDIA_TYPE, vary: 'Accept' };
const ARTICLES_PAGE = { defaultLimit: 20, maxLimit: 50 };
const PEOPLE_PAGE = { defaultLimit: 20, maxLimit: 50 };
const MAX_OFFSET = 100_000;
const MAX_BODY = 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly source?: Record<string, string>,
  ) {
    super(detail);
  }
}

/** Links must be RFC 3986 URIs: what WHATWG URLs leave raw in a query is percent-encoded. */
const NOT_URI = /[\u0000-\u0020"#<>[\]{}|\\^`\u007f-\uffff]|%(?![0-9A-Fa-f]{2})/g;
function escapeUri(text: string): string {
  return text.replace(NOT_URI, (c) => encodeURIComponent(c).replace(/[[\]{}|\\^`]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`));
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

  // ---- serializers: the demo's documents, member by member ----
  const article = (base: string, row: Row) => {
    const self = `${base}/articles/${row.id}`;
    return {
      type: 'articles',
      id: String(row.id),
      attributes: { title: row.title, body: row.body, status: row.status, createdAt: row.created_at, updatedAt: row.updated_at },
      relationships: {
        author: { links: { self: `${self}/relationships/author`, related: `${self}/author` } } as Row,
        comments: { links: { self: `${self}/relationships/comments`, related: `${self}/comments` } } as Row,
        tags: { links: { self: `${self}/relationships/tags`, related: `${self}/tags` } } as Row,
      },
      links: { self },
    };
  };
  const person = (base: string, row: Row) => {
    const self = `${base}/people/${row.id}`;
    return {
      type: 'people',
      id: String(row.id),
      attributes: { name: row.name, email: row.email, createdAt: row.created_at },
      relationships: { articles: { links: { self: `${self}/relationships/articles`, related: `${self}/articles` } } },
      links: { self },
    };
  };
  const tag = (base: string, row: Row) => {
    const self = `${base}/tags/${row.id}`;
    return {
      type: 'tags',
      id: String(row.id),
      attributes: { name: row.name },
      relationships: { articles: { links: { self: `${self}/relationships/articles`, related: `${self}/articles` } } },
      links: { self },
    };
  };
  const comment = (base: string, row: Row) => {
    const self = `${base}/comments/${row.id}`;
    return {
      type: 'comments',
      id: String(row.id),
      attributes: { body: row.body, createdAt: row.created_at },
      relationships: {
        author: { links: { self: `${self}/relationships/author`, related: `${self}/author` } } as Row,
        article: { links: { self: `${self}/relationships/article`, related: `${self}/article` } } as Row,
      },
      links: { self },
    };
  };
  const identifier = (type: string, id: unknown) => ({ type, id: String(id) });

  // ---- query parameters ----
  interface Query {
    limit: number;
    offset: number;
    include: Set<string>;
    params: URLSearchParams;
  }
  const pageNumber = (params: URLSearchParams, name: string, min: number): number | undefined => {
    const raw = params.get(name);
    if (raw === null) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < min) throw new HttpError(400, `${name} must be an integer of at least ${min}`, { parameter: name });
    return Number(raw);
  };
  const readQuery = (search: string, page: { defaultLimit: number; maxLimit: number } | undefined, includable: readonly string[]): Query => {
    const params = new URLSearchParams(search);
    const include = new Set<string>();
    for (const name of params.keys()) {
      if (name === 'include' || (page && (name === 'page[limit]' || name === 'page[offset]'))) continue;
      throw new HttpError(400, `${name} is not supported here`, { parameter: name });
    }
    const includeValue = params.get('include');
    if (includeValue) {
      for (const path of includeValue.split(',')) {
        if (!includable.includes(path)) throw new HttpError(400, `"${path}" is not an includable relationship`, { parameter: 'include' });
        include.add(path);
        if (path.includes('.')) include.add(path.slice(0, path.indexOf('.')));
      }
    }
    const offset = page ? (pageNumber(params, 'page[offset]', 0) ?? 0) : 0;
    if (offset > MAX_OFFSET) throw new HttpError(400, `page[offset] may be at most ${MAX_OFFSET}`, { parameter: 'page[offset]' });
    const limit = page ? Math.min(pageNumber(params, 'page[limit]', 1) ?? page.defaultLimit, page.maxLimit) : 0;
    return { limit, offset, include, params };
  };

  /** first / prev / next / last, keeping the other parameters. */
  const pageLinks = (base: string, path: string, query: Query, count: number, total: number | undefined) => {
    const at = (offset: number) => {
      const params = new URLSearchParams(query.params);
      params.delete('page[offset]');
      params.delete('page[limit]');
      if (offset > 0) params.set('page[offset]', String(offset));
      params.set('page[limit]', String(query.limit));
      return `${base}${path}?${params.toString()}`;
    };
    const { offset, limit } = query;
    const hasNext = total === undefined ? count >= limit : offset + limit < total;
    const links: Record<string, string | null> = { first: at(0), prev: offset > 0 ? at(Math.max(0, offset - limit)) : null, next: hasNext ? at(offset + limit) : null };
    if (total !== undefined) links.last = at(total === 0 ? 0 : Math.floor((total - 1) / limit) * limit);
    return links;
  };

  // ---- includes of articles, batched: one statement per relationship per level ----
  const includeArticles = (base: string, rows: readonly Row[], objects: ReturnType<typeof article>[], include: Set<string>, exclude: Set<string>) => {
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
    if (include.has('comments')) comments = all(`select * from comments where article_id in (${marks(ids.length)}) order by id`, ids);
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

  const ARTICLE_INCLUDES = ['author', 'tags', 'comments', 'comments.author'];

  const listArticles = (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, ARTICLES_PAGE, ARTICLE_INCLUDES);
    const total = (get('select count(*) as count from articles', []) as { count: number }).count;
    const rows = all('select * from articles order by created_at desc, id limit ? offset ?', [query.limit, query.offset]);
    const data = rows.map((r) => article(base, r));
    const document: Row = { jsonapi: { version: '1.1' }, links: { self: selfLink, ...pageLinks(base, path, query, rows.length, total) }, data };
    if (query.params.has('include')) {
      document.included = includeArticles(base, rows, data, query.include, new Set(rows.map((r) => `articles:${r.id}`)));
    }
    document.meta = { total };
    return document;
  };

  const showArticle = (base: string, id: string, search: string, selfLink: string) => {
    const query = readQuery(search, undefined, ARTICLE_INCLUDES);
    const row = /^\d+$/.test(id) ? get('select * from articles where id = ?', [Number(id)]) : undefined;
    if (!row) throw new HttpError(404, `There is no articles with id "${id}"`);
    const data = article(base, row);
    const document: Row = { jsonapi: { version: '1.1' }, links: { self: selfLink }, data };
    if (query.params.has('include')) document.included = includeArticles(base, [row], [data], query.include, new Set([`articles:${row.id}`]));
    return document;
  };

  const listPeople = (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, PEOPLE_PAGE, []);
    const rows = all('select * from people order by name asc, id limit ? offset ?', [query.limit, query.offset]);
    return { jsonapi: { version: '1.1' }, links: { self: selfLink, ...pageLinks(base, path, query, rows.length, undefined) }, data: rows.map((r) => person(base, r)) };
  };

  /** The checked columns of a create document, or a 4xx. */
  const readCreate = (body: string) => {
    let document: any;
    try {
      document = JSON.parse(body);
    } catch {
      throw new HttpError(400, 'The request body is not valid JSON');
    }
    const data = document?.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new HttpError(400, 'data must be a resource object', { pointer: '/data' });
    if (data.type !== 'articles') throw new HttpError(409, 'data.type must be "articles"', { pointer: '/data/type' });
    if (data.id !== undefined) throw new HttpError(403, 'Client-generated ids are not supported', { pointer: '/data/id' });
    const attributes = data.attributes ?? {};
    const relationships = data.relationships ?? {};
    if (typeof attributes !== 'object' || typeof relationships !== 'object') throw new HttpError(400, 'attributes and relationships must be objects', { pointer: '/data' });
    for (const name of Object.keys(attributes)) {
      if (!['title', 'body', 'status'].includes(name)) throw new HttpError(400, `articles has no writable attribute "${name}"`, { pointer: `/data/attributes/${name}` });
    }
    for (const name of Object.keys(relationships)) {
      if (!['author', 'tags'].includes(name)) throw new HttpError(400, `articles has no writable relationship "${name}"`, { pointer: `/data/relationships/${name}` });
    }
    if (typeof attributes.title !== 'string') throw new HttpError(422, 'title is required and must be a string', { pointer: '/data/attributes/title' });
    if (attributes.body !== undefined && attributes.body !== null && typeof attributes.body !== 'string') {
      throw new HttpError(422, 'body must be a string or null', { pointer: '/data/attributes/body' });
    }
    if (attributes.status !== undefined && attributes.status !== 'draft' && attributes.status !== 'published') {
      throw new HttpError(422, 'status must be draft or published', { pointer: '/data/attributes/status' });
    }
    const author = relationships.author?.data;
    if (!author || author.type !== 'people' || typeof author.id !== 'string' || !/^\d+$/.test(author.id)) {
      throw new HttpError(422, 'author is required: a people identifier', { pointer: '/data/relationships/author' });
    }
    const tagLinkage = relationships.tags?.data ?? [];
    if (!Array.isArray(tagLinkage) || tagLinkage.some((t: any) => t?.type !== 'tags' || typeof t.id !== 'string' || !/^\d+$/.test(t.id))) {
      throw new HttpError(422, 'tags must be a list of tags identifiers', { pointer: '/data/relationships/tags' });
    }
    const tagIds = [...new Set(tagLinkage.map((t: any) => Number(t.id)))] as number[];
    return { title: attributes.title as string, body: attributes.body as string | null | undefined, status: attributes.status as string | undefined, authorId: Number(author.id), tagIds };
  };

  const inTransaction = sqlite.transaction((values: ReturnType<typeof readCreate>) => {
    if (!get('select id from people where id = ?', [values.authorId])) throw new HttpError(404, `There is no people with id "${values.authorId}"`, { pointer: '/data/relationships/author' });
    if (values.tagIds.length > 0) {
      const found = all(`select id from tags where id in (${marks(values.tagIds.length)})`, values.tagIds);
      if (found.length !== values.tagIds.length) throw new HttpError(404, 'A related tags resource does not exist', { pointer: '/data/relationships/tags' });
    }
    const now = new Date().toISOString();
    const id =
      values.status === undefined
        ? run('insert into articles (title, body, author_id, created_at, updated_at) values (?, ?, ?, ?, ?)', [values.title, values.body ?? null, values.authorId, now, now]).lastInsertRowid
        : run('insert into articles (title, body, status, author_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)', [values.title, values.body ?? null, values.status, values.authorId, now, now]).lastInsertRowid;
    if (values.tagIds.length > 0) {
      run(`insert into article_tags (article_id, tag_id) values ${'(?, ?),'.repeat(values.tagIds.length).slice(0, -1)}`, values.tagIds.flatMap((t) => [id, t]));
    }
    return get('select * from articles where id = ?', [id])!;
  });
  const createArticle = (values: ReturnType<typeof readCreate>) => {
    onStatement?.('begin');
    const row = inTransaction(values);
    onStatement?.('commit');
    return row;
  };

  const send = (res: ServerResponse, status: number, document: object, extra?: Record<string, string>) => {
    const body = JSON.stringify(document);
    res.writeHead(status, { ...JSON_HEADERS, ...extra, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY) reject(new HttpError(413, 'The request body is too large'));
        else chunks.push(chunk);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q === -1 ? raw : raw.slice(0, q);
    const search = q === -1 ? '' : raw.slice(q);
    const base = `http://${req.headers.host ?? 'localhost'}`;
    const selfLink = escapeUri(base + path + (search === '?' ? '' : search));
    const accept = req.headers.accept;
    if (accept && accept.includes(MEDIA_TYPE) && !/application\/vnd\.api\+json\s*(,|$)/.test(accept) && !accept.includes('*/*')) {
      throw new HttpError(406, 'Every JSON:API media type in Accept has parameters');
    }
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (path === '/articles') {
      if (method === 'GET') return send(res, 200, listArticles(base, path, search, selfLink));
      if (method === 'POST') {
        const type = req.headers['content-type'];
        if (type !== MEDIA_TYPE) throw new HttpError(415, `Content-Type must be ${MEDIA_TYPE}`, { header: 'Content-Type' });
        readQuery(search, undefined, []);
        const values = readCreate(await readBody(req));
        const data = article(base, createArticle(values));
        return send(res, 201, { jsonapi: { version: '1.1' }, links: { self: data.links.self }, data }, { location: data.links.self });
      }
      throw new HttpError(405, `${req.method} is not allowed here`);
    }
    if (path.startsWith('/articles/') && path.indexOf('/', 10) === -1) {
      if (method === 'GET') return send(res, 200, showArticle(base, decodeURIComponent(path.slice(10)), search, selfLink));
      throw new HttpError(405, `${req.method} is not allowed here`);
    }
    if (path === '/people') {
      if (method === 'GET') return send(res, 200, listPeople(base, path, search, selfLink));
      throw new HttpError(405, `${req.method} is not allowed here`);
    }
    throw new HttpError(404, `Nothing is served at ${path}`);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) {
        const object: Row = { status: String(error.status), title: error.message, detail: error.detail };
        if (error.source) object.source = error.source;
        return send(res, error.status, { jsonapi: { version: '1.1' }, errors: [object] });
      }
      console.error(error);
      send(res, 500, { jsonapi: { version: '1.1' }, errors: [{ status: '500', title: 'Internal Server Error' }] });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      sqlite.close();
    },
  };
}
