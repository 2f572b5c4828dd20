/**
 * The benchmark suite of issue 8: `npm run bench` (about four minutes) or `npm run bench -- --quick`
 * (about one). Seeds SQLite files in a temporary directory (removed at the end), then measures:
 *
 * 1. SQL statements per route, demo (Kysely's `log`, in-process) and baseline, at page sizes 10/20/50.
 * 2. HTTP, routes a-f: the demo and the hand-written baseline (bench/baseline) as separate
 *    processes on the same file, loaded in turn with autocannon (32 connections, warm-up, then a
 *    fixed duration), alternating servers, repeated; medians. Plus the Node adapter's floor: a
 *    constant document through `toNodeHandler` (as the runtime's response, and as a platform
 *    `new Response`) against plain node:http.
 * 3. Scale: route b at page[limit] 10, 20, 50 on 1k, 10k, 100k articles.
 * 4. Memory: the demo's resident memory after 10k, 55k and 100k requests of route b.
 * 5. In-process: `api.handle` over in-memory data against `JSON.stringify` of its document.
 *
 * 6. Generator: `jsonapi-gen build` of 20, 100 and 500 resources (--quick: 20 and 100), its
 *    output, and `tsc` of it, against openapi-typescript on the produced document (bench/generator).
 *
 * Prints the tables with targets met or missed, and writes them to bench/results.md.
 * Options: --quick, --out FILE (default bench/results.md), --profile DIR (CPU profiles of the
 * demo processes, `node --cpu-prof`), --generator (only section 6, printed; written only with --out),
 * --db postgres (section 2 only, on a throwaway PostgreSQL cluster against bench/baseline/pg-server.ts,
 * with PostgreSQL's CPU; see bench/postgres.ts), --db postgres --workers (instead: the demo as one
 * process against four on one throwaway PostgreSQL database, routes a, c and d, with the cores
 * each side kept busy; then the mixed workload of test/e2e/workers.test.ts for about 25 s (5 s
 * with --quick) on four processes, requests by status and the invariants; see bench/scaling.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { migrate, openDatabase } from '../examples/blog/db.js';
import { seed } from '../examples/blog/seed.js';
import { startDemo } from '../examples/blog/server.js';
import { startBaseline } from './baseline/server.js';
import { compile } from './compile.js';
import { CONNECTIONS, type Load, burst, f0, f2, load, mb, median, medianLoad, warm } from './load.js';
import { SIZES, generatorReport, runGenerator } from './generator/measure.js';
import { PG_HEADING, type PgBench, countPgStatements, startPgBench, withPgSection, withSection } from './postgres.js';
import { SCALING_HEADING, scalingSection } from './scaling.js';
import type { InProcessResult } from './inprocess.js';
import { ROUTES, type Route, SEEDED_ARTICLES, routeB, statementsFor } from './routes.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const QUICK = args.includes('--quick');
const OUT = resolve(option('--out') ?? join(here, 'results.md'));
const PROFILE = option('--profile') && resolve(option('--profile')!);
const GENERATOR_ONLY = args.includes('--generator');
const GENERATOR_SIZES = QUICK ? [20, 100] : SIZES;
const DB = option('--db') ?? 'sqlite';
if (DB !== 'sqlite' && DB !== 'postgres') throw new Error(`--db ${DB}: sqlite or postgres`);
const WORKERS = args.includes('--workers');
if (WORKERS && DB !== 'postgres') throw new Error('--workers goes with --db postgres (processes on one PostgreSQL database)');

// autocannon counts durations in whole seconds (0.25 runs for 1 s, and so does any `amount`):
// measured runs last whole seconds; warm-ups are bursts of fetches (see burst()).
const config = QUICK
  ? { reps: 1, warmupRequests: 128, duration: 1, scaleDbs: [1_000], memory: [5_000, 10_000, 15_000], inProcessMs: 300 }
  : { reps: 6, warmupRequests: 128, duration: 1, scaleDbs: [1_000, 10_000, 100_000], memory: [10_000, 55_000, 100_000], inProcessMs: 700 };
/** Warm-up rounds over every route before the HTTP table (see `warm`). */
const WARM_ROUNDS = 2;
const PAGE_SIZES = [10, 20, 50];

