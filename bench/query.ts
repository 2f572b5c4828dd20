/**
 * Issue 25's section of `npm run bench`: on a file of many articles (100,000 in the full run),
 * (a) an offset page at 90% of the collection against the first, (b) the cursor page starting
 * at the same article against the first cursor page, and (c) the filtered route
 * (`filter[createdAt][gte]` + `filter[tags.name]`) against the hand-written SQL of
 * bench/baseline/server.ts on the same file.
 */
import { type Load, f0, f2, median, medianLoad, warm } from './load.js';
import { type Target, mark } from './report.js';
import { type Route, filteredRoute } from './routes.js';
import { type BenchContext, type ServerProcess, measure, serve } from './server-process.js';

export const QUERY_HEADING = '## Query: deep pages and a filtered route';

interface DepthRow {
  kind: 'offset' | 'cursor';
  first: Route;
  deep: Route;
  firstLoad: Load;
  deepLoad: Load;
  /** Median of the paired runs' deep / first req/s. */
  ratio: number;
}

interface FilteredRow {
  route: Route;
  demo: Load;
  baseline: Load;
  /** Median of the paired runs' demo / baseline req/s. */
  ratio: number;
  total: number;
}

interface ArticlesDocument {
  data: Array<{ id: string; attributes: { createdAt: string } }>;
  meta?: { total?: number };
}

async function document(server: ServerProcess, path: string): Promise<ArticlesDocument> {
  const response = await fetch(server.url + path);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as ArticlesDocument;
}

/**
 * The cursor page that starts at article `offset` (0-based) of `sort=createdAt`: its `page[after]`
 * is the article before it, as the demo serves it (README "Cursor pagination": base64url of the
 * sort and the boundary's values). Checked against the offset page, so a wrong cursor cannot
 * make the deep page cheap by being empty or elsewhere.
 */
async function cursorAt(demo: ServerProcess, offset: number, size: number): Promise<Route> {
  const before = (await document(demo, `/articles?sort=createdAt&page[limit]=1&page[offset]=${offset - 1}`)).data[0]!;
  const cursor = Buffer.from(
    JSON.stringify({ s: 'createdAt:asc,id:asc', v: [before.attributes.createdAt, before.id] }),
  ).toString('base64url');
  const path = `/articles?sort=createdAt&page[size]=${size}&page[after]=${cursor}`;
  const byCursor = (await document(demo, path)).data.map((r) => r.id);
  const byOffset = (
    await document(demo, `/articles?sort=createdAt&page[limit]=${size}&page[offset]=${offset}`)
  ).data.map((r) => r.id);
  if (byCursor.length !== size || byCursor.join() !== byOffset.join())
    throw new Error(`cursor page at ${offset} (${byCursor.join()}) differs from the offset page (${byOffset.join()})`);
  return {
    name: 'cursor-deep',
    label: `GET /articles?sort=createdAt&page[size]=${size}&page[after]=<article ${f0(offset)}>`,
    method: 'GET',
    path,
  };
}

/**
 * `reps` paired runs of `a` on `serverA` and `b` on `serverB`, the order alternated; medians,
 * and the median of the pairs' ratios b / a (each pair back to back cancels the machine's drift).
 */
async function paired(
  ctx: BenchContext,
  serverA: ServerProcess,
  a: Route,
  serverB: ServerProcess,
  b: Route,
  log: (line: string) => void,
): Promise<{ a: Load; b: Load; ratio: number }> {
  const loads = { a: [] as Load[], b: [] as Load[] };
  for (let rep = 0; rep < ctx.config.reps; rep++) {
    const runs: Array<['a' | 'b', ServerProcess, Route]> = [
      ['a', serverA, a],
      ['b', serverB, b],
    ];
    for (const [key, server, route] of rep % 2 === 0 ? runs : runs.reverse()) {
      const result = await measure(
        ctx,
        server,
        route,
        ctx.quick ? ctx.config.duration : (route.seconds ?? ctx.config.duration),
      );
      loads[key].push(result);
      log(
        `  rep ${rep + 1} ${server.kind.padEnd(8)} ${route.name.padEnd(13)} ${result.rps.toFixed(0).padStart(6)} req/s  ${result.cpu.toFixed(0).padStart(5)} µs CPU/request`,
      );
    }
  }
  return {
    a: medianLoad(loads.a),
    b: medianLoad(loads.b),
    ratio: median(loads.b.map((l, i) => l.rps / loads.a[i]!.rps)),
  };
}

