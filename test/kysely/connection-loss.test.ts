/**
 * PostgreSQL taken away under load, for real, on a cluster of this file's own: backends
 * terminated, `pg_ctl restart -m fast`, the server stopped for three seconds, each while 16
 * clients PATCH (and read) articles. The server runs in a child process whose exit we would
 * see; it must live through all of it, answer 503 with Retry-After while the database is gone
 * (a keyed POST too, leaving its key free), recover by itself when the database is back, and
 * lose no acknowledged write. Three servers: the demo (`postgresKysely`, direct runner, with a pool listener of
 * its own), and the test server of `../support/outage-server.ts` on `postgresKysely` (direct runner) and on
 * Kysely's `PostgresDialect` over `preparedPool`, which hold no listener but the store's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Context } from 'jsonapi-gen';
import { executorFor, kyselyTransaction, postgresKysely } from '@jsonapi-gen/kysely';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { type Cluster, startCluster } from '../support/pg-cluster.js';
import { authorOf } from '../support/demo.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const JSONAPI = 'application/vnd.api+json';
const WORKERS = 16;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(() => cluster?.stop());

/** Runs `sql` as the superuser on `database`, on a connection of its own. */
async function admin(sql: string, parameters: unknown[] = [], database = 'postgres'): Promise<pg.QueryResult> {
  const url = new URL(cluster.url);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.query(sql, parameters);
  } finally {
    await client.end();
  }
}

/** A server in a child process, with everything it printed. */
interface Child {
  process: ChildProcess;
  url: string;
  output: () => string;
  exited: () => boolean;
}

async function startChild(server: string, database: string): Promise<Child> {
  const url = new URL(cluster.url);
  url.pathname = `/${database}`;
  const args =
    server === 'demo'
      ? ['--import', 'tsx', 'examples/blog/server.ts', '--seed', '20']
      : ['--import', 'tsx', 'test/support/outage-server.ts', server, url.toString()];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url.toString(), PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/[\d.:]+)/.test(output)) {
    if (exited || Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
    await sleep(50);
  }
  return {
    process: child,
    url: /listening on (http:\/\/[\d.:]+)/.exec(output)![1]!,
    output: () => output,
    exited: () => exited,
  };
}

/** What one request got: its status (0: no answer), Retry-After, and when it was sent. */
interface Answer {
  status: number;
  retryAfter: string | null;
  at: number;
}

async function send(url: string, init: RequestInit & { user?: string } = {}): Promise<Answer> {
  const at = Date.now();
  try {
    const response = await fetch(url, {
      ...init,
      headers: {
        accept: JSONAPI,
        'content-type': JSONAPI,
        ...(init.user && { authorization: `Bearer ${init.user}` }),
        ...init.headers,
      },
      signal: AbortSignal.timeout(15_000),
    });
    await response.arrayBuffer();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), at };
  } catch {
    return { status: 0, retryAfter: null, at };
  }
}

describe('the error listeners the store adds', () => {
  it('one per client for its life, however many checkouts; a client that dies while a transaction holds it fails that transaction (503), is dropped, and the process lives', async () => {
    await admin('create database listeners');
    const url = new URL(cluster.url);
    url.pathname = '/listeners';
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    const db = postgresKysely<Database>(pool, { runner: 'direct' });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      await migrate(db, 'postgres');
      await seed(db, 5);
      const api = createApi(createStore(db), { transaction: kyselyTransaction(db) });
      const patch = (n: number) =>
        new Request('http://localhost/articles/1', {
          method: 'PATCH',
          headers: { 'content-type': JSONAPI, authorization: 'Bearer 1' },
          body: JSON.stringify({ data: { type: 'articles', id: '1', attributes: { title: `t${n}` } } }),
        });
      const clients = new Set<pg.PoolClient>();
      pool.on('acquire', (client) => void clients.add(client));
      for (let n = 0; n < 50; n++) {
        const answers = await Promise.all([
          api.fetch(new Request('http://localhost/articles/1')),
          api.fetch(patch(n), { attributes: { user: '1' } }),
        ]);
        expect(answers.map((a) => a.status)).toEqual([200, 200]);
      }
      expect(clients.size).toBeGreaterThan(0);
      // Idle now: pg-pool's listener and the store's, however many times each was checked out.
      for (const client of clients) expect(client.listenerCount('error')).toBe(2);
      expect(pool.listenerCount('error')).toBe(1);

      // A transaction holds a client, between two statements, when its backend is terminated.
      const transaction = kyselyTransaction(db);
      const context = new Context(new Request('http://localhost/'));
      let held: pg.PoolClient | undefined;
      pool.once('acquire', (client) => (held = client));
      const failed = transaction(async () => {
        await sql`select 1`.execute(executorFor(db, context));
        await admin(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = 'listeners' and pid <> pg_backend_pid()",
        );
        await sleep(200);
        return sql`select 1`.execute(executorFor(db, context));
      }, context);
      await expect(failed).rejects.toMatchObject({ status: 503, code: 'database_unavailable' });
      expect(uncaught).toEqual([]);
      expect(held).toBeDefined();
      const reused = new Set<pg.PoolClient>();
      pool.on('acquire', (client) => void reused.add(client));
      expect((await api.fetch(new Request('http://localhost/articles/1'))).status).toBe(200);
      expect((await api.fetch(patch(99), { attributes: { user: '1' } })).status).toBe(200);
      expect(reused.has(held!)).toBe(false);
    } finally {
      process.off('uncaughtException', onUncaught);
      await db.destroy();
    }
  });
});

