/**
 * The load side of the benchmark, shared by its sections (bench/run.ts, bench/scaling.ts):
 * autocannon runs, fetch bursts for warm-ups, medians and the figures' formats, so every table
 * is measured with the same settings.
 */
import autocannon from 'autocannon';
import type { Route } from './routes.js';

/** autocannon's connections in every measured run (and fetch's in the warm-up bursts). */
export const CONNECTIONS = 32;

export interface Load {
  rps: number;
  /** The server's CPU time per request, µs: less sensitive than req/s to other load on the machine. */
  cpu: number;
  p50: number;
  p99: number;
  bytes: number;
  requests: number;
  /** PostgreSQL's CPU time per request, µs (its processes, from /proc), on PostgreSQL only. */
  dbCpu?: number;
}

export async function load(url: string, route: Route, seconds: number, amount?: number): Promise<Load> {
  const result = await autocannon({
    url: url + route.path,
    method: route.method,
    headers: route.headers,
    body: route.body,
    connections: CONNECTIONS,
    ...(amount ? { amount } : { duration: seconds }),
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0)
    throw new Error(
      `${url}${route.path}: ${failed} failed requests (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`,
    );
  return {
    cpu: NaN,
    rps: result.requests.total / (result.duration || seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytes: result.throughput.total / Math.max(1, result.requests.total),
    requests: result.requests.total,
  };
}

/**
 * Up to `requests` requests of `route` (or as many as `ms` allows), CONNECTIONS at a time, with
 * fetch: a warm-up, which autocannon cannot make shorter than a second.
 */
export async function burst(url: string, route: Route, requests: number, ms: number): Promise<void> {
  const until = performance.now() + ms;
  let sent = 0;
  const worker = async () => {
    while (sent < requests && performance.now() < until) {
      sent++;
      const response = await fetch(url + route.path, {
        method: route.method,
        headers: route.headers,
        body: route.body,
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${url}${route.path}: ${response.status} during warm-up`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

/**
 * A fresh process's JIT needs a few thousand requests before figures settle: load every route
 * first, `rounds` times over (`ms` for each the first time). Code that serves several routes
 * is optimized for the first and reoptimized as the others arrive: one round left the first
 * repetition of the HTTP table about 0.06 below the others (nine runs, every route), and the
 * demo, with more code to optimize, below the baseline. The servers take turns route by route:
 * warmed one after the other, the demo sat idle through the baseline's whole warm-up (probably
 * long enough for V8 to shrink its heap), and its first measured run (route a) cost it 10-25%
 * more CPU than its next ones; taking turns, that first run sits with the others.
 */
export async function warm(
  servers: readonly { url: string }[],
  routes: readonly Route[],
  reset: (() => Promise<void>) | undefined,
  rounds = 1,
  ms = 500,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const route of routes) {
      for (const server of servers) {
        // Later rounds only revisit what the first one optimized.
        await burst(server.url, route, 5_000, round === 0 ? ms : ms * 0.6);
        if (route.method === 'POST' && reset) await reset();
      }
    }
  }
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
export const medianLoad = (loads: Load[]): Load => ({
  rps: median(loads.map((l) => l.rps)),
  cpu: median(loads.map((l) => l.cpu)),
  p50: median(loads.map((l) => l.p50)),
  p99: median(loads.map((l) => l.p99)),
  bytes: median(loads.map((l) => l.bytes)),
  requests: loads.reduce((n, l) => n + l.requests, 0),
  ...(loads[0]?.dbCpu !== undefined && { dbCpu: median(loads.map((l) => l.dbCpu!)) }),
});

export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
export const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
export const f2 = (n: number) => n.toFixed(2);
