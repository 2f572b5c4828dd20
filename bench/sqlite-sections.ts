/**
 * The SQLite sections of `npm run bench` (bench/run.ts prints and writes them, bench/report.ts
 * makes their tables): statements per route, routes a-g against the baseline (also on
 * PostgreSQL), the Node adapter's floor, scale, memory and the in-process pipeline.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { migrate, openDatabase } from '../examples/blog/db.js';
import { seed } from '../examples/blog/seed.js';
import { startDemo } from '../examples/blog/server.js';
import { startBaseline } from './baseline/server.js';
import type { InProcessResult } from './inprocess.js';
import { type Load, load, mb, median, medianLoad, warm } from './load.js';
import { ROUTES, type Route, SEEDED_ARTICLES, routeB, statementsFor } from './routes.js';
import { type BenchContext, type ServerProcess, bodyBytes, measure, serve } from './server-process.js';

/** Warm-up rounds over every route before the HTTP table (see `warm`). */
export const WARM_ROUNDS = 2;
export const PAGE_SIZES = [10, 20, 50];

/**
 * Removes what route d created, so every run reads the seeded data. autocannon returns at the
 * end of its duration with up to 32 requests still in flight: let the server finish them first.
 */
export async function removeCreated(file: string, seeded: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sqlite = new SQLite(file);
  sqlite.pragma('busy_timeout = 5000');
  sqlite.prepare('delete from article_tags where article_id > ?').run(seeded);
  sqlite.prepare('delete from articles where id > ?').run(seeded);
  sqlite.close();
}

export async function seedFile(file: string, articles: number): Promise<number> {
  const started = performance.now();
  const database = openDatabase({ file });
  try {
    await migrate(database.db, 'sqlite');
    await seed(database.db, articles);
  } finally {
    await database.close();
  }
  return performance.now() - started;
}

export interface SqlCounts {
  route: string;
  method: string;
  path: string;
  demo: number;
  baseline: number;
  statements: string[];
}

/** Statements per request: the demo through Kysely's `log`, the baseline through its hook. */
export async function countStatements(file: string): Promise<SqlCounts[]> {
  const demoStatements: string[] = [];
  const baselineStatements: string[] = [];
  const demo = await startDemo({
    port: 0,
    db: file,
    seed: 1,
    databaseUrl: null,
    log: (event) => {
      if (event.level === 'query') demoStatements.push(event.query.sql);
    },
  });
  const baseline = await startBaseline({ db: file, onStatement: (sql) => baselineStatements.push(sql) });
  const routes: Route[] = [];
  for (const route of ROUTES) {
    if (route.name === 'a' || route.name === 'f') {
      for (const limit of PAGE_SIZES)
        routes.push({
          ...route,
          name: `${route.name}@${limit}`,
          path: route.path.replace(/page\[limit\]=\d+/, `page[limit]=${limit}`),
        });
    } else if (route.name === 'b') {
      for (const limit of PAGE_SIZES) routes.push({ ...routeB(limit), name: `b@${limit}` });
    } else routes.push(route);
    if (route.name === 'c')
      routes.push(
        { ...route, name: 'c+1', path: '/articles/1?include=author' },
        { ...route, name: 'c+2', path: '/articles/1?include=author,tags' },
      );
  }
  const counts: SqlCounts[] = [];
  try {
    for (const route of routes) {
      counts.push({
        route: route.name,
        method: route.method,
        path: route.path,
        ...(await statementsFor(
          route,
          { demo: demo.url, baseline: baseline.url },
          { demo: demoStatements, baseline: baselineStatements },
        )),
      });
    }
  } finally {
    await demo.close();
    await baseline.close();
    await removeCreated(file, SEEDED_ARTICLES);
  }
  return counts;
}

export interface HttpRow {
  name: string;
  label: string;
  demo: Load;
  baseline: Load;
  demoBytes: number;
  baselineBytes: number;
  /** The median of the paired runs' ratios (demo req/s / baseline req/s of the same repetition). */
  ratio: number;
  /** Each repetition's ratio: how much the machine's noise moves it. */
  ratios: number[];
}