describe.each(['demo', 'postgresKysely', 'PostgresDialect'])('PostgreSQL lost under load (%s server)', (server) => {
  it('the process lives; 503 + Retry-After while the database is gone; it recovers alone; no acknowledged write is lost', async () => {
    const database = `outage_${server.toLowerCase()}`;
    await admin(`create database ${database}`);
    const child = await startChild(server, database);
    try {
      // 16 clients, each PATCHing its own article in turn (and reading it back every other
      // time, the store's direct path), noting which titles were acknowledged.
      let running = true;
      const answers: Answer[] = [];
      const sent: string[][] = Array.from({ length: WORKERS }, () => []);
      const acknowledged: number[] = Array.from({ length: WORKERS }, () => -1);
      const lastOk: number[] = Array.from({ length: WORKERS }, () => 0);
      const workers = Array.from({ length: WORKERS }, async (_, w) => {
        const article = w + 1;
        for (let n = 0; running; n++) {
          const title = `w${w} n${n}`;
          sent[w]!.push(title);
          const body = JSON.stringify({ data: { type: 'articles', id: String(article), attributes: { title } } });
          const answer = await send(`${child.url}/articles/${article}`, {
            method: 'PATCH',
            user: authorOf(article),
            body,
          });
          answers.push(answer);
          if (answer.status === 200) {
            acknowledged[w] = n;
            lastOk[w] = Date.now();
          }
          if (n % 2 === 1) answers.push(await send(`${child.url}/articles/${article}`));
          if (answer.status !== 200) await sleep(20);
        }
      });
      const terminate = () =>
        admin(
          'select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [database],
        );

      await sleep(700);
      for (let i = 0; i < 3; i++) {
        await terminate();
        await sleep(300);
      }
      cluster.restart();
      await sleep(700);

      cluster.halt();
      const down = Date.now();
      await sleep(1000);
      const keyed = (user: string) =>
        send(`${child.url}/tags`, {
          method: 'POST',
          user,
          headers: { 'idempotency-key': `outage-${server}` },
          body: JSON.stringify({ data: { type: 'tags', attributes: { name: `outage ${server}` } } }),
        });
      const whileDown = await keyed('1');
      await sleep(2000);
      cluster.start();
      const up = Date.now();

      // Back by itself: every client gets its PATCH through again.
      const deadline = Date.now() + 20_000;
      while (lastOk.some((t) => t < up) && Date.now() < deadline) await sleep(100);
      running = false;
      await Promise.all(workers);

      expect(child.exited(), child.output()).toBe(false);
      expect(child.output()).not.toMatch(/Unhandled 'error' event|500:/);
      expect(lastOk.every((t) => t > up)).toBe(true);
      const statuses = new Set(answers.map((a) => a.status));
      expect(
        [...statuses].filter((s) => s !== 200 && s !== 503),
        child.output(),
      ).toEqual([]);
      expect(answers.filter((a) => a.status === 503).every((a) => a.retryAfter === '1')).toBe(true);
      // While the server was stopped, requests were refused as 503 (not left hanging or 500).
      expect(answers.some((a) => a.status === 503 && a.at > down && a.at < up)).toBe(true);
      expect(whileDown.status).toBe(503);
      expect(whileDown.retryAfter).toBe('1');
      // The key the outage refused is free: the retry creates the tag, then replays it.
      expect((await keyed('1')).status).toBe(201);
      expect((await keyed('1')).status).toBe(201);

      // No acknowledged write lost: each article holds its last acknowledged title, or one sent
      // after it (a commit whose answer the outage cut off).
      const { rows } = await admin('select id, title from articles where id <= $1 order by id', [WORKERS], database);
      for (let w = 0; w < WORKERS; w++) {
        const stored = sent[w]!.indexOf((rows[w] as { title: string }).title);
        expect(acknowledged[w], `article ${w + 1}`).toBeGreaterThan(-1);
        expect(stored, `article ${w + 1}: ${(rows[w] as { title: string }).title}`).toBeGreaterThanOrEqual(
          acknowledged[w]!,
        );
      }
      const tags = await admin('select count(*)::int as n from tags where name = $1', [`outage ${server}`], database);
      expect(tags.rows[0]).toEqual({ n: 1 });
    } finally {
      if (!child.exited()) {
        child.process.kill('SIGTERM');
        await new Promise((resolve) => child.process.once('exit', resolve));
      }
    }
  }, 120_000);
});
