/**
 * The overload of the fault-injection findings, for real: the demo (SQLite, then PostgreSQL;
 * 1,000 articles; default limits) in a process of its own; 200 clients ask at once and again, for a few
 * seconds each, for the finding's page (every includable path, 50 articles: refused, past the
 * cost budget), then for an expensive page within the budget (which the request gate serves
 * in turn, or refuses with 503), while one client measures a cheap `GET /articles/1`. The
 * cheap request stays under a second at p99; the server stops working soon after the clients
 * have gone; its resident set returns to within 20% of what it was before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { Agent, get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../support/demo.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENTS = 200;
/** How long each phase's clients keep asking. */
const PHASE_MS = 4_000;
/** The finding's request: every includable path of articles (three deep), 50 a page; about 3.5 MB, past the cost budget. */
const EVERY_PATH =
  '/articles?include=author.articles.author,author.articles.comments,author.articles.tags,comments.author.articles,comments.article.author,comments.article.comments,comments.article.tags,tags.articles.author,tags.articles.comments,tags.articles.tags&page[limit]=50';
/** Every include two deep, 50 a page: about 1 MB, within the budget (cost 400), so the request gate takes them in turn. */
const EXPENSIVE = '/articles?include=author.articles,comments.author,comments.article,tags.articles&page[limit]=50';
const CHEAP = '/articles/1';

let server: ChildProcess;
let url: string;

/** Asks the server process `question` over IPC; resolves with the member `key` of its answer. */
function ask(question: string, key: string): Promise<number> {
  return new Promise((resolve) => {
    const listener = (message: Record<string, number>) => {
      if (!(key in message)) return;
      server.off('message', listener);
      resolve(message[key]!);
    };
    server.on('message', listener);
    server.send(question);
  });
}

/**
 * GETs `path` over `agent`: the status, the Retry-After header, the body read and dropped
 * (node:http, not fetch: 200 clients' megabytes through web streams would load this process
 * more than the server). Rejects when `signal` aborts it.
 */
function request(
  path: string,
  agent: Agent,
  signal?: AbortSignal,
): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = get(url + path, { agent, signal }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
}

/** The p-th percentile (0-100) of `values`. */
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

/**
 * `CLIENTS` clients asking for `path` at once and again for `PHASE_MS` (after a 503, 50 ms
 * later, as told), then going away, answered or not; meanwhile one client asks for `CHEAP`,
 * one request at a time. The statuses of `path`, the cheap request's latencies (ms).
 */
async function phase(path: string, agent: Agent, own: Agent) {
  const deadline = Date.now() + PHASE_MS;
  const leave = new AbortController();
  // One signal for the 200 clients' requests: one abort listener each, not a leak.
  setMaxListeners(0, leave.signal);
  const statuses = new Map<number, number>();
  const retryAfter = new Set<string | undefined>();
  const client = async () => {
    while (Date.now() < deadline) {
      try {
        const response = await request(path, agent, leave.signal);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 503) {
          retryAfter.add(response.retryAfter);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } catch {
        return; // gone
      }
    }
  };
  const latencies: number[] = [];
  const clients = Array.from({ length: CLIENTS }, client);
  while (Date.now() < deadline) {
    const started = performance.now();
    const response = await request(CHEAP, own, AbortSignal.timeout(10_000)).catch(() => ({ status: 0 }));
    latencies.push(performance.now() - started);
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  leave.abort();
  await Promise.all(clients);
  return { statuses, retryAfter, latencies };
}

describe.each<Backend>(['sqlite', 'postgres'])('200 clients asking at once for expensive pages (%s)', (backend) => {
  let pg: TestDatabase | undefined;

  beforeAll(async () => {
    pg = backend === 'postgres' ? await createPostgresDatabase() : undefined;
    server = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'test/support/overload-server.ts', '1000', ...(pg ? [pg.url] : [])],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    url = await new Promise<string>((resolve, reject) => {
      server.once('message', (message: { url: string }) => resolve(message.url));
      server.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    });
  });

  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.send('stop');
      await exited;
    }
    await pg?.drop();
  });

  it(
    'a cheap request stays under 1 s at p99, the work stops with the clients, the memory comes back',
    { timeout: 90_000 },
    async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
      const own = new Agent({ keepAlive: true, maxSockets: 1 });
      // Warm up: what the first requests build once (statements, compiled code) is not load.
      for (let i = 0; i < 5; i++) expect((await request(EXPENSIVE, agent)).status).toBe(200);
      for (let i = 0; i < 20; i++) expect((await request(CHEAP, own)).status).toBe(200);
      const rssBefore = await ask('rss', 'rss');

      const refused = await phase(EVERY_PATH, agent, own);
      const served = await phase(EXPENSIVE, agent, own);
      const cpuAtLeave = await ask('cpu', 'cpu');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const cpuAfter = await ask('cpu', 'cpu');
      const rssAfter = await ask('rss', 'rss');
      agent.destroy();
      own.destroy();

      const latencies = [...refused.latencies, ...served.latencies];
      const report =
        `every path: ${JSON.stringify([...refused.statuses])}, cheap p99 ${percentile(refused.latencies, 99).toFixed(0)} ms of ${refused.latencies.length}; ` +
        `within the budget: ${JSON.stringify([...served.statuses])}, cheap p99 ${percentile(served.latencies, 99).toFixed(0)} ms of ${served.latencies.length}; ` +
        `CPU in the 2 s after the clients left ${((cpuAfter - cpuAtLeave) / 1e6).toFixed(2)} s; RSS ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssAfter / 2 ** 20).toFixed(0)} MiB`;
      console.log(report);
      expect(percentile(latencies, 99), report).toBeLessThan(1_000);
      expect(latencies.length, report).toBeGreaterThan(40);
      // Two seconds after the clients left, the server has stopped: well under a second of CPU.
      expect(cpuAfter - cpuAtLeave, report).toBeLessThan(1e6);
      expect(Math.abs(rssAfter - rssBefore) / rssBefore, report).toBeLessThanOrEqual(0.2);
      // The finding's page is past the budget: 400, at once.
      expect([...refused.statuses.keys()], report).toEqual([400]);
      // Within it, 200 in turn, or 503 with Retry-After when the queue is full.
      expect(served.statuses.get(200) ?? 0, report).toBeGreaterThan(0);
      expect(
        [...served.statuses.keys()].every((status) => status === 200 || status === 503),
        report,
      ).toBe(true);
      if (served.statuses.has(503)) expect([...served.retryAfter]).toEqual(['1']);
    },
  );
});
