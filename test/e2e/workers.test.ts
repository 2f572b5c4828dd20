/**
 * `npm run demo -- --workers N`: one API from several processes on one database (SQLite file
 * and PostgreSQL). Concurrent writes with colliding unique names are 201 or 409, never a 5xx;
 * every 201 is readable from any process; SIGTERM stops every process and cleans up.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const JSONAPI = 'application/vnd.api+json';
const WORKERS = 4;

describe.each(['sqlite', 'postgres'] as const)('the demo with --workers %s', (dialect) => {
  let server: ChildProcess;
  let url: string;
  let pg: TestDatabase | undefined;

  beforeAll(async () => {
    pg = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
    const env = { ...process.env, PORT: '0', DATABASE_URL: pg?.url ?? '' };
    server = spawn(process.execPath, ['--import', 'tsx', 'examples/blog/server.ts', '--workers', String(WORKERS), '--seed', '20'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) resolve(match[1]!);
      };
      server.stdout!.on('data', read);
      server.stderr!.on('data', read);
      server.once('exit', (code) => reject(new Error(`the demo exited with ${code}:\n${output}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    await pg?.drop();
  });

  it(`serves from ${WORKERS} worker processes`, () => {
    // Workers run the same script (tsx may have an esbuild service process beside them).
    const children = execFileSync('pgrep', ['-P', String(server.pid), '-f', 'examples/blog/server.ts']).toString().trim().split('\n');
    expect(children).toHaveLength(WORKERS);
  });

  it('concurrent creates with colliding unique names: 201 or 409 only, every 201 readable', async () => {
    const names = Array.from({ length: 48 }, (_, i) => `tag-${i % 12}`);
    const answers = await Promise.all(
      names.map((name) =>
        fetch(`${url}/tags`, {
          method: 'POST',
          headers: { 'content-type': JSONAPI, accept: JSONAPI },
          body: JSON.stringify({ data: { type: 'tags', attributes: { name } } }),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as { data?: { id: string } } })),
      ),
    );
    expect(answers.filter((a) => a.status !== 201 && a.status !== 409)).toEqual([]);
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(12);
    for (const { body } of created) {
      const read = await fetch(`${url}/tags/${body.data!.id}`, { headers: { accept: JSONAPI } });
      expect(read.status).toBe(200);
    }
  }, 60_000);

  it('a mixed concurrent workload: no 5xx, no lost to-many change, no duplicate from a retried key, failed batches leave nothing, 412s change nothing', async () => {
    const send = async (method: string, path: string, init: { user?: string; body?: unknown; ifMatch?: string; key?: string; atomic?: boolean } = {}) => {
      const type = init.atomic ? `${JSONAPI};ext="https://jsonapi.org/ext/atomic"` : JSONAPI;
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          accept: type,
          ...(init.body !== undefined && { 'content-type': type }),
          ...(init.user !== undefined && { authorization: `Bearer ${init.user}` }),
          ...(init.ifMatch !== undefined && { 'if-match': init.ifMatch }),
          ...(init.key !== undefined && { 'idempotency-key': init.key }),
        },
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      });
      const text = await response.text();
      return { status: response.status, etag: response.headers.get('etag'), body: text ? (JSON.parse(text) as { data?: any }) : undefined };
    };
    // Article 6 (author 1): titles raced with and without If-Match; tags 1-12 added and removed.
    const article = await send('GET', '/articles/6');
    const tag = article.etag!;
    const title = (i: number) => ({ data: { type: 'articles', id: '6', attributes: { title: `race ${i}` } } });
    const link = (id: number) => ({ data: [{ type: 'tags', id: String(id) }] });
    const work: Array<Promise<{ kind: string; status: number }>> = [];
    const push = (kind: string, answer: Promise<{ status: number }>) => work.push(answer.then(({ status }) => ({ kind, status })));
    for (let i = 0; i < 8; i++) {
      push('patch-if-match', send('PATCH', '/articles/6', { user: '1', ifMatch: tag, body: title(i) }));
      push('patch', send('PATCH', '/articles/6', { user: '1', body: title(100 + i) }));
      push('add-tag', send('POST', '/articles/6/relationships/tags', { user: '1', body: link(i + 1) }));
      push('retry', send('POST', '/tags', { user: '1', key: 'mixed-retry', body: { data: { type: 'tags', attributes: { name: 'retried once' } } } }));
      push('failing-batch', send('POST', '/operations', {
        user: '1',
        atomic: true,
        body: { 'atomic:operations': [
          { op: 'add', data: { type: 'tags', attributes: { name: `batch ${i}` } } },
          { op: 'update', data: { type: 'articles', id: '6', attributes: { title: null } } },
        ] },
      }));
      push('read', send('GET', `/articles/${7 + (i % 4)}?include=tags,author`));
      push('delete', send('DELETE', `/comments/${i + 1}`, { user: String(((i * 3) % 5) + 1) }));
      push('read-deleted', send('GET', `/comments/${i + 1}`));
    }
    const answers = await Promise.all(work);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    const of = (kind: string) => answers.filter((a) => a.kind === kind).map((a) => a.status);
    expect(of('patch-if-match').filter((s) => s === 200).length).toBeLessThanOrEqual(1);
    expect(of('patch-if-match').every((s) => s === 200 || s === 412)).toBe(true);
    expect(of('patch').every((s) => s === 200)).toBe(true);
    expect(of('add-tag').every((s) => s === 204)).toBe(true);
    expect(of('failing-batch').every((s) => s === 422)).toBe(true);
    expect(of('read').every((s) => s === 200)).toBe(true);
    expect(of('retry').every((s) => s === 201 || s === 409)).toBe(true);
    // Every to-many add survived; no batch left its tag; the retried key created one tag.
    const tags = await send('GET', '/articles/6/relationships/tags');
    const ids = new Set((tags.body!.data as Array<{ id: string }>).map((t) => t.id));
    for (let i = 1; i <= 8; i++) expect(ids.has(String(i)), `tag ${i}`).toBe(true);
    for (let i = 0; i < 8; i++) expect((await send('GET', `/tags?filter[name]=batch ${i}`)).body!.data).toEqual([]);
    expect((await send('GET', '/tags?filter[name]=retried once')).body!.data).toHaveLength(1);
  }, 60_000);

  it('SIGTERM stops every process', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(() => execFileSync('pgrep', ['-P', String(server.pid), '-f', 'examples/blog/server.ts'])).toThrow();
  }, 30_000);
});
