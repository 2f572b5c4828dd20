/**
 * What tracing costs as the bench measures a route: the demo over HTTP (SQLite file, Kysely
 * store, compiled to plain JavaScript, in its own process), once per variant (bench/traced-demo.ts:
 * no tracing, twice (two processes: what the method cannot tell apart); `serverTiming`; an
 * instrument that does nothing; the OpenTelemetry SDK's spans made alone, from Node's HTTP events
 * and through an instrument; `@jsonapi-gen/opentelemetry` with no context manager; each request in an OpenTelemetry context with none of our spans, as a
 * service whose HTTP server OpenTelemetry already traces; and the same with the adapter, with and
 * without its stage spans), 32 connections; the servers take turns route by route and repetition
 * by repetition (who goes first rotates), and each variant's figure is the median of its paired
 * ratios to no tracing (the adapter in a context: to the context alone, too).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from './compile.js';
import { type Load, median, medianLoad, warm } from './load.js';
import { ROUTES } from './routes.js';
import { type BenchContext, type ServerProcess, measure, serve } from './server-process.js';

const VARIANTS = [
  'demo',
  'demo-twin',
  'demo-server-timing',
  'demo-hook',
  'demo-sdk-raw',
  'demo-sdk-spans',
  'demo-otel-bare',
  'demo-context',
  'demo-otel',
  'demo-otel-stages',
] as const;
const LABELS: Record<(typeof VARIANTS)[number], string> = {
  demo: 'off',
  'demo-twin': 'off, a second process (the noise of the method)',
  'demo-server-timing': 'serverTiming',
  'demo-hook': 'an instrument that does nothing',
  'demo-sdk-raw': "the SDK's five spans alone, from Node's HTTP events",
  'demo-sdk-spans': "the SDK's five spans alone, through instrument",
  'demo-otel-bare': 'openTelemetry, no context manager',
  'demo-context': 'context manager, each request in a context',
  'demo-otel': 'the same + openTelemetry',
  'demo-otel-stages': 'the same + openTelemetry, stages: true',
};
/** Variants measured against the context-manager one too (the adapter in a service already traced). */
const IN_CONTEXT: ReadonlySet<string> = new Set(['demo-otel', 'demo-otel-stages']);

/**
 * Prints, per route, each variant's req/s and CPU µs per request, and its ratio to no tracing;
 * `profile`: a folder for CPU profiles of the untraced and the OpenTelemetry servers.
 */
export async function tracingOverHttp(
  file: string,
  names: readonly string[],
  reps: number,
  profile?: string,
): Promise<void> {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const work = mkdtempSync(join(tmpdir(), 'jsonapi-gen-tracing-'));
  const children = new Set<ChildProcess>();
  const ctx: BenchContext = {
    compiled: join(work, 'js'),
    children,
    quick: false,
    ...(profile !== undefined && { profile, profileKinds: ['demo', 'demo-otel'] }),
    config: { reps, warmupRequests: 500, duration: 1, scaleDbs: [], memory: [], inProcessMs: 0 },
  };
  const servers: ServerProcess[] = [];
  try {
    compile(root, ctx.compiled);
    for (const kind of VARIANTS) servers.push(await serve(ctx, kind, file));
    const routes = ROUTES.filter((route) => names.includes(route.name) && route.method === 'GET');
    await warm(servers, routes, undefined, 2);
    const rows = [];
    for (const route of routes) {
      const loads = new Map<string, Load[]>(VARIANTS.map((kind) => [kind, []]));
      for (let rep = 0; rep < reps; rep++) {
        const order = servers.map((_, i) => servers[(i + rep) % servers.length]!);
        for (const server of order) loads.get(server.kind)!.push(await measure(ctx, server, route, 1));
      }
      const off = loads.get('demo')!;
      const inContext = loads.get('demo-context')!;
      const row: Record<string, string> = { route: route.name };
      for (const kind of VARIANTS) {
        const mine = loads.get(kind)!;
        const { rps, cpu } = medianLoad(mine);
        const ratio = median(mine.map((load, i) => load.rps / off[i]!.rps));
        const cpuRatio = median(mine.map((load, i) => load.cpu / off[i]!.cpu));
        const vsContext = IN_CONTEXT.has(kind)
          ? ` [${median(mine.map((load, i) => load.cpu / inContext[i]!.cpu)).toFixed(3)} of the context's]`
          : '';
        row[LABELS[kind]] =
          kind === 'demo'
            ? `${rps.toFixed(0)} req/s, ${cpu.toFixed(0)} µs`
            : `${rps.toFixed(0)} req/s (${ratio.toFixed(3)}), ${cpu.toFixed(0)} µs (${cpuRatio.toFixed(3)})${vsContext}`;
      }
      rows.push(row);
    }
    // One line per variant: the table's cells are too long for a terminal's width.
    for (const row of rows) for (const [label, value] of Object.entries(row)) console.log(`${label}: ${value}`);
  } finally {
    for (const server of servers) await server.stop();
    for (const child of children) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}