/** Measures the section on `file`, seeded with `articles` articles; returns its markdown and targets. */
export async function querySection(
  ctx: BenchContext,
  file: string,
  articles: number,
  log: (line: string) => void,
): Promise<{ lines: string[]; targets: Target[] }> {
  const deepAt = Math.floor(articles * 0.9);
  const demo = await serve(ctx, 'demo', file);
  const baseline = await serve(ctx, 'baseline', file);
  try {
    const offsetFirst: Route = {
      name: 'offset-first',
      label: 'GET /articles?sort=createdAt&page[limit]=20',
      method: 'GET',
      path: '/articles?sort=createdAt&page[limit]=20',
    };
    const offsetDeep: Route = {
      name: 'offset-deep',
      label: `GET /articles?sort=createdAt&page[limit]=20&page[offset]=${deepAt}`,
      method: 'GET',
      path: `${offsetFirst.path}&page[offset]=${deepAt}`,
    };
    const cursorFirst: Route = {
      name: 'cursor-first',
      label: 'GET /articles?sort=createdAt&page[size]=20',
      method: 'GET',
      path: '/articles?sort=createdAt&page[size]=20',
    };
    const cursorDeep = await cursorAt(demo, deepAt, 20);
    const filtered = filteredRoute(articles);
    const total = (await document(demo, filtered.path)).meta?.total ?? NaN;
    // Fresh processes: let the JIT see every route before anything is measured.
    await warm([demo], [offsetFirst, offsetDeep, cursorFirst, cursorDeep], undefined, 1, 300);
    await warm([demo, baseline], [filtered], undefined, 1, 300);
    const depth: DepthRow[] = [];
    for (const [kind, first, deep] of [
      ['offset', offsetFirst, offsetDeep],
      ['cursor', cursorFirst, cursorDeep],
    ] as const) {
      const r = await paired(ctx, demo, first, demo, deep, log);
      depth.push({ kind, first, deep, firstLoad: r.a, deepLoad: r.b, ratio: r.ratio });
    }
    const f = await paired(ctx, baseline, filtered, demo, filtered, log);
    return report(ctx, articles, deepAt, depth, { route: filtered, demo: f.b, baseline: f.a, ratio: f.ratio, total });
  } finally {
    await demo.stop();
    await baseline.stop();
  }
}

function report(
  ctx: BenchContext,
  articles: number,
  deepAt: number,
  depth: DepthRow[],
  filtered: FilteredRow,
): { lines: string[]; targets: Target[] } {
  const targets: Target[] = [];
  const lines = [QUERY_HEADING, ''];
  lines.push(
    `On ${f0(articles)} seeded articles${articles < 100_000 ? " (--quick: a smaller file than the full run's 100,000)" : ''}, the demo alone for (a) and (b), demo against the baseline for (c); autocannon as above, a warm-up of ${ctx.config.warmupRequests} requests then ${ctx.config.duration} s${ctx.quick ? '' : ` (the filtered route ${filtered.route.seconds ?? ctx.config.duration} s)`}, ${ctx.config.reps} paired run(s) in alternating order, medians; ratios are medians of the pairs' ratios. The deep cursor is built from the article before offset ${f0(deepAt)} and checked to give the same page as the offset request.`,
    '',
  );
  lines.push(
    '| pagination | first page req/s | first page CPU µs/request | page at 90% req/s | page at 90% CPU µs/request | deep / first req/s | deep / first CPU | target |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const row of depth) {
    // Keyset pages seek on the (created_at, id) index: their cost must not grow with depth; an
    // OFFSET walks every row it skips, which is what the offset row shows.
    const ok = row.ratio >= 0.8;
    if (row.kind === 'cursor')
      targets.push(['query: cursor page at 90% >= 0.8 × first page (req/s)', ok, f2(row.ratio)]);
    lines.push(
      `| ${row.kind}: \`${row.first.label}\` / \`${row.deep.label}\` | ${f0(row.firstLoad.rps)} | ${f0(row.firstLoad.cpu)} | ${f0(row.deepLoad.rps)} | ${f0(row.deepLoad.cpu)} | ${f2(row.ratio)} | ${f2(row.deepLoad.cpu / row.firstLoad.cpu)} | ${row.kind === 'cursor' ? `>= 0.8: ${mark(ok)}` : '(reported)'} |`,
    );
  }
  const ok = filtered.ratio >= 0.8;
  targets.push(['query: filtered route >= 0.8 × baseline', ok, f2(filtered.ratio)]);
  lines.push(
    '',
    `(c) \`${filtered.route.label}\` (${f0(filtered.total)} matching articles, counted: \`meta.total\` and a \`last\` link), against the baseline's hand-written \`where created_at >= ? and id in (select article_id from article_tags join tags ... where tags.name = ?)\` with its count (the same document: bench/baseline/baseline.test.ts).`,
    '',
  );
  lines.push(
    '| route | demo req/s | baseline req/s | demo / baseline | CPU µs/request (demo / baseline) | demo p50 / p99 ms | baseline p50 / p99 ms | target >= 0.8 |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---|');
  lines.push(
    `| filtered | ${f0(filtered.demo.rps)} | ${f0(filtered.baseline.rps)} | ${f2(filtered.ratio)} | ${f0(filtered.demo.cpu)} / ${f0(filtered.baseline.cpu)} | ${filtered.demo.p50} / ${filtered.demo.p99} | ${filtered.baseline.p50} / ${filtered.baseline.p99} | ${mark(ok)} |`,
  );
  lines.push('');
  return { lines, targets };
}
