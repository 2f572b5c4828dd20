/**
 * A quick side-by-side of a few routes, for trying a change: the bench's demo and baseline
 * servers in their own processes (compiled as the bench compiles them), alternating runs of 2 s,
 * medians of requests/s and of CPU µs per request (on PostgreSQL also the cluster's). Much
 * shorter than `npm run bench` and only as good as its few runs.
 *
 *   npx tsx bench/ab.ts c,e                    # SQLite, 5 rounds
 *   npx tsx bench/ab.ts d --db postgres --rounds 7
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile } from './compile.js';
import { median } from './load.js';
import { type PgBench, startPgBench } from './postgres.js';
import { ROUTES } from './routes.js';
import { type BenchContext, measure, serve } from './server-process.js';
import { removeCreated, seedFile } from './sqlite-sections.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const names = (args[0] ?? 'c').split(',');
const postgres = option('--db') === 'postgres';
const rounds = Number(option('--rounds') ?? 5);

const work = mkdtempSync(join(tmpdir(), 'jsonapi-gen-ab-'));
const children = new Set<ChildProcess>();
let pg: PgBench | undefined;
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  pg?.stop();
  rmSync(work, { recursive: true, force: true });
});

const compiled = join(work, 'js');
compile(process.cwd(), compiled);
const ctx: BenchContext = {
  compiled,
  children,
  quick: false,
  config: { reps: 1, warmupRequests: 500, duration: 2, scaleDbs: [], memory: [], inProcessMs: 0 },
};
let where: string;
let reset: () => Promise<void>;
if (postgres) {
  pg = await startPgBench();
  where = pg.url;
  reset = pg.reset;
} else {
  where = join(work, 'blog.sqlite');
  await seedFile(where, 1000);
  reset = () => removeCreated(where, 1000);
}
const demo = await serve(ctx, postgres ? 'demo-pg' : 'demo', where);
const baseline = await serve(ctx, postgres ? 'baseline-pg' : 'baseline', where);
const f0 = (n: number) => n.toFixed(0);
for (const name of names) {
  const route = ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`no route ${name}: ${ROUTES.map((r) => r.name).join(', ')}`);
  const runs = { demo: [] as Array<[number, number, number]>, baseline: [] as Array<[number, number, number]> };
  for (let i = 0; i < rounds; i++) {
    for (const [label, server] of [
      ['demo', demo],
      ['baseline', baseline],
    ] as const) {
      const load = await measure(ctx, server, route, 2, pg?.cpu);
      runs[label].push([load.rps, load.cpu, load.dbCpu ?? 0]);
      if (route.method !== 'GET') await reset();
    }
  }
  const summary = (label: 'demo' | 'baseline') => {
    const rows = runs[label];
    const rps = median(rows.map((r) => r[0]));
    return {
      rps,
      text: `${label} ${f0(rps)} req/s, ${f0(median(rows.map((r) => r[1])))}${postgres ? ` + ${f0(median(rows.map((r) => r[2])))}` : ''} µs CPU/request`,
    };
  };
  const d = summary('demo');
  const b = summary('baseline');
  console.log(`${name}: ${d.text} | ${b.text} | demo / baseline ${(d.rps / b.rps).toFixed(2)}`);
}
process.exit(0);
