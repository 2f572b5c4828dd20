/**
 * What the hand-written baselines (`./server.ts` on better-sqlite3, `./pg-server.ts` on
 * node-postgres) share: the demo's documents member by member, query and create-document
 * parsing, and the `node:http` server around their queries. Only the statements differ.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Row = Record<string, any>;

export const MEDIA_TYPE = 'application/vnd.api+json';
export const JSON_HEADERS = { 'content-type': MEDIA_TYPE, vary: 'Accept' };
export const ARTICLES_PAGE = { defaultLimit: 20, maxLimit: 50 };
export const PEOPLE_PAGE = { defaultLimit: 20, maxLimit: 50 };
export const MAX_OFFSET = 100_000;
export const MAX_BODY = 1024 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly source?: Record<string, string>,
  ) {
    super(detail);
  }
}

/** Links must be RFC 3986 URIs: what WHATWG URLs leave raw in a query is percent-encoded. */
// eslint-disable-next-line no-control-regex -- control characters are among what must be percent-encoded
const NOT_URI = /[\u0000-\u0020"#<>[\]{}|\\^`\u007f-\uffff]|%(?![0-9A-Fa-f]{2})/g;
export function escapeUri(text: string): string {
  return text.replace(NOT_URI, (c) =>
    encodeURIComponent(c).replace(/[[\]{}|\\^`]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`),
  );
}

export const ARTICLE_INCLUDES = ['author', 'tags', 'comments', 'comments.author'];

/** The serializers, given how the database's timestamps become their JSON text. */
export function serializers(time: (value: any) => unknown) {
  const article = (base: string, row: Row) => {
    const self = `${base}/articles/${row.id}`;
    return {
      type: 'articles',
      id: String(row.id),
      attributes: {
        title: row.title,
        body: row.body,
        status: row.status,
        createdAt: time(row.created_at),
        updatedAt: time(row.updated_at),
      },
      relationships: {
        author: { links: { self: `${self}/relationships/author`, related: `${self}/author` } } as Row,
        comments: { links: { self: `${self}/relationships/comments`, related: `${self}/comments` } } as Row,
        tags: { links: { self: `${self}/relationships/tags`, related: `${self}/tags` } } as Row,
      },
      links: { self },
      // The demo's `meta.wordCount`: the words of the body, 0 without one.
      meta: { wordCount: typeof row.body === 'string' ? row.body.split(/\s+/).filter(Boolean).length : 0 },
    };
  };
  const person = (base: string, row: Row) => {
    const self = `${base}/people/${row.id}`;
    return {
      type: 'people',
      id: String(row.id),
      attributes: { name: row.name, email: row.email, createdAt: time(row.created_at) },
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
      attributes: { body: row.body, createdAt: time(row.created_at) },
      relationships: {
        author: { links: { self: `${self}/relationships/author`, related: `${self}/author` } } as Row,
        article: { links: { self: `${self}/relationships/article`, related: `${self}/article` } } as Row,
      },
      links: { self },
    };
  };
  const identifier = (type: string, id: unknown) => ({ type, id: String(id) });
  return { article, person, tag, comment, identifier };
}

// ---- query parameters ----
export interface Query {
  limit: number;
  offset: number;
  include: Set<string>;
  params: URLSearchParams;
}
const pageNumber = (params: URLSearchParams, name: string, min: number): number | undefined => {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min)
    throw new HttpError(400, `${name} must be an integer of at least ${min}`, { parameter: name });
  return Number(raw);
};
export const readQuery = (
  search: string,
  page: { defaultLimit: number; maxLimit: number } | undefined,
  includable: readonly string[],
  filters: readonly string[] = [],
): Query => {
  const params = new URLSearchParams(search);
  const include = new Set<string>();
  for (const name of params.keys()) {
    if (name === 'include' || filters.includes(name) || (page && (name === 'page[limit]' || name === 'page[offset]')))
      continue;
    throw new HttpError(400, `${name} is not supported here`, { parameter: name });
  }
  const includeValue = params.get('include');
  if (includeValue) {
    for (const path of includeValue.split(',')) {
      if (!includable.includes(path))
        throw new HttpError(400, `"${path}" is not an includable relationship`, { parameter: 'include' });
      include.add(path);
      if (path.includes('.')) include.add(path.slice(0, path.indexOf('.')));
    }
  }
  const offset = page ? (pageNumber(params, 'page[offset]', 0) ?? 0) : 0;
  if (offset > MAX_OFFSET)
    throw new HttpError(400, `page[offset] may be at most ${MAX_OFFSET}`, { parameter: 'page[offset]' });
  const limit = page ? Math.min(pageNumber(params, 'page[limit]', 1) ?? page.defaultLimit, page.maxLimit) : 0;
  return { limit, offset, include, params };
};

/**
 * The filters the baseline's GET /articles takes: the benchmark's filtered route (issue 25), and
 * route g's "title contains, or by this author, or with this tag; with at least n comments".
 */
export const ARTICLE_FILTERS = [
  'filter[createdAt][gte]',
  'filter[tags.name]',
  'filter[or][0][title][contains]',
  'filter[or][1][author.name]',
  'filter[or][2][tags.name]',
  'filter[commentCount][gte]',
];

/** Route g's filter, hand-written for that one shape: all four parameters, or none. */
export interface GroupFilter {
  titleContains: string;
  authorName: string;
  tagName: string;
  minComments: number;
}

/** Route g's parameters, undefined when absent (400 when only some are given, or the count is not an integer). */
export const readGroupFilter = (params: URLSearchParams): GroupFilter | undefined => {
  const values = ARTICLE_FILTERS.slice(2).map((name) => params.get(name));
  if (values.every((v) => v === null)) return undefined;
  const [titleContains, authorName, tagName, minComments] = values;
  if (titleContains == null || authorName == null || tagName == null || minComments == null)
    throw new HttpError(400, 'this baseline takes the or group and the count filter together', { parameter: 'filter' });
  if (!/^-?\d+$/.test(minComments))
    throw new HttpError(400, 'filter[commentCount][gte] must be an integer', {
      parameter: 'filter[commentCount][gte]',
    });
  return { titleContains, authorName, tagName, minComments: Number(minComments) };
};

/** An RFC 3339 date-time, as the demo accepts it for `filter[createdAt][gte]`. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * `filter[createdAt][gte]` normalised to UTC ISO text (how the demo compares it with the stored
 * `created_at`), and `filter[tags.name]`, each undefined when absent.
 */
export const readArticleFilters = (params: URLSearchParams): { createdAtGte?: string; tagName?: string } => {
  const gte = params.get('filter[createdAt][gte]');
  if (gte !== null && (!DATE_TIME.test(gte) || Number.isNaN(Date.parse(gte))))
    throw new HttpError(400, 'filter[createdAt][gte] must be an RFC 3339 date-time', {
      parameter: 'filter[createdAt][gte]',
    });
  const tagName = params.get('filter[tags.name]');
  return { ...(gte !== null && { createdAtGte: new Date(gte).toISOString() }), ...(tagName !== null && { tagName }) };
};

/** first / prev / next / last, keeping the other parameters. */
export const pageLinks = (base: string, path: string, query: Query, count: number, total: number | undefined) => {
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
  const links: Record<string, string | null> = {
    first: at(0),
    prev: offset > 0 ? at(Math.max(0, offset - limit)) : null,
    next: hasNext ? at(offset + limit) : null,
  };
  if (total !== undefined) links.last = at(total === 0 ? 0 : Math.floor((total - 1) / limit) * limit);
  return links;
};

/** The checked columns of a create document, or a 4xx. */
export const readCreate = (body: string) => {
  let document: any;
  try {
    document = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON');
  }
  const data = document?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new HttpError(400, 'data must be a resource object', { pointer: '/data' });
  if (data.type !== 'articles') throw new HttpError(409, 'data.type must be "articles"', { pointer: '/data/type' });
  if (data.id !== undefined)
    throw new HttpError(403, 'Client-generated ids are not supported', { pointer: '/data/id' });
  const attributes = data.attributes ?? {};
  const relationships = data.relationships ?? {};
  if (typeof attributes !== 'object' || typeof relationships !== 'object')
    throw new HttpError(400, 'attributes and relationships must be objects', { pointer: '/data' });
  for (const name of Object.keys(attributes)) {
    if (!['title', 'body', 'status'].includes(name))
      throw new HttpError(400, `articles has no writable attribute "${name}"`, { pointer: `/data/attributes/${name}` });
  }
  for (const name of Object.keys(relationships)) {
    if (!['author', 'tags'].includes(name))
      throw new HttpError(400, `articles has no writable relationship "${name}"`, {
        pointer: `/data/relationships/${name}`,
      });
  }
  if (typeof attributes.title !== 'string')
    throw new HttpError(422, 'title is required and must be a string', { pointer: '/data/attributes/title' });
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
  if (
    !Array.isArray(tagLinkage) ||
    tagLinkage.some((t: any) => t?.type !== 'tags' || typeof t.id !== 'string' || !/^\d+$/.test(t.id))
  ) {
    throw new HttpError(422, 'tags must be a list of tags identifiers', { pointer: '/data/relationships/tags' });
  }
  const tagIds = [...new Set(tagLinkage.map((t: any) => Number(t.id)))] as number[];
  return {
    title: attributes.title as string,
    body: attributes.body as string | null | undefined,
    status: attributes.status as string | undefined,
    authorId: Number(author.id),
    tagIds,
    /** The members written, for the outbox entry (`status` has a default, so it is always written). */
    changed: JSON.stringify(
      [...Object.keys(attributes), 'status', ...Object.keys(relationships)]
        .filter((m, i, all) => all.indexOf(m) === i)
        .sort(),
    ),
  };
};

/** The checked columns of a create document. */
export type CreateValues = ReturnType<typeof readCreate>;

/** A baseline's routes: documents from its own queries, answered at once (SQLite) or later (PostgreSQL). */
export interface BaselineRoutes {
  listArticles(base: string, path: string, search: string, selfLink: string): object | Promise<object>;
  showArticle(base: string, id: string, search: string, selfLink: string): object | Promise<object>;
  listPeople(base: string, path: string, search: string, selfLink: string): object | Promise<object>;
  createArticle(values: CreateValues): Row | Promise<Row>;
  article(base: string, row: Row): { links: { self: string } };
}

/** Serves `routes` on 127.0.0.1:`port` (0: a free one); `close` releases the database. */
export async function serveBaseline(
  routes: BaselineRoutes,
  port: number,
  close: () => Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  const send = (res: ServerResponse, status: number, document: object, extra?: Record<string, string>) => {
    const body = JSON.stringify(document);
    res.writeHead(status, { ...JSON_HEADERS, ...extra, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  /** 200 with a route's document: at once when the route answered at once (no microtask turn for SQLite). */
  const answer = (res: ServerResponse, document: object | Promise<object>) =>
    document instanceof Promise ? document.then((d) => send(res, 200, d)) : send(res, 200, document);

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
    if (
      accept &&
      accept.includes(MEDIA_TYPE) &&
      !/application\/vnd\.api\+json\s*(,|$)/.test(accept) &&
      !accept.includes('*/*')
    ) {
      throw new HttpError(406, 'Every JSON:API media type in Accept has parameters');
    }
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (path === '/articles') {
      if (method === 'GET') return answer(res, routes.listArticles(base, path, search, selfLink));
      if (method === 'POST') {
        const type = req.headers['content-type'];
        if (type !== MEDIA_TYPE)
          throw new HttpError(415, `Content-Type must be ${MEDIA_TYPE}`, { header: 'Content-Type' });
        readQuery(search, undefined, []);
        const values = readCreate(await readBody(req));
        const created = routes.createArticle(values);
        const data = routes.article(base, created instanceof Promise ? await created : created);
        return send(
          res,
          201,
          { jsonapi: { version: '1.1' }, links: { self: data.links.self }, data },
          { location: data.links.self },
        );
      }
      throw new HttpError(405, `${req.method} is not allowed here`);
    }
    if (path.startsWith('/articles/') && path.indexOf('/', 10) === -1) {
      if (method === 'GET')
        return answer(res, routes.showArticle(base, decodeURIComponent(path.slice(10)), search, selfLink));
      throw new HttpError(405, `${req.method} is not allowed here`);
    }
    if (path === '/people') {
      if (method === 'GET') return answer(res, routes.listPeople(base, path, search, selfLink));
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
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
    },
  };
}