/**
 * Routes a-g, demo against baseline. `db` is the SQLite file or, with `pg`, the database server's
 * URL (servers `demo-pg` and `baseline-pg`, or with `pg.suffix` `-mysql` `demo-mysql` and
 * `baseline-mysql`); `reset` removes route d's rows; `extraCpu` adds CPU time spent elsewhere on
 * the server's behalf (PostgreSQL's backends, MySQL's server), µs so far.
 */
export async function httpRoutes(
  ctx: BenchContext,
  db: string,
  log: (line: string) => void,
  pg?: { reset: () => Promise<void>; extraCpu: () => number; suffix?: '-pg' | '-mysql' },
): Promise<HttpRow[]> {
  const suffix = pg ? (pg.suffix ?? '-pg') : '';
  const demo = await serve(ctx, `demo${suffix}`, db);
  const baseline = await serve(ctx, `baseline${suffix}`, db);
  const reset = pg ? () => pg.reset() : () => removeCreated(db, SEEDED_ARTICLES);
  try {
    await warm([demo, baseline], ROUTES, reset, WARM_ROUNDS);
    const samples = new Map<string, { demo: Load[]; baseline: Load[] }>(
      ROUTES.map((r) => [r.name, { demo: [], baseline: [] }]),
    );
    for (let rep = 0; rep < ctx.config.reps; rep++) {
      for (const route of ROUTES) {
        // Alternate which server goes first, so neither always runs on a warmer machine.
        const order = (rep + ROUTES.indexOf(route)) % 2 === 0 ? [demo, baseline] : [baseline, demo];
        for (const server of order) {
          const result = await measure(
            ctx,
            server,
            route,
            ctx.quick ? ctx.config.duration : (route.seconds ?? ctx.config.duration),
            pg?.extraCpu,
          );
          samples.get(route.name)![server === demo ? 'demo' : 'baseline'].push(result);
          if (route.method === 'POST') await reset();
          log(
            `  rep ${rep + 1} ${route.name} ${server.kind.padEnd(14)} ${result.rps.toFixed(0).padStart(6)} req/s  ${result.cpu.toFixed(0).padStart(5)}${pg ? ` + ${result.dbCpu!.toFixed(0)}` : ''} µs CPU/request  p50 ${result.p50} ms  p99 ${result.p99} ms`,
          );
        }
      }
    }
    const rows: HttpRow[] = [];
    for (const route of ROUTES) {
      const s = samples.get(route.name)!;
      const demoBytes = await bodyBytes(demo.url, route);
      const baselineBytes = await bodyBytes(baseline.url, route);
      if (route.method === 'POST') await reset();
      // Each repetition runs both servers back to back: their ratio cancels the machine's drift
      // between repetitions, which the ratio of the two medians would not.
      const ratios = s.demo.map((d, i) => d.rps / s.baseline[i]!.rps);
      rows.push({
        name: route.name,
        label: route.label,
        demo: medianLoad(s.demo),
        baseline: medianLoad(s.baseline),
        demoBytes,
        baselineBytes,
        ratio: median(ratios),
        ratios,
      });
    }
    return rows;
  } finally {
    await demo.stop();
    await baseline.stop();
  }
}

/**
 * The Node adapter's own cost: a constant document through `toNodeHandler`, as the runtime
 * answers (`stringResponse`) and as a platform `new Response`, against plain node:http.
 */
