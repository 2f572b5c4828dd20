/**
 * `npm run bench -- --db postgres --workers`: the demo as `npm run demo -- --workers N` runs it,
 * on one throwaway PostgreSQL database.
 *
 * 1. Scaling: one demo process against four (node:cluster) on the same seeded database, routes
 *    a, c and d loaded with autocannon as in the other tables; both servers up at once and
 *    measured back to back, order alternated, so each repetition's 4 / 1 ratio cancels the
 *    machine's drift. With the CPU time of the demo's processes, PostgreSQL's and the load
 *    generator's over each run: what the cores were busy with.
 * 2. The mixed workload of test/e2e/workers.test.ts (test/support/mixed-workload.ts), for about
 *    25 s on four processes and a database of its own: requests by status and the invariants.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { INVARIANTS, type WorkloadReport, runMixedWorkload } from '../test/support/mixed-workload.js';
import { f0, f2, load, median, burst } from './load.js';
import { type PgBench, processTreeCpu } from './postgres.js';
import { ROUTES, type Route } from './routes.js';

export const SCALING_HEADING = '# PostgreSQL: one demo process against four, and the mixed workload';

export interface ScalingOptions {
  /** Where compile() put the JavaScript the servers run. */
  compiled: string;
  /** run.ts kills what is left in it when it exits. */
  children: Set<ChildProcess>;
  bench: PgBench;
  reps: number;
  /** Seconds of each measured run. */
  duration: number;
  /** Requests before each measured run. */
  warmupRequests: number;
  /** Rounds of warm-up over the routes before the first measured run. */
  warmRounds: number;
  /** Requests of each route every process serves in the first warm-up round (at most 30 s a route). */
  warmPerProcess: number;
  /** Seconds of the mixed workload. */
  mixedSeconds: number;
  log: (line: string) => void;
}

/** The routes of the scaling table: a list, a read by key, a create. */
const SCALING_ROUTES = ROUTES.filter((route) => ['a', 'c', 'd'].includes(route.name));
const PROCESSES = [1, 4] as const;

interface Demo {
  processes: number;
  url: string;
  /** CPU time of the primary and its workers so far, µs. */
  cpu(): number;
  stop(): Promise<void>;
}

