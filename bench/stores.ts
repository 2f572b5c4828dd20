/**
 * `npm run bench -- --store prisma|drizzle` (and `--db postgres`): routes a-g served by the demo
 * on its Kysely store, on the other store (`startDemo({ store })`) and by the hand-written
 * baseline, side by side in one run; the statements each store runs per route (route a, b and f
 * at page sizes 10, 20 and 50); and a CPU profile of the other store's demo serving route b, its
 * self time by where the code lives. bench/run.ts writes the section under its own heading.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDemo } from '../examples/blog/server.js';
import { type Load, burst, f0, f2, load, median, medianLoad, warm } from './load.js';
import { readProfile, selfByPlace } from './profile-summary.js';
import { type Target, mark, targetTable } from './report.js';
import type { FloorRow } from './prisma-floor.js';
import { ROUTES, type Route, SEEDED_ARTICLES, routeB } from './routes.js';
import { type BenchContext, type ServerProcess, measure, serve } from './server-process.js';
import { PAGE_SIZES, WARM_ROUNDS, removeCreated } from './sqlite-sections.js';

/** The stores compared with the Kysely store. */
export type OtherStore = 'prisma' | 'drizzle';

/** A store's name in prose and tables. */
export const storeLabel = (store: OtherStore) => ({ prisma: 'Prisma', drizzle: 'Drizzle' })[store];

/** The least rate of the Kysely store's each route must reach (the issues' targets). */
export const RATIO_TARGET: Record<OtherStore, number> = { prisma: 0.5, drizzle: 0.8 };

/** The section's heading in bench/results.md, on SQLite and on PostgreSQL. */
export const storeHeading = (store: OtherStore, postgres: boolean) =>
  `# ${storeLabel(store)} store${postgres ? ' on PostgreSQL' : ''}: against the Kysely store and the baseline`;

/** Where the run's servers read: the SQLite file, or the PostgreSQL URL with its reset and CPU. */
export type StoreDb =
  { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; reset: () => Promise<void>; cpu: () => number };

/** The three servers of a run: `store` is the Prisma or Drizzle demo. */
const SERVERS = ['kysely', 'store', 'baseline'] as const;
type ServerName = (typeof SERVERS)[number];
const noLoads = (): Record<ServerName, Load[]> => ({ kysely: [], store: [], baseline: [] });

const reset = (db: StoreDb) => (db.kind === 'sqlite' ? removeCreated(db.file, SEEDED_ARTICLES) : db.reset());
const location = (db: StoreDb) => (db.kind === 'sqlite' ? db.file : db.url);
const kindOf = (name: ServerName, store: OtherStore, db: StoreDb) =>
  `${{ kysely: 'demo', store: `demo-${store}`, baseline: 'baseline' }[name]}${db.kind === 'postgres' ? '-pg' : ''}`;

export interface QueryCount {
  route: string;
  path: string;
  /** Statements, or the status of a failed request (`500`). */
  store: number | string;
  kysely: number | string;
}

/** Routes a-g, with route a, b and f at each page size of PAGE_SIZES. */
function countedRoutes(): Route[] {
  const routes: Route[] = [];
  for (const route of ROUTES) {
    if (route.name === 'a' || route.name === 'f')
      for (const limit of PAGE_SIZES)
        routes.push({
          ...route,
          name: `${route.name}@${limit}`,
          path: route.path.replace(/page\[limit\]=\d+/, `page[limit]=${limit}`),
        });
    else if (route.name === 'b') for (const limit of PAGE_SIZES) routes.push({ ...routeB(limit), name: `b@${limit}` });
    else routes.push(route);
  }
  return routes;
}

/**
 * Statements per request, in-process: the Prisma demo through Prisma's `query` event
 * (`onPrismaQuery`), the Drizzle demo through its logger (`onDrizzleQuery`), the Kysely demo
 * through Kysely's `log`.
 */