// ---------------------------------------------------------------- processes, always stopped
const children = new Set<ChildProcess>();
let workDir: string | undefined;
/** Where the compiled JavaScript the servers run lives (see compile.ts). */
let compiled: string | undefined;
let pgBench: PgBench | undefined;
function cleanup(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  pgBench?.stop();
  pgBench = undefined;
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  workDir = undefined;
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

interface ServerProcess {
  kind: string;
  url: string;
  memory(): Promise<{ before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage }>;
  /** The server process's CPU time so far, µs (user + system). */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts `bench/serve.ts KIND FILE`, compiled, in its own process; resolves with its URL. */
async function serve(kind: string, file?: string, nodeFlags: string[] = []): Promise<ServerProcess> {
  const flags = [...nodeFlags];
  if (PROFILE && kind === 'demo') {
    mkdirSync(PROFILE, { recursive: true });
    flags.push('--cpu-prof', `--cpu-prof-dir=${PROFILE}`);
  }
  const child = spawn(process.execPath, [...flags, join(compiled!, 'bench', 'serve.js'), kind, ...(file ? [file] : [])], {
    cwd: compiled,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  children.add(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.once('exit', () => children.delete(child));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolveUrl((JSON.parse(line!) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code}) before listening`)));
  });
  return {
    kind,
    url,
    memory: () =>
      new Promise((resolveMemory) => {
        child.once('message', (message: { memory: { before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage } }) => resolveMemory(message.memory));
        child.send({ memory: true });
      }),
    cpu: () =>
      new Promise((resolveCpu) => {
        child.once('message', (message: { cpu: NodeJS.CpuUsage }) => resolveCpu(message.cpu.user + message.cpu.system));
        child.send({ cpu: true });
      }),
    stop: async () => {
      if (child.exitCode === null) child.send({ close: true });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------- load (autocannon, bursts, warm-ups: load.ts)
/** `config.warmupRequests` requests, then `seconds` measured; `extraCpu`: see `httpRoutes`. */
async function measure(server: ServerProcess, route: Route, seconds: number, extraCpu?: () => number): Promise<Load> {
  await burst(server.url, route, config.warmupRequests, 500);
  const before = await server.cpu();
  const extraBefore = extraCpu?.() ?? 0;
  const result = await load(server.url, route, seconds);
  result.cpu = ((await server.cpu()) - before) / result.requests;
  if (extraCpu) result.dbCpu = (extraCpu() - extraBefore) / result.requests;
  return result;
}

/** The body bytes of one response. */
async function bodyBytes(url: string, route: Route): Promise<number> {
  const response = await fetch(url + route.path, { method: route.method, headers: route.headers, body: route.body });
  return (await response.arrayBuffer()).byteLength;
}

/**
 * Removes what route d created, so every run reads the seeded data. autocannon returns at the
 * end of its duration with up to 32 requests still in flight: let the server finish them first.
 */
async function removeCreated(file: string, seeded: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sqlite = new SQLite(file);
  sqlite.pragma('busy_timeout = 5000');
  sqlite.prepare('delete from article_tags where article_id > ?').run(seeded);
  sqlite.prepare('delete from articles where id > ?').run(seeded);
  sqlite.close();
}

// ---------------------------------------------------------------- sections
async function seedFile(file: string, articles: number): Promise<number> {
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

interface SqlCounts {
  route: string;
  method: string;
  path: string;
  demo: number;
  baseline: number;
  statements: string[];
}

/** Statements per request: the demo through Kysely's `log`, the baseline through its hook. */
async function countStatements(file: string): Promise<SqlCounts[]> {
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
      for (const limit of PAGE_SIZES) routes.push({ ...route, name: `${route.name}@${limit}`, path: route.path.replace(/page\[limit\]=\d+/, `page[limit]=${limit}`) });
    } else if (route.name === 'b') {
      for (const limit of PAGE_SIZES) routes.push({ ...routeB(limit), name: `b@${limit}` });
    } else routes.push(route);
    if (route.name === 'c') routes.push({ ...route, name: 'c+1', path: '/articles/1?include=author' }, { ...route, name: 'c+2', path: '/articles/1?include=author,tags' });
  }
  const counts: SqlCounts[] = [];
  try {
    for (const route of routes) {
      counts.push({ route: route.name, method: route.method, path: route.path, ...(await statementsFor(route, { demo: demo.url, baseline: baseline.url }, { demo: demoStatements, baseline: baselineStatements })) });
    }
  } finally {
    await demo.close();
    await baseline.close();
    await removeCreated(file, SEEDED_ARTICLES);
  }
  return counts;
}

interface HttpRow {
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
 * Routes a-f, demo against baseline. `db` is the SQLite file or, with `pg`, the PostgreSQL URL
 * (servers `demo-pg` and `baseline-pg`); `reset` removes route d's rows; `extraCpu` adds CPU
 * time spent elsewhere on the server's behalf (PostgreSQL's backends), µs so far.
 */
async function httpRoutes(db: string, log: (line: string) => void, pg?: { reset(): Promise<void>; extraCpu(): number }): Promise<HttpRow[]> {
  const demo = await serve(pg ? 'demo-pg' : 'demo', db);
  const baseline = await serve(pg ? 'baseline-pg' : 'baseline', db);
  const reset = pg ? () => pg.reset() : () => removeCreated(db, SEEDED_ARTICLES);
  try {
    await warm([demo, baseline], ROUTES, reset, WARM_ROUNDS);
    const samples = new Map<string, { demo: Load[]; baseline: Load[] }>(ROUTES.map((r) => [r.name, { demo: [], baseline: [] }]));
    for (let rep = 0; rep < config.reps; rep++) {
      for (const route of ROUTES) {
        // Alternate which server goes first, so neither always runs on a warmer machine.
        const order = (rep + ROUTES.indexOf(route)) % 2 === 0 ? [demo, baseline] : [baseline, demo];
        for (const server of order) {
          const result = await measure(server, route, QUICK ? config.duration : (route.seconds ?? config.duration), pg?.extraCpu);
          samples.get(route.name)![server.kind.replace('-pg', '') as 'demo' | 'baseline'].push(result);
          if (route.method === 'POST') await reset();
          log(`  rep ${rep + 1} ${route.name} ${server.kind.padEnd(11)} ${result.rps.toFixed(0).padStart(6)} req/s  ${result.cpu.toFixed(0).padStart(5)}${pg ? ` + ${result.dbCpu!.toFixed(0)}` : ''} µs CPU/request  p50 ${result.p50} ms  p99 ${result.p99} ms`);
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
      rows.push({ name: route.name, label: route.label, demo: medianLoad(s.demo), baseline: medianLoad(s.baseline), demoBytes, baselineBytes, ratio: median(ratios), ratios });
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
async function adapterFloor(log: (line: string) => void): Promise<HttpRow[]> {
  const raw = await serve('floor-raw');
  const adapters = [await serve('floor-adapter'), await serve('floor-adapter-platform')];
  const route: Route = { name: 'floor', label: 'constant document (route c bytes)', method: 'GET', path: '/' };
  const labels: Record<string, string> = {
    'floor-adapter': 'floor: constant document (route c bytes), runtime response through `toNodeHandler` / plain node:http',
    'floor-adapter-platform': 'floor: the same as a platform `new Response` through `toNodeHandler` / plain node:http',
  };
  try {
    await warm([raw, ...adapters], [route], undefined);
    const loads = new Map<ServerProcess, Load[]>([raw, ...adapters].map((s) => [s, []]));
    // A constant document varies little: three repetitions do.
    for (let rep = 0; rep < Math.min(config.reps, 3); rep++) {
      const order = rep % 2 === 0 ? [...adapters, raw] : [raw, ...adapters];
      for (const server of order) {
        const result = await measure(server, route, config.duration);
        loads.get(server)!.push(result);
        log(`  rep ${rep + 1} floor ${server.kind.padEnd(22)} ${result.rps.toFixed(0).padStart(6)} req/s  ${result.cpu.toFixed(0).padStart(5)} µs CPU/request`);
      }
    }
    const b = medianLoad(loads.get(raw)!);
    const rows: HttpRow[] = [];
    for (const adapter of adapters) {
      const d = medianLoad(loads.get(adapter)!);
      rows.push({ name: 'floor', label: labels[adapter.kind]!, demo: d, baseline: b, demoBytes: await bodyBytes(adapter.url, route), baselineBytes: await bodyBytes(raw.url, route), ratio: d.rps / b.rps, ratios: [] });
    }
    return rows;
  } finally {
    await raw.stop();
    for (const adapter of adapters) await adapter.stop();
  }
}

interface ScaleRow {
  articles: number;
  limit: number;
  demo: Load;
  baseline: Load;
  included: number;
  bytes: number;
}

async function scale(files: Map<number, string>, log: (line: string) => void): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const [articles, file] of files) {
    const demo = await serve('demo', file);
    const baseline = await serve('baseline', file);
    try {
      // Fresh processes: let the JIT see the route before anything is measured.
      await warm([demo, baseline], PAGE_SIZES.map(routeB), undefined, 1, 300);
      for (const limit of PAGE_SIZES) {
        const route = routeB(limit);
        const response = await fetch(demo.url + route.path);
        const text = await response.text();
        const included = (JSON.parse(text) as { included: unknown[] }).included.length;
        const [d, b] = [await measure(demo, route, config.duration), await measure(baseline, route, config.duration)];
        rows.push({ articles, limit, demo: d, baseline: b, included, bytes: Buffer.byteLength(text) });
        log(`  ${articles} articles, limit ${limit}: demo ${d.rps.toFixed(0)} req/s, baseline ${b.rps.toFixed(0)} req/s`);
      }
    } finally {
      await demo.stop();
      await baseline.stop();
    }
  }
  return rows;
}

interface MemoryResult {
  points: Array<{ requests: number; rss: number; rssAfterGc: number; heapAfterGc: number }>;
  growth: number;
  heapGrowth: number;
}

async function memory(file: string, log: (line: string) => void): Promise<MemoryResult> {
  const demo = await serve('demo', file, ['--expose-gc']);
  const route = routeB(20);
  try {
    const points: MemoryResult['points'] = [];
    let done = 0;
    for (const target of config.memory) {
      await load(demo.url, route, 0, target - done);
      done = target;
      const { before, after } = await demo.memory();
      points.push({ requests: target, rss: before.rss, rssAfterGc: after.rss, heapAfterGc: after.heapUsed });
      log(`  after ${target} requests: rss ${mb(before.rss)} MB (after GC ${mb(after.rss)} MB, heap ${mb(after.heapUsed)} MB)`);
    }
    const [first, last] = [points[0]!, points[points.length - 1]!];
    return { points, growth: (last.rss - first.rss) / first.rss, heapGrowth: (last.heapAfterGc - first.heapAfterGc) / first.heapAfterGc };
  } finally {
    await demo.stop();
  }
}

async function inProcess(file: string): Promise<InProcessResult[]> {
  const child = spawn(process.execPath, [join(compiled!, 'bench', 'inprocess.js'), file, '--json', ...(QUICK ? ['--quick'] : [])], {
    cwd: compiled,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  children.delete(child);
  if (code !== 0) throw new Error(`bench/inprocess.ts exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop()!) as InProcessResult[];
}

// ---------------------------------------------------------------- report
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

/** `--generator`: the generator section alone. */
async function generatorOnly(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const { lines, targets } = generatorReport(await runGenerator(GENERATOR_SIZES, join(root, '.tmp', 'bench-generator'), log));
  lines.push('| target | measured | |', '|---|---:|---|', ...targets.map(([name, ok, value]) => `| ${name} | ${value} | ${mark(ok)} |`), '');
  const text = lines.join('\n');
  process.stdout.write(`\n${text}\n`);
  if (option('--out')) writeFileSync(OUT, text);
}

async function main(): Promise<void> {
  if (GENERATOR_ONLY) return generatorOnly();
  const started = performance.now();
  const lines: string[] = [];
  const begun = performance.now();
  const log = (line: string) => process.stderr.write(`[${((performance.now() - begun) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
  const load0 = loadavg();
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${mb(totalmem())} MB, Node ${process.version}, ${process.platform}`;
  log(`jsonapi-gen benchmarks${QUICK ? ' (--quick)' : ''} on ${machine}; load average ${load0.map((l) => l.toFixed(2)).join(' ')}`);

  workDir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-bench-'));
  compiled = join(workDir, 'js');
  log(`compiled ${compile(root, compiled)} files to plain JavaScript`);
  const files = new Map<number, string>();
  for (const articles of config.scaleDbs) {
    const file = join(workDir, `blog-${articles}.sqlite`);
    const ms = await seedFile(file, articles);
    files.set(articles, file);
    log(`seeded ${f0(articles)} articles in ${(ms / 1000).toFixed(1)} s`);
  }
  const main1k = files.get(SEEDED_ARTICLES)!;

  log('SQL statements per request ...');
  const sql = await countStatements(main1k);
  log('HTTP, routes a-f ...');
  const http = await httpRoutes(main1k, log);
  log('Node adapter floor ...');
  const floors = await adapterFloor(log);
  log('scale ...');
  const scaled = await scale(files, log);
  log('memory ...');
  const mem = await memory(main1k, log);
  log('in-process ...');
  const pipeline = await inProcess(main1k);
  log('generator ...');
  const generator = generatorReport(await runGenerator(GENERATOR_SIZES, join(root, '.tmp', 'bench-generator'), log));
  const load1 = loadavg();
  const seconds = (performance.now() - started) / 1000;

  // ------------------------------------------------------------ tables
  const sqlOf = (name: string) => sql.filter((s) => s.route === name || s.route.startsWith(`${name}@`));
  const sqlLimit: Record<string, [number, string]> = { a: [2, '<= 2'], b: [4, '<= 4'], c: [1, '= 1'], 'c+1': [2, '= 2'], 'c+2': [3, '= 3'], f: [5, '<= 5'] };
  const targets: Array<[string, boolean, string]> = [];

  lines.push(`# jsonapi-gen benchmarks`, '');
  lines.push(`\`npm run bench${QUICK ? ' -- --quick' : ''}\` on ${machine}; load average ${load0.map((l) => l.toFixed(2)).join(' ')} at the start, ${load1.map((l) => l.toFixed(2)).join(' ')} at the end; ${seconds.toFixed(0)} s in all. Seeded SQLite files (WAL) in a temporary directory; servers on 127.0.0.1 in their own processes, NODE_ENV=production; autocannon with ${CONNECTIONS} connections, ${WARM_ROUNDS} rounds of warm-up bursts over every route (the servers taking turns), then per run a warm-up of ${config.warmupRequests} requests and ${config.duration} s measured${QUICK ? '' : ` (route f: ${ROUTES.find((r) => r.name === 'f')?.seconds ?? config.duration} s)`}, each route for both servers in turn, ${config.reps} time(s) (the floor rows ${Math.min(config.reps, 3)}), medians; a route's demo / baseline is the median of its repetitions' ratios (both servers measured back to back), with their range.`, '');

  lines.push('## HTTP: demo against the hand-written baseline (1,000 articles)', '');
  lines.push('| route | demo req/s | baseline req/s | demo / baseline (range) | CPU µs/request (demo / baseline) | demo p50 / p99 ms | baseline p50 / p99 ms | body bytes (demo / baseline) | SQL (demo / baseline) | target >= 0.8 |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const range = (ratios: number[]) => (ratios.length > 1 ? ` (${f2(Math.min(...ratios))}-${f2(Math.max(...ratios))})` : '');
  for (const row of http) {
    const key = { a: 'a@20', b: 'b@20', f: 'f@50' }[row.name] ?? row.name;
    const counts = sql.find((s) => s.route === key);
    const ok = row.ratio >= 0.8;
    targets.push([`HTTP ${row.name} >= 0.8 × baseline`, ok, `${f2(row.ratio)}`]);
    lines.push(`| ${row.name} \`${row.label}\` | ${f0(row.demo.rps)} | ${f0(row.baseline.rps)} | ${f2(row.ratio)}${range(row.ratios)} | ${f0(row.demo.cpu)} / ${f0(row.baseline.cpu)} | ${row.demo.p50} / ${row.demo.p99} | ${row.baseline.p50} / ${row.baseline.p99} | ${f0(row.demoBytes)} / ${f0(row.baselineBytes)} | ${counts ? `${counts.demo} / ${counts.baseline}` : '-'} | ${mark(ok)} |`);
  }
  for (const floor of floors) {
    lines.push(`| ${floor.label} | ${f0(floor.demo.rps)} | ${f0(floor.baseline.rps)} | ${f2(floor.ratio)} | ${f0(floor.demo.cpu)} / ${f0(floor.baseline.cpu)} | ${floor.demo.p50} / ${floor.demo.p99} | ${floor.baseline.p50} / ${floor.baseline.p99} | ${f0(floor.demoBytes)} / ${f0(floor.baselineBytes)} | 0 / 0 | (reported) |`);
  }
  lines.push(
    '',
    'CPU µs/request is the server process\'s own CPU time (user + system) over the measured run divided by the requests served: unlike req/s it hardly depends on what else the machine runs. The load generator shares the machine\'s cores with the server; on the floor rows autocannon itself saturates a core, so their req/s understate both servers (compare their CPU µs/request).',
    '',
  );
  lines.push('## SQL statements per request', '');
  lines.push('Counted through Kysely\'s `log` option (`startDemo({ log })`, in-process) for the demo, and by the baseline\'s own statement hook; route d includes `begin` and `commit` (the demo\'s also the `savepoint` and `release` of its group commit).', '');
  lines.push('| route | request | demo | baseline | target | |');
  lines.push('|---|---|---:|---:|---|---|');
  for (const s of sql) {
    const base = s.route.split('@')[0]!;
    const limit = sqlLimit[base];
    const ok = limit ? (limit[1].startsWith('=') ? s.demo === limit[0] : s.demo <= limit[0]) : true;
    if (limit) targets.push([`SQL ${s.route} ${limit[1]}`, ok, String(s.demo)]);
    lines.push(`| ${s.route} | \`${s.method} ${s.path}\` | ${s.demo} | ${s.baseline} | ${limit ? limit[1] : '-'} | ${limit ? mark(ok) : ''} |`);
  }
  // Not more statements for a bigger page (fewer can be: a larger page may read every person an
  // include names with the authors already, so comments.author reads none).
  for (const name of ['a', 'b', 'f']) {
    const counts = sqlOf(name).map((s) => s.demo);
    targets.push([`SQL ${name} does not grow with page size (${PAGE_SIZES.join(', ')})`, counts.every((n) => n <= counts[0]!), counts.join(', ')]);
  }
  lines.push('');

  lines.push('## In-process: `api.handle` against `JSON.stringify` of its document', '');
  lines.push('The generated blog API over an in-memory data layer (pre-built, pre-sorted arrays), tinybench; the stringify column is `JSON.stringify` of the same document, the serialization a hand-written server pays (the runtime writes documents with its own `documentJson`, which gives the same text for less).', '');
  lines.push('| route | api.handle µs | JSON.stringify µs | multiple | document bytes | target |');
  lines.push('|---|---:|---:|---:|---:|---|');
  for (const p of pipeline) {
    const ok = p.route !== 'b' || p.ratio <= 3;
    if (p.route === 'b') targets.push(['in-process b <= 3 × JSON.stringify', ok, f2(p.ratio)]);
    lines.push(`| ${p.route} \`${p.path}\` | ${p.handleUs.toFixed(1)} | ${p.stringifyUs.toFixed(1)} | ${f2(p.ratio)} | ${f0(p.bytes)} | ${p.route === 'b' ? `<= 3: ${mark(ok)}` : '-'} |`);
  }
  lines.push('');

  lines.push('## Scale: route b by page size and database size', '');
  lines.push(`autocannon, a warm-up of ${config.warmupRequests} requests then ${config.duration} s, one run each; µs/request is the server's CPU time per request.`, '');
  lines.push('| articles | page[limit] | included | body bytes | demo req/s | demo µs/request | baseline req/s | baseline µs/request | demo / baseline |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of scaled) {
    lines.push(`| ${f0(r.articles)} | ${r.limit} | ${r.included} | ${f0(r.bytes)} | ${f0(r.demo.rps)} | ${f0(r.demo.cpu)} | ${f0(r.baseline.rps)} | ${f0(r.baseline.cpu)} | ${f2(r.demo.rps / r.baseline.rps)} |`);
  }
  const growth = (articles: number) => {
    const at = (limit: number) => scaled.find((r) => r.articles === articles && r.limit === limit);
    const [lo, hi] = [at(10), at(50)];
    if (!lo || !hi) return undefined;
    const perRow = (hi.demo.cpu - lo.demo.cpu) / 40;
    const basePerRow = (hi.baseline.cpu - lo.baseline.cpu) / 40;
    return { perRow, fixed: lo.demo.cpu - 10 * perRow, basePerRow, baseFixed: lo.baseline.cpu - 10 * basePerRow };
  };
  const g = growth(SEEDED_ARTICLES);
  const sizes = [...files.keys()];
  const bySize = sizes.map((n) => scaled.find((r) => r.articles === n && r.limit === 20)).filter((r) => r !== undefined);
  lines.push('');
  if (g) {
    lines.push(
      `Growth at 1,000 articles (CPU time, from page[limit] 10 to 50): the demo costs about ${g.fixed.toFixed(0)} µs per request plus ${g.perRow.toFixed(1)} µs per article on the page (the baseline ${g.baseFixed.toFixed(0)} µs plus ${g.basePerRow.toFixed(1)} µs); each article brings its author and 0-3 tags, so the cost is linear in page size and in include fan-out, while the number of statements stays 4.`,
    );
  }
  if (bySize.length > 1) {
    lines.push(`By database size at page[limit]=20 (CPU µs/request): ${bySize.map((r) => `${f0(r.articles)} articles ${f0(r.demo.cpu)} (baseline ${f0(r.baseline.cpu)})`).join('; ')}; what grows is the count(*) and the sorted page scan, which both servers pay.`);
  }
  lines.push('');

  lines.push('## Memory: the demo\'s resident set under route b', '');
  lines.push('| requests served | RSS MB | RSS after a forced GC MB | heap used after GC MB |');
  lines.push('|---:|---:|---:|---:|');
  for (const p of mem.points) lines.push(`| ${f0(p.requests)} | ${mb(p.rss)} | ${mb(p.rssAfterGc)} | ${mb(p.heapAfterGc)} |`);
  const [m0, m1] = [mem.points[0]!, mem.points[mem.points.length - 1]!];
  const rssDelta = m1.rss - m0.rss;
  // Noise: V8's heap spaces and malloc's arenas move RSS by a few MB between two readings of a
  // steady process; a leak shows in the live heap after a forced GC, and keeps growing.
  const memOk = rssDelta <= 10 * 1024 * 1024 && mem.heapGrowth <= 0.1;
  targets.push([`memory: ${f0(config.memory[0]!)} -> ${f0(config.memory[config.memory.length - 1]!)} requests, RSS growth <= 10 MB and live heap growth <= 10%`, memOk, `RSS ${rssDelta >= 0 ? '+' : ''}${mb(rssDelta)} MB (${(mem.growth * 100).toFixed(1)}%), heap ${(mem.heapGrowth * 100).toFixed(1)}%`]);
  // The middle reading tells a plateau (a process settling) from a climb (a leak).
  const mLate = mem.points[mem.points.length - 2]!;
  const late = m1.rss - mLate.rss;
  lines.push('', `From the first to the last reading: RSS ${rssDelta >= 0 ? '+' : ''}${mb(rssDelta)} MB (${(mem.growth * 100).toFixed(1)}%), live heap after a forced GC ${(mem.heapGrowth * 100).toFixed(1)}%; over the last ${f0(m1.requests - mLate.requests)} requests alone, RSS ${late >= 0 ? '+' : ''}${mb(late)} MB. Noise, measured on this machine across runs: a few MB of RSS either way (V8 heap spaces, malloc arenas); the criterion is RSS growth <= 10 MB and live-heap growth <= 10%.`, '');

  lines.push(...generator.lines);
  targets.push(...generator.targets);

  lines.push('## Targets', '');
  lines.push('| target | measured | |');
  lines.push('|---|---:|---|');
  for (const [name, ok, value] of targets) lines.push(`| ${name} | ${value} | ${mark(ok)} |`);
  const missed = targets.filter(([, ok]) => !ok).length;
  lines.push('', missed === 0 ? 'All targets met.' : `${missed} target(s) missed.`, '');

  const text = lines.join('\n');
  process.stdout.write(`\n${text}\n`);
  // Keep the sections other runs write (--db postgres, --db postgres --workers: each a top-level
  // heading after this run's own) beside the SQLite tables.
  const previous = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  const others = previous.indexOf('\n# ');
  writeFileSync(OUT, others === -1 ? text : `${text.trimEnd()}\n\n${previous.slice(others + 1)}`);
  log(`written to ${OUT}`);
}

/** `--db postgres`: routes a-f on a throwaway cluster, demo against the node-postgres baseline. */
async function mainPostgres(): Promise<void> {
  const started = performance.now();
  const log = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
  const load0 = loadavg();
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${mb(totalmem())} MB, Node ${process.version}, ${process.platform}`;
  log(`jsonapi-gen PostgreSQL benchmark${QUICK ? ' (--quick)' : ''} on ${machine}; load average ${load0.map((l) => l.toFixed(2)).join(' ')}`);
  workDir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-bench-'));
  compiled = join(workDir, 'js');
  log(`compiled ${compile(root, compiled)} files to plain JavaScript`);
  pgBench = await startPgBench();
  const bench = pgBench;
  log(`seeded ${f0(SEEDED_ARTICLES)} articles into a throwaway cluster`);
  const sql = await countPgStatements(bench);
  log('HTTP, routes a-f ...');
  const http = await httpRoutes(bench.url, log, { reset: () => bench.reset(), extraCpu: () => bench.cpu() });
  const load1 = loadavg();
  const lines: string[] = [PG_HEADING, ''];
  lines.push(`\`npm run bench -- --db postgres${QUICK ? ' --quick' : ''}\` on ${machine}; load average ${load0.map((l) => l.toFixed(2)).join(' ')} at the start, ${load1.map((l) => l.toFixed(2)).join(' ')} at the end; ${((performance.now() - started) / 1000).toFixed(0)} s in all. A throwaway cluster (test/support/pg-cluster.ts: fsync off) seeded like \`npm run demo -- --seed 1000\`, one database for both servers; the demo (\`startDemo({ databaseUrl })\`, Kysely, pool of 10) against bench/baseline/pg-server.ts (node:http + node-postgres, pool of 10, named statements, batched includes, the same documents: bench/baseline/pg-baseline.test.ts); otherwise as the SQLite table (${CONNECTIONS} connections, ${config.reps} repetition(s), order alternated, medians of paired ratios). CPU is the server process's, then PostgreSQL's (every process of the cluster, from /proc/PID/stat), per request.`, '');
  lines.push('| route | demo req/s | baseline req/s | demo / baseline (range) | CPU µs/request node + PostgreSQL (demo / baseline) | demo p50 / p99 ms | baseline p50 / p99 ms | SQL (demo / baseline) | target >= 0.8 |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  const range = (ratios: number[]) => (ratios.length > 1 ? ` (${f2(Math.min(...ratios))}-${f2(Math.max(...ratios))})` : '');
  for (const row of http) {
    const counts = sql.find((s) => s.route === row.name);
    const cpu = (l: Load) => `${f0(l.cpu)} + ${f0(l.dbCpu ?? NaN)}`;
    lines.push(`| ${row.name} \`${row.label}\` | ${f0(row.demo.rps)} | ${f0(row.baseline.rps)} | ${f2(row.ratio)}${range(row.ratios)} | ${cpu(row.demo)} / ${cpu(row.baseline)} | ${row.demo.p50} / ${row.demo.p99} | ${row.baseline.p50} / ${row.baseline.p99} | ${counts ? `${counts.demo} / ${counts.baseline}` : '-'} | ${mark(row.ratio >= 0.8)} |`);
  }
  lines.push('', 'The demo\'s statements per request on PostgreSQL (Kysely\'s `log`; route d\'s include `begin`, `commit` and the group commit\'s `savepoint` / `release`):', '');
  for (const s of sql) lines.push(`- ${s.route}: ${s.statements.map((q) => `\`${q.length > 90 ? `${q.slice(0, 87)}...` : q}\``).join('; ')}`);
  lines.push('');
  const section = lines.join('\n');
  process.stdout.write(`\n${section}\n`);
  writeFileSync(OUT, withPgSection(existsSync(OUT) ? readFileSync(OUT, 'utf8') : '', section));
  log(`written to ${OUT}`);
}

/** `--db postgres --workers`: one demo process against four, and the long mixed workload (bench/scaling.ts). */
async function mainScaling(): Promise<void> {
  const started = performance.now();
  const log = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
  const load0 = loadavg();
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${mb(totalmem())} MB, Node ${process.version}, ${process.platform}`;
  log(`jsonapi-gen PostgreSQL scaling benchmark${QUICK ? ' (--quick)' : ''} on ${machine}; load average ${load0.map((l) => l.toFixed(2)).join(' ')}`);
  workDir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-bench-'));
  compiled = join(workDir, 'js');
  log(`compiled ${compile(root, compiled)} files to plain JavaScript`);
  pgBench = await startPgBench();
  log(`seeded ${f0(SEEDED_ARTICLES)} articles into a throwaway cluster`);
  const options = { compiled, children, bench: pgBench, reps: config.reps, duration: config.duration, warmupRequests: config.warmupRequests, warmRounds: WARM_ROUNDS, warmPerProcess: QUICK ? 1_000 : 3_000, mixedSeconds: QUICK ? 5 : 25, log };
  const body = await scalingSection(options);
  const load1 = loadavg();
  const text = [
    SCALING_HEADING,
    '',
    `\`npm run bench -- --db postgres --workers${QUICK ? ' --quick' : ''}\` on ${machine}; load average ${load0.map((l) => l.toFixed(2)).join(' ')} at the start, ${load1.map((l) => l.toFixed(2)).join(' ')} at the end; ${((performance.now() - started) / 1000).toFixed(0)} s in all. A throwaway cluster as in the PostgreSQL section (test/support/pg-cluster.ts: fsync off).`,
    '',
    body,
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(OUT, withSection(existsSync(OUT) ? readFileSync(OUT, 'utf8') : '', SCALING_HEADING, text));
  log(`written to ${OUT}`);
}

(DB === 'postgres' ? (WORKERS ? mainScaling() : mainPostgres()) : main())
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(cleanup);
