/**
 * The benchmark suite of issue 8: `npm run bench` (about four minutes) or `npm run bench -- --quick`
 * (about one). Seeds SQLite files in a temporary directory (removed at the end), then measures:
 *
 * 1. SQL statements per route, demo (Kysely's `log`, in-process) and baseline, at page sizes 10/20/50.
 * 2. HTTP, routes a-g: the demo and the hand-written baseline (bench/baseline) as separate
 *    processes on the same file, loaded in turn with autocannon (32 connections, warm-up, then a
 *    fixed duration), alternating servers, repeated; medians. Plus the Node adapter's floor: a
 *    constant document through `toNodeHandler` (as the runtime's response, and as a platform
 *    `new Response`) against plain node:http.
 * 3. Scale: route b at page[limit] 10, 20, 50 on 1k, 10k, 100k articles.
 * 3b. Query (issue 25, bench/query.ts): on the 100k file (--quick: 10k), an offset page at 90%
 *    against the first, the cursor page at 90% against the first, and the filtered route
 *    against the baseline's hand-written SQL.
 * 4. Memory: the demo's resident memory after 10k, 55k and 100k requests of route b.
 * 5. In-process: `api.handle` over in-memory data against `JSON.stringify` of its document.
 *
 * 6. Generator: `jsonapi-gen build` of 20, 100 and 500 resources (--quick: 20 and 100), its
 *    output, and `tsc` of it, against openapi-typescript on the produced document (bench/generator).
 *
 * Prints the tables with targets met or missed, and writes them to bench/results.md. This file is
 * the entry (options, the run's children, the order of the sections); the SQLite sections are in
 * bench/sqlite-sections.ts, their tables in bench/report.ts, a server process and one measured
 * run in bench/server-process.ts.
 * Options: --quick, --out FILE (default bench/results.md), --profile DIR (CPU profiles of the
 * demo processes, `node --cpu-prof`), --generator (only section 6, printed; written only with --out),
 * --query (only section 3b, likewise),
 * --db postgres (section 2 only, on a throwaway PostgreSQL cluster against bench/baseline/pg-server.ts,
 * with PostgreSQL's CPU; see bench/postgres.ts), --db mysql (the same on a throwaway MariaDB
 * against bench/baseline/mysql-server.ts, with the server's CPU; see bench/mysql.ts), --db postgres --workers (instead: the demo as one
 * process against four on one throwaway PostgreSQL database, routes a, c and d, with the cores
 * each side kept busy; then the mixed workload of test/e2e/workers.test.ts for about 25 s (5 s
 * with --quick) on four processes, requests by status and the invariants; see bench/scaling.ts),
 * --store prisma|drizzle (instead: routes a-g on the demo's Kysely store, that store and the
 * baseline side by side, statements per route by page size, and a CPU profile of that store's demo
 * on route b, into --profile DIR if given; on SQLite, or with --db postgres on a throwaway
 * cluster; see bench/stores.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from './compile.js';
import { CONNECTIONS, f0, f2, mb } from './load.js';
import { SIZES, generatorReport, runGenerator } from './generator/measure.js';
import { MYSQL_HEADING, type MysqlBench, countMysqlStatements, startMysqlBench } from './mysql.js';
import { PG_HEADING, type PgBench, countPgStatements, startPgBench, withPgSection, withSection } from './postgres.js';
import {
  type OtherStore,
  type StoreDb,
  countStatements as countStoreStatements,
  profileRouteB,
  storeHeading,
  storeHttp,
  storeLabel,
  storeReport,
} from './stores.js';
import { prismaFloor } from './prisma-floor.js';
import { querySection } from './query.js';
import { generateClients } from '../integrations/prisma/scripts/generate.js';
import { SCALING_HEADING, scalingSection } from './scaling.js';
import { mark, postgresTable, sqliteReport, targetTable } from './report.js';
import { SEEDED_ARTICLES } from './routes.js';
import type { BenchConfig, BenchContext } from './server-process.js';
import {
  WARM_ROUNDS,
  adapterFloor,
  countStatements,
  httpRoutes,
  inProcess,
  memory,
  scale,
  seedFile,
} from './sqlite-sections.js';

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
const QUERY_ONLY = args.includes('--query');
const GENERATOR_SIZES = QUICK ? [20, 100] : SIZES;
const DB = option('--db') ?? 'sqlite';
if (DB !== 'sqlite' && DB !== 'postgres' && DB !== 'mysql') throw new Error(`--db ${DB}: sqlite, postgres or mysql`);
const WORKERS = args.includes('--workers');
if (WORKERS && DB !== 'postgres')
  throw new Error('--workers goes with --db postgres (processes on one PostgreSQL database)');
const STORE = option('--store') ?? 'kysely';
if (STORE !== 'kysely' && STORE !== 'prisma' && STORE !== 'drizzle')
  throw new Error(`--store ${STORE}: kysely, prisma or drizzle`);
if (DB === 'mysql' && (STORE !== 'kysely' || GENERATOR_ONLY || QUERY_ONLY))
  throw new Error('--db mysql goes alone, or with --quick, --profile and --out');
if (STORE !== 'kysely' && (WORKERS || GENERATOR_ONLY || QUERY_ONLY))
  throw new Error(`--store ${STORE} goes alone, or with --db postgres, --quick, --profile and --out`);

// autocannon counts durations in whole seconds (0.25 runs for 1 s, and so does any `amount`):
// measured runs last whole seconds; warm-ups are bursts of fetches (see burst()).
const config: BenchConfig = QUICK
  ? { reps: 1, warmupRequests: 128, duration: 1, scaleDbs: [1_000], memory: [5_000, 10_000, 15_000], inProcessMs: 300 }
  : {
      reps: 6,
      warmupRequests: 128,
      duration: 1,
      scaleDbs: [1_000, 10_000, 100_000],
      memory: [10_000, 55_000, 100_000],
      inProcessMs: 700,
    };
/**
 * Articles of the query section's file (bench/query.ts): the scale section's largest in the full
 * run; --quick seeds 10,000 for it (its own file), enough to see depth without a minute of seeding.
 */