export async function countStatements(store: OtherStore, db: StoreDb): Promise<QueryCount[]> {
  const storeLog: string[] = [];
  const kyselyLog: string[] = [];
  const where = db.kind === 'sqlite' ? { db: db.file, databaseUrl: null } : { databaseUrl: db.url };
  const onQuery = (q: string) => void storeLog.push(q);
  const other = await startDemo({
    port: 0,
    seed: 1,
    ...where,
    store,
    ...(store === 'prisma' ? { onPrismaQuery: onQuery } : { onDrizzleQuery: onQuery }),
  });
  const kysely = await startDemo({
    port: 0,
    seed: 1,
    ...where,
    log: (event) => {
      if (event.level === 'query') kyselyLog.push(event.query.sql);
    },
  });
  const counts: QueryCount[] = [];
  try {
    for (const route of countedRoutes()) {
      const count = async (url: string, log: string[]) => {
        log.length = 0;
        const response = await fetch(url + route.path, {
          method: route.method,
          headers: route.headers,
          body: route.body,
        });
        await response.arrayBuffer();
        // Prisma emits its events as the query ends: let any still queued run.
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (route.method === 'POST') await reset(db);
        return response.status >= 300 ? `fails: ${response.status}` : log.length;
      };
      counts.push({
        route: route.name,
        path: `${route.method} ${route.path}`,
        store: await count(other.url, storeLog),
        kysely: await count(kysely.url, kyselyLog),
      });
    }
  } finally {
    await other.close();
    await kysely.close();
  }
  return counts;
}

export interface StoreRow {
  name: string;
  label: string;
  /** The median loads of the servers that answered the route; a failing server's status instead. */
  loads: Record<ServerName, Load | number>;
  /** Medians of the paired ratios (the servers measured back to back in each repetition), and each repetition's. */
  storeKysely: number[];
  storeBaseline: number[];
}

/** Routes a-g on the three servers, taking turns route by route; medians over `ctx.config.reps`. */
export async function storeHttp(
  ctx: BenchContext,
  store: OtherStore,
  db: StoreDb,
  log: (line: string) => void,
): Promise<StoreRow[]> {
  const servers = new Map<ServerName, ServerProcess>();
  const extraCpu = db.kind === 'postgres' ? db.cpu : undefined;
  try {
    for (const name of SERVERS) servers.set(name, await serve(ctx, kindOf(name, store, db), location(db)));
    // A server that fails a route (a status >= 300) is not measured on it: the table says so.
    const failures = new Map<string, number>();
    for (const route of ROUTES)
      for (const [name, server] of servers) {
        const response = await fetch(server.url + route.path, {
          method: route.method,
          headers: route.headers,
          body: route.body,
        });
        await response.arrayBuffer();
        if (route.method === 'POST') await reset(db);
        if (response.status >= 300) {
          failures.set(`${route.name} ${name}`, response.status);
          log(`  ${name} answers route ${route.name} with ${response.status}: not measured`);
        }
      }
    const serves = (name: ServerName, route: Route) => !failures.has(`${route.name} ${name}`);
    for (const route of ROUTES)
      await warm(
        [...servers].filter(([name]) => serves(name, route)).map(([, server]) => server),
        [route],
        () => reset(db),
        WARM_ROUNDS,
      );
    const samples = new Map(ROUTES.map((r) => [r.name, noLoads()]));
    for (let rep = 0; rep < ctx.config.reps; rep++) {
      for (const [index, route] of ROUTES.entries()) {
        // Rotate who goes first, so no server always runs on a warmer (or busier) machine.
        const shift = (rep + index) % SERVERS.length;
        const order = [...SERVERS.slice(shift), ...SERVERS.slice(0, shift)];
        for (const name of order) {
          if (!serves(name, route)) continue;
          const seconds = ctx.quick ? ctx.config.duration : (route.seconds ?? ctx.config.duration);
          const result = await measure(ctx, servers.get(name)!, route, seconds, extraCpu);
          samples.get(route.name)![name].push(result);
          if (route.method === 'POST') await reset(db);
          log(
            `  rep ${rep + 1} ${route.name} ${name.padEnd(8)} ${result.rps.toFixed(0).padStart(6)} req/s  ${result.cpu.toFixed(0).padStart(5)}${extraCpu ? ` + ${result.dbCpu!.toFixed(0)}` : ''} µs CPU/request  p50 ${result.p50} ms  p99 ${result.p99} ms`,
          );
        }
      }
    }
    return ROUTES.map((route) => {
      const s = samples.get(route.name)!;
      const of = (name: ServerName) => failures.get(`${route.name} ${name}`) ?? medianLoad(s[name]);
      const ratios = (other: ServerName) =>
        s.store.length && s[other].length ? s.store.map((p, i) => p.rps / s[other][i]!.rps) : [NaN];
      return {
        name: route.name,
        label: route.label,
        loads: { kysely: of('kysely'), store: of('store'), baseline: of('baseline') },
        storeKysely: ratios('kysely'),
        storeBaseline: ratios('baseline'),
      };
    });
  } finally {
    for (const server of servers.values()) await server.stop();
  }
}

