/**
 * What every HTTP section of the benchmark shares: the run's settings and children
 * (`BenchContext`, built by bench/run.ts), a server started in its own process (bench/serve.ts,
 * compiled), and one measured autocannon run against it with the server's CPU time per request.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Load, burst, load } from './load.js';
import type { Route } from './routes.js';

/** The sizes and durations of a run (full or --quick; see bench/run.ts). */
export interface BenchConfig {
  reps: number;
  warmupRequests: number;
  duration: number;
  scaleDbs: number[];
  memory: number[];
  inProcessMs: number;
}

/** The run's state the sections need: passed explicitly, so the entry alone parses the options. */
export interface BenchContext {
  /** Where the compiled JavaScript the servers run lives (see compile.ts). */
  compiled: string;
  /** Every child process started: the entry kills those left on exit. */
  children: Set<ChildProcess>;
  /** `--profile DIR`: CPU profiles of the demo processes (`node --cpu-prof`). */
  profile?: string;
  /** The server kinds `profile` applies to (default: `demo`). */
  profileKinds?: readonly string[];
  quick: boolean;
  config: BenchConfig;
}

export interface ServerProcess {
  kind: string;
  url: string;
  memory(): Promise<{ before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage }>;
  /** The server process's CPU time so far, µs (user + system). */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts `bench/serve.ts KIND FILE`, compiled, in its own process; resolves with its URL. */
export async function serve(
  ctx: BenchContext,
  kind: string,
  file?: string,
  nodeFlags: string[] = [],
): Promise<ServerProcess> {
  const flags = [...nodeFlags];
  if (ctx.profile && (ctx.profileKinds ?? ['demo']).includes(kind)) {
    mkdirSync(ctx.profile, { recursive: true });
    flags.push('--cpu-prof', `--cpu-prof-dir=${ctx.profile}`);
  }
  const child = spawn(
    process.execPath,
    [...flags, join(ctx.compiled, 'bench', 'serve.js'), kind, ...(file ? [file] : [])],
    {
      cwd: ctx.compiled,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  ctx.children.add(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.once('exit', () => ctx.children.delete(child));
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
        child.once('message', (message: { memory: { before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage } }) =>
          resolveMemory(message.memory),
        );
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

/** `config.warmupRequests` requests, then `seconds` measured; `extraCpu`: see `httpRoutes`. */
export async function measure(
  ctx: BenchContext,
  server: ServerProcess,
  route: Route,
  seconds: number,
  extraCpu?: () => number,
): Promise<Load> {
  await burst(server.url, route, ctx.config.warmupRequests, 500);
  const before = await server.cpu();
  const extraBefore = extraCpu?.() ?? 0;
  const result = await load(server.url, route, seconds);
  result.cpu = ((await server.cpu()) - before) / result.requests;
  if (extraCpu) result.dbCpu = (extraCpu() - extraBefore) / result.requests;
  return result;
}

/** The body bytes of one response. */
export async function bodyBytes(url: string, route: Route): Promise<number> {
  const response = await fetch(url + route.path, { method: route.method, headers: route.headers, body: route.body });
  return (await response.arrayBuffer()).byteLength;
}