/** `node examples/blog/server.js [--workers N]` (compiled) on `databaseUrl`; resolves once it listens. */
async function startDemoProcesses(
  options: ScalingOptions,
  databaseUrl: string,
  processes: number,
  seed: number,
): Promise<Demo> {
  const args = [
    join(options.compiled, 'examples', 'blog', 'server.js'),
    '--seed',
    String(seed),
    ...(processes > 1 ? ['--workers', String(processes)] : []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: options.compiled,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', NODE_ENV: 'production' },
  });
  options.children.add(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.once('exit', () => options.children.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) =>
      reject(new Error(`the demo (${processes} process(es)) exited with ${code} before listening:\n${out}`)),
    );
  });
  return {
    processes,
    url,
    cpu: () => processTreeCpu(child.pid!),
    stop: async () => {
      // SIGTERM: the primary stops its workers gracefully; SIGKILL if that takes too long.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

interface Sample {
  rps: number;
  p50: number;
  /** Cores busy on average over the run (CPU time / wall time): the demo's processes, PostgreSQL, the load generator. */
  node: number;
  postgres: number;
  loadgen: number;
}

async function measureRun(options: ScalingOptions, demo: Demo, route: Route): Promise<Sample> {
  await burst(demo.url, route, options.warmupRequests, 500);
  const started = performance.now();
  const [node0, pg0, me0] = [demo.cpu(), options.bench.cpu(), process.cpuUsage()];
  const result = await load(demo.url, route, options.duration);
  const wall = (performance.now() - started) * 1000;
  const me = process.cpuUsage(me0);
  return {
    rps: result.rps,
    p50: result.p50,
    node: (demo.cpu() - node0) / wall,
    postgres: (options.bench.cpu() - pg0) / wall,
    loadgen: (me.user + me.system) / wall,
  };
}

interface ScalingRow {
  route: Route;
  one: Sample;
  four: Sample;
  /** Each repetition's req/s with 4 processes over req/s with 1, measured back to back. */
  ratios: number[];
}

const medianSample = (samples: Sample[]): Sample => ({
  rps: median(samples.map((s) => s.rps)),
  p50: median(samples.map((s) => s.p50)),
  node: median(samples.map((s) => s.node)),
  postgres: median(samples.map((s) => s.postgres)),
  loadgen: median(samples.map((s) => s.loadgen)),
});

async function measureScaling(options: ScalingOptions): Promise<ScalingRow[]> {
  const { bench, log } = options;
  const [one, four] = [
    await startDemoProcesses(options, bench.url, 1, 1),
    await startDemoProcesses(options, bench.url, 4, 1),
  ];
  try {
    // Warm-up by requests per process, not by time: each of the four workers sees a quarter of
    // what the server gets, and with the other tables' 500 ms (a first --quick run) each had
    // served about 400 requests of route a when measured and spent twice the single process's
    // CPU per request. Later rounds revisit each route briefly, the servers taking turns.
    for (let round = 0; round < options.warmRounds; round++) {
      for (const route of SCALING_ROUTES) {
        for (const demo of [one, four]) {
          if (round === 0) await burst(demo.url, route, options.warmPerProcess * demo.processes, 30_000);
          else await burst(demo.url, route, 5_000, 300 * demo.processes);
          if (route.method === 'POST') await bench.reset();
        }
      }
    }
    const samples = new Map(SCALING_ROUTES.map((route) => [route.name, { one: [] as Sample[], four: [] as Sample[] }]));
    for (let rep = 0; rep < options.reps; rep++) {
      for (const route of SCALING_ROUTES) {
        const order = (rep + SCALING_ROUTES.indexOf(route)) % 2 === 0 ? [one, four] : [four, one];
        for (const demo of order) {
          const sample = await measureRun(options, demo, route);
          samples.get(route.name)![demo === one ? 'one' : 'four'].push(sample);
          if (route.method === 'POST') await bench.reset();
          log(
            `  rep ${rep + 1} ${route.name} ${demo.processes} process(es) ${f0(sample.rps).padStart(6)} req/s; cores busy: node ${f2(sample.node)}, PostgreSQL ${f2(sample.postgres)}, load generator ${f2(sample.loadgen)}`,
          );
        }
      }
    }
    return SCALING_ROUTES.map((route) => {
      const s = samples.get(route.name)!;
      return {
        route,
        one: medianSample(s.one),
        four: medianSample(s.four),
        ratios: s.four.map((f, i) => f.rps / s.one[i]!.rps),
      };
    });
  } finally {
    await one.stop();
    await four.stop();
  }
}

/** Four processes on a database of their own (seeded with 20 articles), the mixed workload for `mixedSeconds`. */
async function mixedRun(options: ScalingOptions): Promise<WorkloadReport> {
  const admin = new pg.Client(options.bench.cluster.url);
  await admin.connect();
  await admin.query('create database mixed');
  await admin.end();
  const demo = await startDemoProcesses(options, options.bench.cluster.url.replace(/\/postgres$/, '/mixed'), 4, 20);
  try {
    return await runMixedWorkload(demo.url, { seconds: options.mixedSeconds, log: options.log });
  } finally {
    await demo.stop();
  }
}

/** Runs both parts; returns their tables and text for bench/results.md (run.ts adds the heading and the machine). */
export async function scalingSection(options: ScalingOptions): Promise<string> {
  options.log(
    `scaling: routes ${SCALING_ROUTES.map((r) => r.name).join(', ')}, ${PROCESSES.join(' and ')} processes ...`,
  );
  const rows = await measureScaling(options);
  options.log(`mixed workload, ${PROCESSES[1]} processes, ${options.mixedSeconds} s ...`);
  const mixed = await mixedRun(options);
  const cores = cpus().length;
  const lines: string[] = [];

  lines.push('## 1 and 4 processes, routes a, c, d', '');
  lines.push(
    `The demo started as \`npm run demo\` starts it (compiled to JavaScript, \`DATABASE_URL\` set): one process, and \`--workers 4\` (node:cluster: a primary handing connections to four workers), both on the database the other PostgreSQL table uses (1,000 articles), up at the same time. autocannon as in the other tables (32 connections; a warm-up of ${f0(options.warmPerProcess)} requests of each route per process, then ${options.warmRounds - 1} more round(s) over the routes; a burst of ${options.warmupRequests} requests then ${options.duration} s per run); ${options.reps} repetition(s), the two servers back to back in alternating order; medians, and the factor as the median of the repetitions' paired ratios with their range. Cores busy: CPU time over wall time during the run, from /proc for the demo's processes and PostgreSQL's, \`process.cpuUsage()\` for the load generator (autocannon runs in the bench's own process); this machine has ${cores} cores.`,
    '',
  );
  lines.push(
    '| route | 1 process req/s | 4 processes req/s | factor 4 / 1 (range) | cores busy, 1 process: node + PostgreSQL + load generator = total | cores busy, 4 processes | node CPU µs/request (1 / 4) | p50 ms (1 / 4) |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|');
  const total = (s: Sample) => s.node + s.postgres + s.loadgen;
  const busy = (s: Sample) => `${f2(s.node)} + ${f2(s.postgres)} + ${f2(s.loadgen)} = ${f2(total(s))}`;
  // Cores busy over requests a second: the demo's CPU per request, from the medians.
  const perRequest = (s: Sample) => f0((s.node / s.rps) * 1e6);
  const range = (ratios: number[]) =>
    ratios.length > 1 ? ` (${f2(Math.min(...ratios))}-${f2(Math.max(...ratios))})` : '';
  for (const row of rows) {
    lines.push(
      `| ${row.route.name} \`${row.route.label}\` | ${f0(row.one.rps)} | ${f0(row.four.rps)} | ${f2(median(row.ratios))}${range(row.ratios)} | ${busy(row.one)} | ${busy(row.four)} | ${perRequest(row.one)} / ${perRequest(row.four)} | ${row.one.p50} / ${row.four.p50} |`,
    );
  }
  const factors = rows.map((row) => median(row.ratios));
  const overall = Math.exp(factors.reduce((sum, f) => sum + Math.log(f), 0) / factors.length);
  const [oneTotal, fourTotal] = [median(rows.map((row) => total(row.one))), median(rows.map((row) => total(row.four)))];
  lines.push(
    '',
    `Factor over the three routes (geometric mean): ${f2(overall)} on ${cores} cores. It is bounded by the cores, not by the processes: PostgreSQL, the demo's processes and the load generator all run on the same ${cores} cores, and with one process they already kept ${f2(oneTotal)} of them busy, so at the same CPU per request four processes could reach at most ${cores} / ${f2(oneTotal)} = ${f2(cores / oneTotal)}× on an otherwise idle machine. In this run they kept ${f2(fourTotal)} busy${fourTotal < oneTotal * 1.15 ? `, hardly more than one process (${f2(oneTotal)}): the rest of the machine went to other sessions' work (see the load averages), so the factor shows what four processes cost on the same CPU time (more of the demo's CPU per request, see its column: probably fewer requests per event-loop turn in each process, more context switches, four pools and four JITs to keep warm), not how they scale` : ''}.`,
    '',
  );

  lines.push(`## The mixed workload on ${PROCESSES[1]} processes, ${mixed.seconds.toFixed(0)} s`, '');
  lines.push(
    `test/support/mixed-workload.ts, the workload test/e2e/workers.test.ts runs for two rounds in \`npm test\`, run here in rounds for ${options.mixedSeconds} s on \`npm run demo -- --workers 4 --seed 20\` (a database of its own in the same cluster). Each round, all at once: four tag names created four times each; eight PATCHes of article 6 with the round's first \`If-Match\` and eight without; six to-many adds and six removes on its tags; six retries with one \`Idempotency-Key\`; four Atomic batches (a create, a link, then a last operation that fails with 422, 404, 403 or 409); four comment creates; each comment of the round before deleted twice, racing two reads; four reads with includes. Then each invariant is read back (the \`verify\` requests; "times checked" counts checks, per round, name or row, not requests). Only the PATCHes with \`If-Match\` write the article's body, so after a round it must be the one winner's or, with none, the body before; then a PATCH with the round's first (now stale) tag must be 412 and a read must give the same \`ETag\` and attributes: those are the two checks of "every 412 left the row as it was". ${mixed.rounds} rounds, ${f0(mixed.requests)} requests (${f0(mixed.requests / mixed.seconds)} a second).`,
    '',
  );
  lines.push('| status | requests |', '|---:|---:|');
  for (const [status, n] of mixed.byStatus) lines.push(`| ${status === 0 ? 'no response' : status} | ${f0(n)} |`);
  lines.push('', '| kind | requests by status |', '|---|---|');
  for (const [kind, statuses] of mixed.byKind)
    lines.push(
      `| ${kind} | ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}: ${f0(n)}`)
        .join(', ')} |`,
    );
  lines.push('', '| invariant | times checked | held |', '|---|---:|---|');
  for (const invariant of mixed.invariants) {
    lines.push(
      `| ${invariant.name} | ${f0(invariant.checked)} | ${invariant.failures.length === 0 ? 'yes' : `**no**: ${invariant.failures.join('; ')}`} |`,
    );
  }
  const unchecked = INVARIANTS.filter((name) => !mixed.invariants.some((invariant) => invariant.name === name));
  const failed = mixed.invariants.filter((invariant) => invariant.failures.length > 0).length;
  const fiveHundreds = [...mixed.byStatus]
    .filter(([status]) => status >= 500 || status === 0)
    .reduce((n, [, count]) => n + count, 0);
  const deletes = mixed.byKind.get('delete');
  const doubled = (deletes?.get(204) ?? 0) - ((deletes?.get(204) ?? 0) + (deletes?.get(404) ?? 0)) / 2;
  lines.push(
    '',
    `${fiveHundreds === 0 ? 'No 5xx and no request without a response' : `**${fiveHundreds} 5xx or failed requests**`}; ${failed === 0 ? 'every invariant held' : `**${failed} invariant(s) broken**`}${unchecked.length ? ` (not exercised: ${unchecked.join(', ')})` : ''}. Of the rows deleted twice at once, ${f0(doubled)} answered 204 to both deletes: both found the row before either removed it, and the Kysely store does not turn a delete that removed nothing into 404 (it does under \`If-Match\`); the row is gone either way.`,
    '',
  );
  return lines.join('\n');
}
