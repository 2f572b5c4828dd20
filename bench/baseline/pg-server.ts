/**
 * The benchmark's PostgreSQL baseline: `./server.ts` (the hand-written SQLite baseline) ported
 * to node-postgres, as a careful engineer writes it: a pool of 10, every statement named
 * (`{ name, text, values }`, so PostgreSQL parses and plans it once per connection), `IN` lists
 * as `= any($1)` (one statement shape whatever the arity), batched include queries, one
 * `JSON.stringify` per response, the same documents as the demo. POST /articles in five
 * statements: BEGIN, both linkage checks in one query, INSERT ... RETURNING, the tag links in
 * one INSERT ... SELECT unnest, COMMIT. No response caching.
 *
 * Routes: GET /articles (page[limit], page[offset], include of author, tags, comments,
 * comments.author; default sort -createdAt; counted), GET /articles/{id}, POST /articles,
 * GET /people (page; default sort name; not counted). Anything else is a JSON:API 404.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

type Row = Record<string, any>;

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
  const get = async (sql: string, params: unknown[], client: Client = pool): Promise<Row | undefined> => (await all(sql, params, client))[0];
  const iso = (value: Date) => value.toISOString();

  // ---- serializers: the demo's documents, member by member ----
  const article = (base: string, row: Row) => {
    const self = `${base}/articles/${row.id}`;
    return {
      type: 'articles',
      id: String(row.id),
      attributes: { title: row.title, body: row.body, status: row.status, createdAt: iso(row.created_at), updatedAt: iso(row.updated_at) },
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
      attributes: { name: row.name, email: row.email, createdAt: iso(row.created_at) },
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
      attributes: { body: row.body, createdAt: iso(row.created_at) },
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
  const includeArticles = async (base: string, rows: readonly Row[], objects: ReturnType<typeof article>[], include: Set<string>, exclude: Set<string>) => {
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
    if (include.has('comments')) comments = await all('select * from comments where article_id = any($1) order by id', [ids]);
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

  const ARTICLE_INCLUDES = ['author', 'tags', 'comments', 'comments.author'];

  const listArticles = async (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, ARTICLES_PAGE, ARTICLE_INCLUDES);
    // The count and the page do not depend on each other: both in flight at once.
    const [counted, rows] = await Promise.all([
      get('select count(*)::int as count from articles', []),
      all('select * from articles order by created_at desc, id limit $1 offset $2', [query.limit, query.offset]),
    ]);
    const total = (counted as { count: number }).count;
    const data = rows.map((r) => article(base, r));
    const document: Row = { jsonapi: { version: '1.1' }, links: { self: selfLink, ...pageLinks(base, path, query, rows.length, total) }, data };
    if (query.params.has('include')) {
      document.included = await includeArticles(base, rows, data, query.include, new Set(rows.map((r) => `articles:${r.id}`)));
    }
    document.meta = { total };
    return document;
  };

  const showArticle = async (base: string, id: string, search: string, selfLink: string) => {
    const query = readQuery(search, undefined, ARTICLE_INCLUDES);
    const row = /^\d+$/.test(id) && Number(id) <= 2147483647 ? await get('select * from articles where id = $1', [Number(id)]) : undefined;
    if (!row) throw new HttpError(404, `There is no articles with id "${id}"`);
    const data = article(base, row);
    const document: Row = { jsonapi: { version: '1.1' }, links: { self: selfLink }, data };
    if (query.params.has('include')) document.included = await includeArticles(base, [row], [data], query.include, new Set([`articles:${row.id}`]));
    return document;
  };

  const listPeople = async (base: string, path: string, search: string, selfLink: string) => {
    const query = readQuery(search, PEOPLE_PAGE, []);
    const rows = await all('select * from people order by name asc, id limit $1 offset $2', [query.limit, query.offset]);
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

  const createArticle = async (values: ReturnType<typeof readCreate>): Promise<Row> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      onStatement?.('begin');
      // Both linkage checks in one query: does the author exist, how many of the tags do.
      const found = (await get('select exists(select 1 from people where id = $1) as author, (select count(*)::int from tags where id = any($2)) as tags', [values.authorId, values.tagIds], client))!;
      if (!found.author) throw new HttpError(404, `There is no people with id "${values.authorId}"`, { pointer: '/data/relationships/author' });
      if (found.tags !== values.tagIds.length) throw new HttpError(404, 'A related tags resource does not exist', { pointer: '/data/relationships/tags' });
      const now = new Date().toISOString();
      const row =
        values.status === undefined
          ? await get('insert into articles (title, body, author_id, created_at, updated_at) values ($1, $2, $3, $4, $5) returning *', [values.title, values.body ?? null, values.authorId, now, now], client)
          : await get('insert into articles (title, body, status, author_id, created_at, updated_at) values ($1, $2, $3, $4, $5, $6) returning *', [values.title, values.body ?? null, values.status, values.authorId, now, now], client);
      if (values.tagIds.length > 0) {
        await all('insert into article_tags (article_id, tag_id) select $1, unnest($2::int[])', [row!.id, values.tagIds], client);
      }
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
      if (method === 'GET') return send(res, 200, await listArticles(base, path, search, selfLink));
      if (method === 'POST') {
        const type = req.headers['content-type'];
        if (type !== MEDIA_TYPE) throw new HttpError(415, `Content-Type must be ${MEDIA_TYPE}`, { header: 'Content-Type' });
        readQuery(search, undefined, []);
        const values = readCreate(await readBody(req));
        const data = article(base, await createArticle(values));
        return send(res, 201, { jsonapi: { version: '1.1' }, links: { self: data.links.self }, data }, { location: data.links.self });
      }
      throw new HttpError(405, `${req.method} is not allowed here`);
    }
    if (path.startsWith('/articles/') && path.indexOf('/', 10) === -1) {
      if (method === 'GET') return send(res, 200, await showArticle(base, decodeURIComponent(path.slice(10)), search, selfLink));
      throw new HttpError(405, `${req.method} is not allowed here`);
    }
    if (path === '/people') {
      if (method === 'GET') return send(res, 200, await listPeople(base, path, search, selfLink));
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
      await pool.end();
    },
  };
}
