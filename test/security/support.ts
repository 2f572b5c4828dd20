/**
 * Shared helpers of the security suites: table dumps (to prove a refused request wrote
 * nothing), a walk over every resource object and identifier of a document, and raw HTTP.
 */
import { connect } from 'node:net';
import type { Kysely } from 'kysely';
import type { Database } from '../../examples/blog/db.js';

const TABLES = ['people', 'articles', 'comments', 'tags', 'article_tags'] as const;

/** Every row of every table, in a stable order, as one string (timestamps normalised). */
export async function dump(db: Kysely<Database>): Promise<string> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    let query = db.selectFrom(table).selectAll();
    for (const column of table === 'article_tags' ? ['article_id', 'tag_id'] : ['id'])
      query = query.orderBy(column as any);
    const rows = await query.execute();
    out[table] = rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
    );
  }
  return JSON.stringify(out);
}

/** Row counts per table. */
export async function counts(db: Kysely<Database>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

/** `type/id` of every resource object and resource identifier anywhere in a document. */
export function identifiers(document: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const object = value as Record<string, unknown>;
    if (typeof object.type === 'string' && typeof object.id === 'string') found.push(`${object.type}/${object.id}`);
    for (const [key, member] of Object.entries(object)) {
      // links are URLs (they may echo what the client asked for), errors echo ids the client sent
      if (key !== 'links' && key !== 'errors') visit(member);
    }
  };
  visit(document);
  return found;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The whole response as received. */
  raw: string;
}

/**
 * Sends `request` byte for byte over TCP (fetch will not lie about Content-Length or send
 * invalid UTF-8 in a path) and reads the first response. `halfClose` ends our side after
 * writing; otherwise the socket stays open until the response (or `timeoutMs`).
 */
export function rawRequest(
  url: string,
  request: string | Buffer,
  options: { halfClose?: boolean; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n/.exec(raw);
      if (!match) {
        reject(new Error(`no HTTP response (got ${JSON.stringify(raw.slice(0, 200))})`));
        return;
      }
      const end = raw.indexOf('\r\n\r\n');
      const headers: Record<string, string> = {};
      for (const line of raw.slice(match[0].length, end).split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = raw.slice(end + 4);
      const length = headers['content-length'];
      if (length !== undefined) body = body.slice(0, Number(length));
      resolve({ status: Number(match[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8'), raw });
    };
    const timer = setTimeout(() => {
      if (!settled) {
        settled = true;
        socket.destroy();
        reject(new Error(`no complete response within ${options.timeoutMs ?? 5000} ms`));
      }
    }, options.timeoutMs ?? 5000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One response is enough: stop when its body is complete.
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, end));
      if (length && Buffer.byteLength(raw.slice(end + 4), 'latin1') >= Number(length[1])) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error) => {
      if (chunks.length > 0) finish();
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.write(request, () => {
      if (options.halfClose) socket.end();
    });
  });
}