export async function adapterFloor(ctx: BenchContext, log: (line: string) => void): Promise<HttpRow[]> {
  const raw = await serve(ctx, 'floor-raw');
  const adapters = [await serve(ctx, 'floor-adapter'), await serve(ctx, 'floor-adapter-platform')];
  const route: Route = { name: 'floor', label: 'constant document (route c bytes)', method: 'GET', path: '/' };
  const labels: Record<string, string> = {
    'floor-adapter':
      'floor: constant document (route c bytes), runtime response through `toNodeHandler` / plain node:http',
    'floor-adapter-platform': 'floor: the same as a platform `new Response` through `toNodeHandler` / plain node:http',
  };
  try {
    await warm([raw, ...adapters], [route], undefined);
    const loads = new Map<ServerProcess, Load[]>([raw, ...adapters].map((s) => [s, []]));
    // A constant document varies little: three repetitions do.
    for (let rep = 0; rep < Math.min(ctx.config.reps, 3); rep++) {
      const order = rep % 2 === 0 ? [...adapters, raw] : [raw, ...adapters];
      for (const server of order) {
        const result = await measure(ctx, server, route, ctx.config.duration);
        loads.get(server)!.push(result);
        log(
          `  rep ${rep + 1} floor ${server.kind.padEnd(22)} ${result.rps.toFixed(0).padStart(6)} req/s  ${result.cpu.toFixed(0).padStart(5)} µs CPU/request`,
        );
      }
    }
    const b = medianLoad(loads.get(raw)!);
    const rows: HttpRow[] = [];
    for (const adapter of adapters) {
      const d = medianLoad(loads.get(adapter)!);
      rows.push({
        name: 'floor',
        label: labels[adapter.kind]!,
        demo: d,
        baseline: b,
        demoBytes: await bodyBytes(adapter.url, route),
        baselineBytes: await bodyBytes(raw.url, route),
        ratio: d.rps / b.rps,
        ratios: [],
      });
    }
    return rows;
  } finally {
    await raw.stop();
    for (const adapter of adapters) await adapter.stop();
  }
}

export interface ScaleRow {
  articles: number;
  limit: number;
  demo: Load;
  baseline: Load;
  included: number;
  bytes: number;
}

export async function scale(
  ctx: BenchContext,
  files: Map<number, string>,
  log: (line: string) => void,
): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const [articles, file] of files) {
    const demo = await serve(ctx, 'demo', file);
    const baseline = await serve(ctx, 'baseline', file);
    try {
      // Fresh processes: let the JIT see the route before anything is measured.
      await warm([demo, baseline], PAGE_SIZES.map(routeB), undefined, 1, 300);
      for (const limit of PAGE_SIZES) {
        const route = routeB(limit);
        const response = await fetch(demo.url + route.path);
        const text = await response.text();
        const included = (JSON.parse(text) as { included: unknown[] }).included.length;
        const [d, b] = [
          await measure(ctx, demo, route, ctx.config.duration),
          await measure(ctx, baseline, route, ctx.config.duration),
        ];
        rows.push({ articles, limit, demo: d, baseline: b, included, bytes: Buffer.byteLength(text) });
        log(
          `  ${articles} articles, limit ${limit}: demo ${d.rps.toFixed(0)} req/s, baseline ${b.rps.toFixed(0)} req/s`,
        );
      }
    } finally {
      await demo.stop();
      await baseline.stop();
    }
  }
  return rows;
}

export interface MemoryResult {
  points: Array<{ requests: number; rss: number; rssAfterGc: number; heapAfterGc: number }>;
  growth: number;
  heapGrowth: number;
}

export async function memory(ctx: BenchContext, file: string, log: (line: string) => void): Promise<MemoryResult> {
  const demo = await serve(ctx, 'demo', file, ['--expose-gc']);
  const route = routeB(20);
  try {
    const points: MemoryResult['points'] = [];
    let done = 0;
    for (const target of ctx.config.memory) {
      await load(demo.url, route, 0, target - done);
      done = target;
      const { before, after } = await demo.memory();
      points.push({ requests: target, rss: before.rss, rssAfterGc: after.rss, heapAfterGc: after.heapUsed });
      log(
        `  after ${target} requests: rss ${mb(before.rss)} MB (after GC ${mb(after.rss)} MB, heap ${mb(after.heapUsed)} MB)`,
      );
    }
    const [first, last] = [points[0]!, points[points.length - 1]!];
    return {
      points,
      growth: (last.rss - first.rss) / first.rss,
      heapGrowth: (last.heapAfterGc - first.heapAfterGc) / first.heapAfterGc,
    };
  } finally {
    await demo.stop();
  }
}

export async function inProcess(ctx: BenchContext, file: string): Promise<InProcessResult[]> {
  const child = spawn(
    process.execPath,
    [join(ctx.compiled, 'bench', 'inprocess.js'), file, '--json', ...(ctx.quick ? ['--quick'] : [])],
    {
      cwd: ctx.compiled,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  ctx.children.add(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  ctx.children.delete(child);
  if (code !== 0) throw new Error(`bench/inprocess.ts exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop()!) as InProcessResult[];
}
