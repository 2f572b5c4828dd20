/**
 * The markdown of the SQLite part of bench/results.md: one table per section of
 * bench/sqlite-sections.ts and the Targets table, each target met or missed. The numbers come in
 * measured; nothing here measures.
 */
import type { InProcessResult } from './inprocess.js';
import type { PgCount } from './postgres.js';
import { CONNECTIONS, type Load, f0, f2, mb } from './load.js';
import { ROUTES, SEEDED_ARTICLES } from './routes.js';
import type { BenchConfig } from './server-process.js';
import {
  type HttpRow,
  type MemoryResult,
  PAGE_SIZES,
  type ScaleRow,
  type SqlCounts,
  WARM_ROUNDS,
} from './sqlite-sections.js';

export type Target = [name: string, ok: boolean, measured: string];

export const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

/** A route's range of paired ratios, when it was measured more than once. */
const range = (ratios: number[]) =>
  ratios.length > 1 ? ` (${f2(Math.min(...ratios))}-${f2(Math.max(...ratios))})` : '';

/** Lines of the Targets table. */
export const targetTable = (targets: readonly Target[]): string[] => [
  '| target | measured | |',
  '|---|---:|---|',
  ...targets.map(([name, ok, value]) => `| ${name} | ${value} | ${mark(ok)} |`),
];

/** What one SQLite run measured, and how (for the heading paragraph). */
export interface SqliteResults {
  quick: boolean;
  config: BenchConfig;
  machine: string;
  load0: number[];
  load1: number[];
  seconds: number;
  files: Map<number, string>;
  sql: SqlCounts[];
  http: HttpRow[];
  floors: HttpRow[];
  scaled: ScaleRow[];
  mem: MemoryResult;
  pipeline: InProcessResult[];
  generator: { lines: string[]; targets: Target[] };
  /** Further sections (bench/query.ts), placed before the Targets table. */
  extra?: { lines: string[]; targets: Target[] };
}