/** Where a profiled frame's code lives, for a store demo's profile; undefined for idle time. */
export function storePlace(functionName: string, url: string): string | undefined {
  if (functionName === '(idle)') return undefined;
  if (url.startsWith('wasm://')) return 'Prisma query compiler (wasm)';
  if (url.includes('node_modules/')) {
    const pkg = url.split('node_modules/').pop()!.split('/').slice(0, 2).join('/');
    if (pkg.startsWith('@prisma/client')) return 'Prisma client runtime (@prisma/client)';
    if (pkg.startsWith('@prisma/')) return 'Prisma driver adapter (@prisma/adapter-*, driver-adapter-utils)';
    if (pkg.startsWith('drizzle-orm/')) return 'Drizzle ORM (drizzle-orm)';
    if (/^(better-sqlite3|pg|pg-[^/]*|postgres-[^/]*)\//.test(pkg)) return 'database driver (better-sqlite3, pg)';
    return `other package ${pkg.split('/')[0]}`;
  }
  if (url.includes('/examples/blog/prisma/generated/'))
    return 'generated Prisma client (examples/blog/prisma/generated)';
  if (url.includes('/integrations/prisma/')) return 'our Prisma store (integrations/prisma)';
  if (url.includes('/integrations/drizzle/')) return 'our Drizzle store (integrations/drizzle)';
  if (url.includes('/integrations/kysely/')) return 'the Kysely store (integrations/kysely: the demo migrates with it)';
  if (url.includes('/runtime/')) return 'jsonapi-gen runtime (runtime/)';
  if (url.includes('/examples/blog/') || url.includes('/bench/')) return 'the demo (examples/blog)';
  if (url.startsWith('node:') || url === '') {
    if (functionName === '(garbage collector)') return 'garbage collector';
    return 'Node internals and native code (http, streams, (program))';
  }
  return `other ${url}`;
}

export interface StoreProfile {
  seconds: number;
  requests: number;
  total: number;
  places: Array<[string, number]>;
  file: string;
}

/**
 * The store's demo in its own process under `node --cpu-prof` (profiles into `dir`), route b
 * warmed then loaded for `seconds`; its self time by place.
 */
export async function profileRouteB(
  ctx: BenchContext,
  store: OtherStore,
  db: StoreDb,
  dir: string,
  seconds: number,
): Promise<StoreProfile> {
  const before = new Set(readdirSync(dir, { withFileTypes: false }).map(String));
  const kind = kindOf('store', store, db);
  const server = await serve({ ...ctx, profile: dir, profileKinds: [kind] }, kind, location(db));
  const route = ROUTES.find((r) => r.name === 'b')!;
  let requests: number;
  try {
    await burst(server.url, route, 5_000, 2_000);
    requests = (await load(server.url, route, seconds)).requests;
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile') && !before.has(name));
  if (!file) throw new Error(`no CPU profile written to ${dir}`);
  const { total, places } = selfByPlace(readProfile(join(dir, file)), storePlace);
  return { seconds, requests, total, places, file: join(dir, file) };
}

const range = (ratios: number[]) =>
  ratios.length > 1 ? ` (${f2(Math.min(...ratios))}-${f2(Math.max(...ratios))})` : '';

/** What the profile's paragraph names as the store's library, by place. */
const LIBRARY: Record<OtherStore, { name: string; places: string[]; adapter?: string }> = {
  prisma: {
    name: 'Prisma (its client runtime, query compiler and the generated client)',
    places: [
      'Prisma client runtime (@prisma/client)',
      'Prisma query compiler (wasm)',
      'generated Prisma client (examples/blog/prisma/generated)',
    ],
    adapter: 'Prisma driver adapter (@prisma/adapter-*, driver-adapter-utils)',
  },
  drizzle: { name: 'Drizzle ORM', places: ['Drizzle ORM (drizzle-orm)'] },
};

/** The section's tables, from the heading's paragraph on; its Targets last. */
export function storeReport(
  store: OtherStore,
  rows: readonly StoreRow[],
  counts: readonly QueryCount[],
  profile: StoreProfile | undefined,
  postgres: boolean,
  floor: readonly FloorRow[] = [],
): { lines: string[]; targets: Target[] } {
  const label = storeLabel(store);
  const least = RATIO_TARGET[store];
  const lines: string[] = [];
  const targets: Target[] = [];
  const failed = (status: number) => `fails: ${status}`;
  const show = (ratio: number) => (Number.isNaN(ratio) ? '-' : f2(ratio));
  const cpu = (l: Load | number) =>
    typeof l === 'number' ? failed(l) : postgres ? `${f0(l.cpu)} + ${f0(l.dbCpu ?? NaN)}` : f0(l.cpu);
  const rps = (l: Load | number) => (typeof l === 'number' ? failed(l) : f0(l.rps));
  const latency = (l: Load | number) => (typeof l === 'number' ? failed(l) : `${l.p50} / ${l.p99}`);
  const countOf = (name: string) => counts.find((c) => c.route === name || c.route === `${name}@20`);
  lines.push(
    `| route | Kysely req/s | ${label} req/s | baseline req/s | ${label} / Kysely (range) | ${label} / baseline (range) | CPU µs/request${postgres ? ' node + PostgreSQL' : ''} (Kysely / ${label} / baseline) | ${label} p50 / p99 ms | statements (Kysely / ${label}) | ${label} / Kysely >= ${least} |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const row of rows) {
    const ratio = median(row.storeKysely);
    const ok = ratio >= least;
    targets.push([`${label} ${row.name} >= ${least} × Kysely`, ok, Number.isNaN(ratio) ? 'not measured' : f2(ratio)]);
    const { kysely, store: other, baseline } = row.loads;
    const c = countOf(row.name);
    lines.push(
      `| ${row.name} \`${row.label}\` | ${rps(kysely)} | ${rps(other)} | ${rps(baseline)} | ${show(ratio)}${range(row.storeKysely)} | ${show(median(row.storeBaseline))}${range(row.storeBaseline)} | ${cpu(kysely)} / ${cpu(other)} / ${cpu(baseline)} | ${latency(other)} | ${c ? `${c.kysely} / ${c.store}` : '-'} | ${mark(ok)} |`,
    );
  }
  lines.push('', '### Statements per request by page size', '');
  lines.push(
    `Counted in-process: the ${label} store through ${store === 'prisma' ? "Prisma's `query` event (`startDemo({ store: 'prisma', onPrismaQuery })`)" : "Drizzle's logger (`startDemo({ store: 'drizzle', onDrizzleQuery })`)"}, the Kysely store through Kysely's \`log\`; route d's include the transaction's statements.`,
    '',
    `| route | request | Kysely | ${label} |`,
    '|---|---|---:|---:|',
  );
  for (const c of counts) lines.push(`| ${c.route} | \`${c.path}\` | ${c.kysely} | ${c.store} |`);
  for (const name of ['a', 'b', 'f']) {
    const of = counts.filter((c) => c.route.startsWith(`${name}@`)).map((c) => c.store);
    targets.push([
      `${label} statements of ${name} do not grow with page size (${PAGE_SIZES.join(', ')})`,
      of.length > 0 && of.every((n) => typeof n === 'number' && n <= (of[0] as number)),
      of.join(', '),
    ]);
  }
  if (store === 'drizzle')
    targets.push([
      'Drizzle statements equal to the Kysely store’s on every route',
      counts.every((c) => c.store === c.kysely),
      counts
        .filter((c) => c.store !== c.kysely)
        .map((c) => `${c.route}: ${c.kysely} / ${c.store}`)
        .join(', ') || 'all equal',
    ]);
  lines.push('');
  if (profile) {
    const share = (place: string) => profile.places.find(([p]) => p === place)?.[1] ?? 0;
    const pct = (n: number) => `${((n / profile.total) * 100).toFixed(0)}%`;
    const library = LIBRARY[store];
    const librarySide = library.places.reduce((sum, place) => sum + share(place), 0);
    const ours = share(`our ${label} store (integrations/${store})`);
    const runtime = share('jsonapi-gen runtime (runtime/)');
    lines.push(`### Where the ${label} demo spends its CPU on route b`, '');
    lines.push(
      `A CPU profile (\`node --cpu-prof\`) of the ${label} demo serving route b for ${profile.seconds} s (${f0(profile.requests)} requests) after a warm-up; self time of the busy samples (idle left out) by where the code lives (bench/profile-summary.ts for the functions). ${library.name} takes ${pct(librarySide)}${library.adapter ? `, its driver adapter ${pct(share(library.adapter))}` : ''}, the database driver ${pct(share('database driver (better-sqlite3, pg)'))}; our ${label} store ${pct(ours)} and the jsonapi-gen runtime ${pct(runtime)}; the rest is Node (HTTP, streams, native code) and the garbage collector.`,
      '',
      '| place | self time |',
      '|---|---:|',
      ...profile.places.slice(0, 12).map(([place, hits]) => `| ${place} | ${pct(hits)} |`),
      '',
    );
  }
  if (floor.length > 0) {
    const kyselyC = rows.find((row) => row.name === 'c')?.loads.kysely;
    const [driver, , model] = floor;
    lines.push('### The cost of one Prisma call', '');
    lines.push(
      "CPU µs of the calling process per call reading one article by id (bench/prisma-floor.ts: 2,000 calls a round after a warm-up, median of 5 rounds), in the bench's own process before the servers start.",
      '',
      '| call | CPU µs per call |',
      '|---|---:|',
      ...floor.map((row) => `| ${row.call} | ${f0(row.micros)} |`),
      '',
    );
    if (typeof kyselyC === 'object' && driver && model) {
      // Route c is one such read: the Kysely store's whole request with the driver's call swapped for Prisma's.
      const best = kyselyC.cpu / (kyselyC.cpu - driver.micros + model.micros);
      lines.push(
        `Route c is one such read. The Kysely demo spends ${f0(kyselyC.cpu)} µs of CPU on the whole request${postgres ? ' (its own process)' : ''}; with its driver call replaced by one Prisma \`findFirst\` and nothing else changed, it could serve at most ${f2(best)} × its rate.`,
        '',
      );
    }
  }
  lines.push('### Targets', '', ...targetTable(targets), '');
  return { lines, targets };
}
