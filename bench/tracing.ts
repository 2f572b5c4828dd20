/**
 * What tracing costs: the CPU time per request of `api.handle(request)` of the generated blog
 * API with no tracing, with `serverTiming`, and with `@jsonapi-gen/opentelemetry` on the
 * OpenTelemetry SDK (an AsyncLocalStorage context manager, a batch span processor, every span
 * exported to an exporter that drops it), without and with its stage spans. The variants take
 * turns for `--time` ms each, `--rounds` times; medians, and each one's ratio to no tracing.
 * CPU time rather than wall time: what other processes do matters less. Over the
 * in-memory data layers of `bench/inprocess.ts` (the pipeline's own cost: the hardest case), or
 * with `--sqlite` over the Kysely store on the SQLite file (the demo's statements, in process).
 *
 *   node --import tsx bench/tracing.ts FILE [--sqlite] [--routes a,b] [--time 500] [--rounds 7]
 *   node --import tsx bench/tracing.ts FILE --http [--routes a,b] [--rounds 7] [--profile DIR]
 *
 * FILE: a seeded blog database (`seedFile` of bench/sqlite-sections.ts). With `--http`, the
 * bench's own method instead (bench/tracing-http.ts): the demo over HTTP, one server process
 * per variant, requests per second and server CPU per request, `--rounds` paired repetitions.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from '@jsonapi-gen/opentelemetry';
import type { JsonApi, JsonApiOptions } from 'jsonapi-gen';
import { openDatabase } from '../examples/blog/db.js';
import { type DataLayers, createApi } from '../examples/blog/generated/index.js';
import { createStore } from '../examples/blog/store.js';
import { memoryDataLayers } from './inprocess.js';
import { ROUTES } from './routes.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const file = args.find(
  (a, i) => !a.startsWith('--') && !['--routes', '--time', '--rounds', '--profile'].includes(args[i - 1] ?? ''),
);
if (!file) throw new Error('usage: bench/tracing.ts FILE [--sqlite] [--routes a,b] [--time 500] [--rounds 7]');
const names = (option('--routes') ?? 'a,b').split(',');
const time = Number(option('--time') ?? 500);
const rounds = Number(option('--rounds') ?? 7);
if (args.includes('--http')) {
  const { tracingOverHttp } = await import('./tracing-http.js');
  await tracingOverHttp(file, names, rounds, option('--profile'));
  process.exit(0);
}

/** Spans are made, ended and handed to the processor as in production; the exporter drops them. */
const dropping: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: () => Promise.resolve(),
};
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
// The batch processor, as in production (the simple one exports each span as it ends: several
// times the cost per span).
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });

let layers: () => DataLayers;
if (args.includes('--sqlite')) {
  const database = openDatabase({ file });
  layers = () => createStore(database.db);
} else {
  const memory = memoryDataLayers(file);
  layers = () => memory;
}
const apis: Record<string, JsonApi> = {};
const variants: Record<string, JsonApiOptions> = {
  off: {},
  serverTiming: { serverTiming: true },
  openTelemetry: { instrument: openTelemetry({ tracer: provider.getTracer('bench') }) },
  'openTelemetry, stages: true': {
    instrument: openTelemetry({ tracer: provider.getTracer('bench'), stages: true }),
  },
};
for (const [name, options] of Object.entries(variants)) apis[name] = createApi(layers(), options);

/** CPU µs per request of `api` over `ms` of back-to-back requests (the process's own CPU: what other processes do matters less). */
async function cpuPerRequest(api: JsonApi, request: Request, ms: number): Promise<number> {
  const cpu = process.cpuUsage();
  const until = performance.now() + ms;
  let count = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 20; i++) await api.handle(request);
    count += 20;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / count;
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
const rows = [];
for (const name of names) {
  const route = ROUTES.find((r) => r.name === name);
  if (!route || route.method !== 'GET') throw new Error(`no GET route ${name}`);
  const request = new Request(`http://127.0.0.1:3000${route.path}`);
  const samples: Record<string, number[]> = {};
  for (const [variant, api] of Object.entries(apis)) {
    const first = await api.handle(request);
    if (first.status !== 200) throw new Error(`${variant} ${route.path}: ${first.status}`);
    await cpuPerRequest(api, request, 300); // warm-up
    samples[variant] = [];
  }
  // The variants take turns, round after round; each figure is the median of its rounds.
  for (let round = 0; round < rounds; round++)
    for (const [variant, api] of Object.entries(apis)) samples[variant]!.push(await cpuPerRequest(api, request, time));
  const off = median(samples.off!);
  const row: Record<string, string> = { route: name };
  for (const [variant, values] of Object.entries(samples)) {
    const us = median(values);
    row[variant] = variant === 'off' ? `${us.toFixed(1)} µs` : `${us.toFixed(1)} µs (${(us / off).toFixed(3)})`;
  }
  rows.push(row);
}
console.table(rows);
process.exit(0);