const QUERY_ARTICLES = QUICK ? 10_000 : 100_000;

// ---------------------------------------------------------------- processes, always stopped
const children = new Set<ChildProcess>();
let workDir: string | undefined;
/** Where the compiled JavaScript the servers run lives (see compile.ts). */
let compiled: string | undefined;
let pgBench: PgBench | undefined;
let mysqlBench: MysqlBench | undefined;
function cleanup(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  pgBench?.stop();
  pgBench = undefined;
  // Its SIGTERM goes out at once; on the way out of the process, its directory may stay behind.
  void mysqlBench?.stop();
  mysqlBench = undefined;
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

/** The run's state for the sections, once the servers' JavaScript is compiled. */
const context = (): BenchContext => ({
  compiled: compiled!,
  children,
  profile: PROFILE || undefined,
  quick: QUICK,
  config,
});

/** `--generator`: the generator section alone. */
async function generatorOnly(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const { lines, targets } = generatorReport(
    await runGenerator(GENERATOR_SIZES, join(root, '.tmp', 'bench-generator'), log),
  );
  lines.push(...targetTable(targets), '');
  const text = lines.join('\n');
  process.stdout.write(`\n${text}\n`);
  if (option('--out')) writeFileSync(OUT, text);
}

/** The query section's file: the scale section's when it seeded that size, else seeded now. */
async function queryFile(files: Map<number, string>, log: (line: string) => void): Promise<string> {
  const existing = files.get(QUERY_ARTICLES);
  if (existing) return existing;
  const file = join(workDir!, `blog-${QUERY_ARTICLES}.sqlite`);
  const ms = await seedFile(file, QUERY_ARTICLES);
  log(`seeded ${f0(QUERY_ARTICLES)} articles for the query section in ${(ms / 1000).toFixed(1)} s`);
  return file;
}

/** `--query`: the query section alone (bench/query.ts), printed; written only with --out. */
async function queryOnly(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  compiled = compileSources(log).compiled;
  const { lines, targets } = await querySection(context(), await queryFile(new Map(), log), QUERY_ARTICLES, log);
  lines.push(...targetTable(targets), '');
  const text = lines.join('\n');
  process.stdout.write(`\n${text}\n`);
  if (option('--out')) writeFileSync(OUT, text);
}

async function main(): Promise<void> {
  if (GENERATOR_ONLY) return generatorOnly();
  if (QUERY_ONLY) return queryOnly();
  const { started, log, load0, machine } = beginRun('jsonapi-gen benchmarks');
  const sources = compileSources(log);
  compiled = sources.compiled;
  const ctx = context();
  const files = new Map<number, string>();
  for (const articles of config.scaleDbs) {
    const file = join(sources.work, `blog-${articles}.sqlite`);
    const ms = await seedFile(file, articles);
    files.set(articles, file);
    log(`seeded ${f0(articles)} articles in ${(ms / 1000).toFixed(1)} s`);
  }
  const main1k = files.get(SEEDED_ARTICLES)!;

  log('SQL statements per request ...');
  const sql = await countStatements(main1k);
  log('HTTP, routes a-g ...');
  const http = await httpRoutes(ctx, main1k, log);
  log('Node adapter floor ...');
  const floors = await adapterFloor(ctx, log);
  log('scale ...');
  const scaled = await scale(ctx, files, log);
  log('query: deep pages and a filtered route ...');
  const query = await querySection(ctx, await queryFile(files, log), QUERY_ARTICLES, log);
  log('memory ...');
  const mem = await memory(ctx, main1k, log);
  log('in-process ...');
  const pipeline = await inProcess(ctx, main1k);
  log('generator ...');
  const generator = generatorReport(await runGenerator(GENERATOR_SIZES, join(root, '.tmp', 'bench-generator'), log));
  const load1 = loadavg();
  const seconds = (performance.now() - started) / 1000;

  const text = sqliteReport({
    quick: QUICK,
    config,
    machine,
    load0,
    load1,
    seconds,
    files,
    sql,
    http,
    floors,
    scaled,
    mem,
    pipeline,
    generator,
    extra: query,
  });
  process.stdout.write(`\n${text}\n`);
  // Keep the sections other runs write (--db postgres, --db postgres --workers: each a top-level
  // heading after this run's own) beside the SQLite tables.
  const previous = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  const others = previous.indexOf('\n# ');
  writeFileSync(OUT, others === -1 ? text : `${text.trimEnd()}\n\n${previous.slice(others + 1)}`);
  log(`written to ${OUT}`);
}

/** A run as it starts: its clock, its log (seconds since the start), the machine and its load. */
interface Run {
  started: number;
  log: (line: string) => void;
  machine: string;
  load0: number[];
  /** "`command` on the machine; load average ... at the start, ... at the end; N s in all.": a section's first words. */
  ranOn: (command: string) => string;
}

/** Starts a run: logs `title` (with `--quick`), the machine and its load average. */
function beginRun(title: string): Run {
  const started = performance.now();
  const log = (line: string) =>
    process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
  const load0 = loadavg();
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${mb(totalmem())} MB, Node ${process.version}, ${process.platform}`;
  const loads = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  log(`${title}${QUICK ? ' (--quick)' : ''} on ${machine}; load average ${loads(load0)}`);
  const ranOn = (command: string) =>
    `\`${command}${QUICK ? ' --quick' : ''}\` on ${machine}; load average ${loads(load0)} at the start, ${loads(loadavg())} at the end; ${((performance.now() - started) / 1000).toFixed(0)} s in all.`;
  return { started, log, machine, load0, ranOn };
}

/** A fresh work folder (`work`), and the sources compiled into it as the servers run them (`compiled`, see compile.ts). */
function compileSources(log: (line: string) => void): { work: string; compiled: string } {
  const work = mkdtempSync(join(tmpdir(), 'jsonapi-gen-bench-'));
  workDir = work;
  const into = join(work, 'js');
  log(`compiled ${compile(root, into)} files to plain JavaScript`);
  return { work, compiled: into };
}

/** `--db postgres`: routes a-g on a throwaway cluster, demo against the node-postgres baseline. */
async function mainPostgres(): Promise<void> {
  const { log, ranOn } = beginRun('jsonapi-gen PostgreSQL benchmark');
  compiled = compileSources(log).compiled;
  pgBench = await startPgBench();
  const bench = pgBench;
  log(`seeded ${f0(SEEDED_ARTICLES)} articles into a throwaway cluster`);
  const ctx = context();
  const sql = await countPgStatements(bench);
  log('HTTP, routes a-g ...');
  const http = await httpRoutes(ctx, bench.url, log, { reset: () => bench.reset(), extraCpu: () => bench.cpu() });
  const lines: string[] = [PG_HEADING, ''];
  lines.push(
    `${ranOn('npm run bench -- --db postgres')} A throwaway cluster (test/support/pg-cluster.ts: fsync off) seeded like \`npm run demo -- --seed 1000\`, one database for both servers; the demo (\`startDemo({ databaseUrl })\`, Kysely, pool of 10) against bench/baseline/pg-server.ts (node:http + node-postgres, pool of 10, named statements, batched includes, the same documents: bench/baseline/pg-baseline.test.ts); otherwise as the SQLite table (${CONNECTIONS} connections, ${config.reps} repetition(s), order alternated, medians of paired ratios). CPU is the server process's, then PostgreSQL's (every process of the cluster, from /proc/PID/stat), per request.`,
    '',
  );
  lines.push(...postgresTable(http, sql));
  lines.push('');
  const section = lines.join('\n');
  process.stdout.write(`\n${section}\n`);
  writeFileSync(OUT, withPgSection(existsSync(OUT) ? readFileSync(OUT, 'utf8') : '', section));
  log(`written to ${OUT}`);
}

/** `--db mysql`: routes a-g on a throwaway MariaDB, demo against the mysql2 baseline. */
async function mainMysql(): Promise<void> {
  const { log, ranOn } = beginRun('jsonapi-gen MySQL benchmark');
  compiled = compileSources(log).compiled;
  const bench = await startMysqlBench();
  mysqlBench = bench;
  try {
    log(`seeded ${f0(SEEDED_ARTICLES)} articles into a throwaway MariaDB`);
    const version = await bench.version();
    const ctx = { ...context(), profileKinds: ['demo-mysql'] };
    const sql = await countMysqlStatements(bench);
    log('HTTP, routes a-g ...');
    const http = await httpRoutes(ctx, bench.url, log, {
      reset: () => bench.reset(),
      extraCpu: () => bench.cpu(),
      suffix: '-mysql',
    });
    const lines: string[] = [MYSQL_HEADING, ''];
    lines.push(
      `${ranOn('npm run bench -- --db mysql')} A throwaway MariaDB ${version} (test/support/mariadb.ts: no flush at commit, no doublewrite, 64 MB buffer pool) seeded like \`npm run demo -- --seed 1000\`, one database for both servers; the demo (\`startDemo({ databaseUrl: 'mysql://...' })\`, Kysely on mysql2, pool of 10) against bench/baseline/mysql-server.ts (node:http + mysql2, pool of 10, prepared statements through \`pool.execute\`, batched includes, the same documents: bench/baseline/mysql-baseline.test.ts); otherwise as the SQLite table (${CONNECTIONS} connections, ${config.reps} repetition(s), order alternated, medians of paired ratios). CPU is the server process's, then MariaDB's (its one process, from /proc/PID/stat), per request.`,
      '',
    );
    lines.push(...postgresTable(http, sql, 'MySQL'));
    const required = http.filter((row) => 'abcdef'.includes(row.name));
    const lowest = required.reduce((low, row) => (row.ratio < low.ratio ? row : low));
    lines.push(
      '',
      `Target: demo / baseline ≥ 0.8× on every route a–f: ${mark(lowest.ratio >= 0.8)} (lowest ${f2(lowest.ratio)}, route ${lowest.name}).`,
      '',
    );
    const section = lines.join('\n');
    process.stdout.write(`\n${section}\n`);
    writeFileSync(OUT, withSection(existsSync(OUT) ? readFileSync(OUT, 'utf8') : '', MYSQL_HEADING, section));
    log(`written to ${OUT}`);
  } finally {
    mysqlBench = undefined;
    await bench.stop();
  }
}

/** `--db postgres --workers`: one demo process against four, and the long mixed workload (bench/scaling.ts). */
async function mainScaling(): Promise<void> {
  const { log, ranOn } = beginRun('jsonapi-gen PostgreSQL scaling benchmark');
  compiled = compileSources(log).compiled;
  pgBench = await startPgBench();
  log(`seeded ${f0(SEEDED_ARTICLES)} articles into a throwaway cluster`);
  const options = {
    compiled,
    children,
    bench: pgBench,
    reps: config.reps,
    duration: config.duration,
    warmupRequests: config.warmupRequests,
    warmRounds: WARM_ROUNDS,
    warmPerProcess: QUICK ? 1_000 : 3_000,
    mixedSeconds: QUICK ? 5 : 25,
    log,
  };
  const body = await scalingSection(options);
  const text = [
    SCALING_HEADING,
    '',
    `${ranOn('npm run bench -- --db postgres --workers')} A throwaway cluster as in the PostgreSQL section (test/support/pg-cluster.ts: fsync off).`,
    '',
    body,
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(OUT, withSection(existsSync(OUT) ? readFileSync(OUT, 'utf8') : '', SCALING_HEADING, text));
  log(`written to ${OUT}`);
}

/** `--store prisma|drizzle`: routes a-g on the Kysely store, that store and the baseline (bench/stores.ts). */
async function mainStore(store: OtherStore): Promise<void> {
  const label = storeLabel(store);
  const postgres = DB === 'postgres';
  const { log, ranOn } = beginRun(`jsonapi-gen ${label} store benchmark${postgres ? ' on PostgreSQL' : ''}`);
  // The generated clients are TypeScript under examples/blog/prisma/generated, compiled with the rest.
  if (store === 'prisma') generateClients();
  const sources = compileSources(log);
  compiled = sources.compiled;
  let db: StoreDb;
  if (postgres) {
    pgBench = await startPgBench();
    const bench = pgBench;
    db = { kind: 'postgres', url: bench.url, reset: () => bench.reset(), cpu: () => bench.cpu() };
    log(`seeded ${f0(SEEDED_ARTICLES)} articles into a throwaway cluster`);
  } else {
    const file = join(sources.work, `blog-${SEEDED_ARTICLES}.sqlite`);
    const ms = await seedFile(file, SEEDED_ARTICLES);
    db = { kind: 'sqlite', file };
    log(`seeded ${f0(SEEDED_ARTICLES)} articles in ${(ms / 1000).toFixed(1)} s`);
  }
  const ctx = { ...context(), profile: undefined };
  if (store === 'prisma') log('the cost of one Prisma call ...');
  const floor = store === 'prisma' ? await prismaFloor(db) : [];
  log('statements per request ...');
  const counts = await countStoreStatements(store, db);
  log('HTTP, routes a-g ...');
  const rows = await storeHttp(ctx, store, db, log);
  log(`CPU profile of the ${label} demo on route b ...`);
  const profileDir = PROFILE || join(sources.work, 'profile');
  mkdirSync(profileDir, { recursive: true });
  const profile = await profileRouteB(ctx, store, db, profileDir, QUICK ? 2 : 10);
  if (PROFILE) log(`profile: ${profile.file}`);
  const heading = storeHeading(store, postgres);
  const { lines } = storeReport(store, rows, counts, profile, postgres, floor);
  const text = [
    heading,
    '',
    `${ranOn(`npm run bench -- --store ${store}${postgres ? ' --db postgres' : ''}`)} ${postgres ? 'A throwaway cluster (test/support/pg-cluster.ts: fsync off)' : 'A SQLite file (WAL)'} seeded like \`npm run demo -- --seed 1000\`, one database for three servers in their own processes (NODE_ENV=production): the demo on its Kysely store (\`startDemo()\`), the demo on its ${label} store (\`startDemo({ store: '${store}' })\`, ${store === 'prisma' ? `Prisma Client 7 with ${postgres ? '@prisma/adapter-pg, pool of 10' : '@prisma/adapter-better-sqlite3'}` : `drizzle-orm 0.45 on ${postgres ? 'node-postgres, pool of 10' : 'better-sqlite3'}`}) and the hand-written baseline (${postgres ? 'bench/baseline/pg-server.ts' : 'bench/baseline'}); ${CONNECTIONS} connections, ${WARM_ROUNDS} rounds of warm-up over every route, then per run a warm-up of ${config.warmupRequests} requests and ${config.duration} s measured, the servers taking turns (who goes first rotates), ${config.reps} repetition(s), medians; a ratio is the median of the repetitions' paired ratios. CPU µs/request is the server process's own${postgres ? " and PostgreSQL's (every process of the cluster)" : ''}, per request.`,
    '',
    ...lines,
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(OUT, withSection(existsSync(OUT) ? readFileSync(OUT, 'utf8') : '', heading, text));
  log(`written to ${OUT}`);
}

(STORE === 'prisma' || STORE === 'drizzle'
  ? mainStore(STORE)
  : DB === 'postgres'
    ? WORKERS
      ? mainScaling()
      : mainPostgres()
    : DB === 'mysql'
      ? mainMysql()
      : main()
)
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(cleanup);