/** The SQLite run's markdown, from its heading to the Targets table. */
export function sqliteReport(r: SqliteResults): string {
  const { quick, config, machine, load0, load1, seconds, files, sql, http, floors, scaled, mem, pipeline, generator } =
    r;
  const lines: string[] = [];
  const sqlOf = (name: string) => sql.filter((s) => s.route === name || s.route.startsWith(`${name}@`));
  const sqlLimit: Record<string, [number, string]> = {
    a: [2, '<= 2'],
    b: [4, '<= 4'],
    c: [1, '= 1'],
    'c+1': [2, '= 2'],
    'c+2': [3, '= 3'],
    f: [5, '<= 5'],
  };
  const targets: Target[] = [];

  lines.push(`# jsonapi-gen benchmarks`, '');
  lines.push(
    `\`npm run bench${quick ? ' -- --quick' : ''}\` on ${machine}; load average ${load0.map((l) => l.toFixed(2)).join(' ')} at the start, ${load1.map((l) => l.toFixed(2)).join(' ')} at the end; ${seconds.toFixed(0)} s in all. Seeded SQLite files (WAL) in a temporary directory; servers on 127.0.0.1 in their own processes, NODE_ENV=production; autocannon with ${CONNECTIONS} connections, ${WARM_ROUNDS} rounds of warm-up bursts over every route (the servers taking turns), then per run a warm-up of ${config.warmupRequests} requests and ${config.duration} s measured${quick ? '' : ` (route f: ${ROUTES.find((r) => r.name === 'f')?.seconds ?? config.duration} s)`}, each route for both servers in turn, ${config.reps} time(s) (the floor rows ${Math.min(config.reps, 3)}), medians; a route's demo / baseline is the median of its repetitions' ratios (both servers measured back to back), with their range.`,
    '',
  );

  lines.push('## HTTP: demo against the hand-written baseline (1,000 articles)', '');
  lines.push(
    '| route | demo req/s | baseline req/s | demo / baseline (range) | CPU µs/request (demo / baseline) | demo p50 / p99 ms | baseline p50 / p99 ms | body bytes (demo / baseline) | SQL (demo / baseline) | target >= 0.8 |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const row of http) {
    const key = { a: 'a@20', b: 'b@20', f: 'f@50' }[row.name] ?? row.name;
    const counts = sql.find((s) => s.route === key);
    const ok = row.ratio >= 0.8;
    targets.push([`HTTP ${row.name} >= 0.8 × baseline`, ok, `${f2(row.ratio)}`]);
    lines.push(
      `| ${row.name} \`${row.label}\` | ${f0(row.demo.rps)} | ${f0(row.baseline.rps)} | ${f2(row.ratio)}${range(row.ratios)} | ${f0(row.demo.cpu)} / ${f0(row.baseline.cpu)} | ${row.demo.p50} / ${row.demo.p99} | ${row.baseline.p50} / ${row.baseline.p99} | ${f0(row.demoBytes)} / ${f0(row.baselineBytes)} | ${counts ? `${counts.demo} / ${counts.baseline}` : '-'} | ${mark(ok)} |`,
    );
  }
  for (const floor of floors) {
    lines.push(
      `| ${floor.label} | ${f0(floor.demo.rps)} | ${f0(floor.baseline.rps)} | ${f2(floor.ratio)} | ${f0(floor.demo.cpu)} / ${f0(floor.baseline.cpu)} | ${floor.demo.p50} / ${floor.demo.p99} | ${floor.baseline.p50} / ${floor.baseline.p99} | ${f0(floor.demoBytes)} / ${f0(floor.baselineBytes)} | 0 / 0 | (reported) |`,
    );
  }
  lines.push(
    '',
    "CPU µs/request is the server process's own CPU time (user + system) over the measured run divided by the requests served: unlike req/s it hardly depends on what else the machine runs. The load generator shares the machine's cores with the server; on the floor rows autocannon itself saturates a core, so their req/s understate both servers (compare their CPU µs/request).",
    '',
  );
  lines.push('## SQL statements per request', '');
  lines.push(
    "Counted through Kysely's `log` option (`startDemo({ log })`, in-process) for the demo, and by the baseline's own statement hook; route d includes `begin` and `commit` (the demo's also the `savepoint` and `release` of its group commit).",
    '',
  );
  lines.push('| route | request | demo | baseline | target | |');
  lines.push('|---|---|---:|---:|---|---|');
  for (const s of sql) {
    const base = s.route.split('@')[0]!;
    const limit = sqlLimit[base];
    const ok = limit ? (limit[1].startsWith('=') ? s.demo === limit[0] : s.demo <= limit[0]) : true;
    if (limit) targets.push([`SQL ${s.route} ${limit[1]}`, ok, String(s.demo)]);
    lines.push(
      `| ${s.route} | \`${s.method} ${s.path}\` | ${s.demo} | ${s.baseline} | ${limit ? limit[1] : '-'} | ${limit ? mark(ok) : ''} |`,
    );
  }
  // Not more statements for a bigger page (fewer can be: a larger page may read every person an
  // include names with the authors already, so comments.author reads none).
  for (const name of ['a', 'b', 'f']) {
    const counts = sqlOf(name).map((s) => s.demo);
    targets.push([
      `SQL ${name} does not grow with page size (${PAGE_SIZES.join(', ')})`,
      counts.every((n) => n <= counts[0]!),
      counts.join(', '),
    ]);
  }
  lines.push('');

  lines.push('## In-process: `api.handle` against `JSON.stringify` of its document', '');
  lines.push(
    'The generated blog API over an in-memory data layer (pre-built, pre-sorted arrays), tinybench; the stringify column is `JSON.stringify` of the same document, the serialization a hand-written server pays (the runtime writes documents with its own `documentJson`, which gives the same text for less).',
    '',
  );
  lines.push('| route | api.handle µs | JSON.stringify µs | multiple | document bytes | target |');
  lines.push('|---|---:|---:|---:|---:|---|');
  for (const p of pipeline) {
    const ok = p.route !== 'b' || p.ratio <= 3;
    if (p.route === 'b') targets.push(['in-process b <= 3 × JSON.stringify', ok, f2(p.ratio)]);
    lines.push(
      `| ${p.route} \`${p.path}\` | ${p.handleUs.toFixed(1)} | ${p.stringifyUs.toFixed(1)} | ${f2(p.ratio)} | ${f0(p.bytes)} | ${p.route === 'b' ? `<= 3: ${mark(ok)}` : '-'} |`,
    );
  }
  lines.push('');

  lines.push('## Scale: route b by page size and database size', '');
  lines.push(
    `autocannon, a warm-up of ${config.warmupRequests} requests then ${config.duration} s, one run each; µs/request is the server's CPU time per request.`,
    '',
  );
  lines.push(
    '| articles | page[limit] | included | body bytes | demo req/s | demo µs/request | baseline req/s | baseline µs/request | demo / baseline |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of scaled) {
    lines.push(
      `| ${f0(r.articles)} | ${r.limit} | ${r.included} | ${f0(r.bytes)} | ${f0(r.demo.rps)} | ${f0(r.demo.cpu)} | ${f0(r.baseline.rps)} | ${f0(r.baseline.cpu)} | ${f2(r.demo.rps / r.baseline.rps)} |`,
    );
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
  const bySize = sizes
    .map((n) => scaled.find((r) => r.articles === n && r.limit === 20))
    .filter((r) => r !== undefined);
  lines.push('');
  if (g) {
    lines.push(
      `Growth at 1,000 articles (CPU time, from page[limit] 10 to 50): the demo costs about ${g.fixed.toFixed(0)} µs per request plus ${g.perRow.toFixed(1)} µs per article on the page (the baseline ${g.baseFixed.toFixed(0)} µs plus ${g.basePerRow.toFixed(1)} µs); each article brings its author and 0-3 tags, so the cost is linear in page size and in include fan-out, while the number of statements stays 4.`,
    );
  }
  if (bySize.length > 1) {
    lines.push(
      `By database size at page[limit]=20 (CPU µs/request): ${bySize.map((r) => `${f0(r.articles)} articles ${f0(r.demo.cpu)} (baseline ${f0(r.baseline.cpu)})`).join('; ')}; what grows is the count(*) and the sorted page scan, which both servers pay.`,
    );
  }
  lines.push('');

  lines.push("## Memory: the demo's resident set under route b", '');
  lines.push('| requests served | RSS MB | RSS after a forced GC MB | heap used after GC MB |');
  lines.push('|---:|---:|---:|---:|');
  for (const p of mem.points)
    lines.push(`| ${f0(p.requests)} | ${mb(p.rss)} | ${mb(p.rssAfterGc)} | ${mb(p.heapAfterGc)} |`);
  const [m0, m1] = [mem.points[0]!, mem.points[mem.points.length - 1]!];
  const rssDelta = m1.rss - m0.rss;
  // Noise: V8's heap spaces and malloc's arenas move RSS by a few MB between two readings of a
  // steady process; a leak shows in the live heap after a forced GC, and keeps growing.
  const memOk = rssDelta <= 10 * 1024 * 1024 && mem.heapGrowth <= 0.1;
  targets.push([
    `memory: ${f0(config.memory[0]!)} -> ${f0(config.memory[config.memory.length - 1]!)} requests, RSS growth <= 10 MB and live heap growth <= 10%`,
    memOk,
    `RSS ${rssDelta >= 0 ? '+' : ''}${mb(rssDelta)} MB (${(mem.growth * 100).toFixed(1)}%), heap ${(mem.heapGrowth * 100).toFixed(1)}%`,
  ]);
  // The middle reading tells a plateau (a process settling) from a climb (a leak).
  const mLate = mem.points[mem.points.length - 2]!;
  const late = m1.rss - mLate.rss;
  lines.push(
    '',
    `From the first to the last reading: RSS ${rssDelta >= 0 ? '+' : ''}${mb(rssDelta)} MB (${(mem.growth * 100).toFixed(1)}%), live heap after a forced GC ${(mem.heapGrowth * 100).toFixed(1)}%; over the last ${f0(m1.requests - mLate.requests)} requests alone, RSS ${late >= 0 ? '+' : ''}${mb(late)} MB. Noise, measured on this machine across runs: a few MB of RSS either way (V8 heap spaces, malloc arenas); the criterion is RSS growth <= 10 MB and live-heap growth <= 10%.`,
    '',
  );

  lines.push(...generator.lines);
  targets.push(...generator.targets);

  if (r.extra) {
    lines.push(...r.extra.lines);
    targets.push(...r.extra.targets);
  }

  lines.push('## Targets', '');
  lines.push(...targetTable(targets));
  const missed = targets.filter(([, ok]) => !ok).length;
  lines.push('', missed === 0 ? 'All targets met.' : `${missed} target(s) missed.`, '');

  return lines.join('\n');
}

/**
 * A statement as inline code, cut at 90 characters, on one line; MySQL's backtick-quoted names
 * inside a double-backtick span.
 */
const codeSpan = (statement: string) => {
  const text = statement.replace(/\s+/g, ' ');
  const cut = text.length > 90 ? `${text.slice(0, 87)}...` : text;
  return cut.includes('`') ? `\`\` ${cut} \`\`` : `\`${cut}\``;
};

/** The table and statement list of the `--db postgres` and `--db mysql` sections (bench/run.ts writes their heading). */
export function postgresTable(
  http: readonly HttpRow[],
  sql: readonly PgCount[],
  database: 'PostgreSQL' | 'MySQL' = 'PostgreSQL',
): string[] {
  const lines: string[] = [];
  lines.push(
    `| route | demo req/s | baseline req/s | demo / baseline (range) | CPU µs/request node + ${database} (demo / baseline) | demo p50 / p99 ms | baseline p50 / p99 ms | SQL (demo / baseline) | target >= 0.8 |`,
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const row of http) {
    const counts = sql.find((s) => s.route === row.name);
    const cpu = (l: Load) => `${f0(l.cpu)} + ${f0(l.dbCpu ?? NaN)}`;
    lines.push(
      `| ${row.name} \`${row.label}\` | ${f0(row.demo.rps)} | ${f0(row.baseline.rps)} | ${f2(row.ratio)}${range(row.ratios)} | ${cpu(row.demo)} / ${cpu(row.baseline)} | ${row.demo.p50} / ${row.demo.p99} | ${row.baseline.p50} / ${row.baseline.p99} | ${counts ? `${counts.demo} / ${counts.baseline}` : '-'} | ${mark(row.ratio >= 0.8)} |`,
    );
  }
  lines.push(
    '',
    `The demo's statements per request on ${database} (Kysely's \`log\`; route d's include \`begin\` and \`commit\`):`,
    '',
  );
  for (const s of sql) lines.push(`- ${s.route}: ${s.statements.map(codeSpan).join('; ')}`);
  return lines;
}
