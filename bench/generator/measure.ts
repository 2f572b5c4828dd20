/**
 * The generator section of the benchmark (issue 27): for N resources (bench/generator/schema.ts),
 * a cold `jsonapi-gen build`, the same build again with nothing changed, `--check`, `tsc --noEmit`
 * of the generated TypeScript in a host (strict, skipLibCheck), and openapi-typescript on the
 * produced openapi.json; wall time, CPU time and peak memory of each (measured in the child by
 * rusage.mjs), and output bytes.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSchema } from './schema.js';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const RUSAGE = join(ROOT, 'bench', 'generator', 'rusage.mjs');

/** One measured command. */
export interface Run {
  readonly ms: number;
  readonly cpuMs: number;
  readonly peakMb: number;
}

export interface GeneratorRow {
  readonly resources: number;
  readonly build: Run;
  readonly noChange: Run;
  readonly check: Run;
  readonly tsc: Run;
  readonly openapiTypescript: Run;
  /** Every generated file, openapi.json, openapi.ts, and openapi-typescript's output. */
  readonly bytes: {
    readonly total: number;
    readonly json: number;
    readonly ts: number;
    readonly openapiTypescript: number;
  };
}

/** Runs `node args` in `cwd`, measuring it; rejects on a non-zero exit. */
function measure(args: readonly string[], cwd: string): Promise<Run> {
  const usage = join(cwd, '.rusage.json');
  rmSync(usage, { force: true });
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', RUSAGE, ...args], {
      cwd,
      env: { ...process.env, RUSAGE_FILE: usage, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return fail(new Error(`node ${args.join(' ')} exited with ${code}:\n${stderr}`));
      const { cpuUs, maxRssKb } = JSON.parse(readFileSync(usage, 'utf8')) as { cpuUs: number; maxRssKb: number };
      done({ ms, cpuMs: cpuUs / 1000, peakMb: maxRssKb / 1024 });
    });
  });
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(path) : statSync(path).size;
  }
  return total;
}

/**
 * The package's declarations (what a host's tsc reads of jsonapi-gen, and skips checking with
 * skipLibCheck), emitted once into `dir`.
 */
export async function emitDeclarations(dir: string): Promise<string> {
  // The runtime package's own build (the generated code and the schema import only it).
  await measure(
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(ROOT, 'runtime', 'tsconfig.build.json'),
      '--emitDeclarationOnly',
      '--outDir',
      join(dir, 'runtime'),
    ],
    ROOT,
  );
  return dir;
}

/** Measures one size in `dir` (emptied first); the host's tsc reads jsonapi-gen's declarations from `types`. */
export async function measureGenerator(n: number, dir: string, types: string): Promise<GeneratorRow> {
  rmSync(dir, { recursive: true, force: true });
  const schema = writeSchema(dir, n);
  const out = join(dir, 'generated');
  const cli = [join(ROOT, 'bin', 'jsonapi-gen.js'), 'build', schema, '--out', out, '--quiet'];
  const build = await measure(cli, dir);
  const noChange = await measure(cli, dir);
  const check = await measure([...cli, '--check'], dir);
  // A host type-checking the generated code: strict, skipLibCheck, jsonapi-gen's declarations.
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        paths: { 'jsonapi-gen': [join(types, 'runtime/index.d.ts')] },
      },
      include: ['generated/**/*.ts'],
    }),
  );
  const tsc = await measure([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], dir);
  const typesFile = join(dir, 'openapi-typescript.d.ts');
  const openapiTypescript = await measure(
    [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(out, 'openapi.json'), '-o', typesFile],
    dir,
  );
  return {
    resources: n,
    build,
    noChange,
    check,
    tsc,
    openapiTypescript,
    bytes: {
      total: bytesUnder(out),
      json: statSync(join(out, 'openapi.json')).size,
      ts: statSync(join(out, 'openapi.ts')).size,
      openapiTypescript: statSync(typesFile).size,
    },
  };
}

/** The sizes measured, and the targets of issue 27. */
export const SIZES = [20, 100, 500];

const s = (ms: number) => (ms / 1000).toFixed(2);
const mb = (n: number) => n.toFixed(0);
const kb = (bytes: number) => (bytes / 1024).toFixed(0);

/** The section's markdown, and its targets as [name, met, measured]. */
export function generatorReport(rows: readonly GeneratorRow[]): {
  lines: string[];
  targets: Array<[string, boolean, string]>;
} {
  const lines = [
    '## Generator: `jsonapi-gen build` of N resources, against openapi-typescript on the produced document',
    '',
    'bench/generator/schema.ts writes N resources, each with five attributes, a to-one and a to-many relationship to its neighbours (includable) and all five endpoints; each command runs in its own process (peak memory: its maximum RSS; CPU: user + system). tsc: `tsc --noEmit` (strict, skipLibCheck) over the generated TypeScript in a host. openapi-typescript 7 turns the produced openapi.json into types.',
    '',
    '| resources | build s (CPU s) | peak MB | ms/resource | no-change build s | --check s | tsc --noEmit s (peak MB) | output kB | openapi.json kB (per resource) | openapi.ts kB | openapi-typescript s (CPU s) | its peak MB | its output kB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.resources} | ${s(r.build.ms)} (${s(r.build.cpuMs)}) | ${mb(r.build.peakMb)} | ${(r.build.ms / r.resources).toFixed(1)} | ${s(r.noChange.ms)} | ${s(r.check.ms)} | ${s(r.tsc.ms)} (${mb(r.tsc.peakMb)}) | ${kb(r.bytes.total)} | ${kb(r.bytes.json)} (${(r.bytes.json / r.resources / 1024).toFixed(1)}) | ${kb(r.bytes.ts)} | ${s(r.openapiTypescript.ms)} (${s(r.openapiTypescript.cpuMs)}) | ${mb(r.openapiTypescript.peakMb)} | ${kb(r.bytes.openapiTypescript)} |`,
    );
  }
  const targets: Array<[string, boolean, string]> = [];
  const at = (n: number) => rows.find((r) => r.resources === n);
  const big = at(500);
  if (big) {
    targets.push(['generator: 500 resources build < 5 s', big.build.ms < 5000, `${s(big.build.ms)} s`]);
    targets.push(['generator: 500 resources build < 500 MB', big.build.peakMb < 500, `${mb(big.build.peakMb)} MB`]);
    targets.push(['generator: tsc --noEmit of 500 resources < 10 s', big.tsc.ms < 10_000, `${s(big.tsc.ms)} s`]);
  }
  const [small, large] = [rows[0], rows[rows.length - 1]];
  if (small && large && small !== large) {
    const perSmall = small.bytes.json / small.resources;
    const perLarge = large.bytes.json / large.resources;
    targets.push([
      `generator: openapi.json bytes/resource at ${large.resources} <= 1.5 × at ${small.resources}`,
      perLarge <= 1.5 * perSmall,
      (perLarge / perSmall).toFixed(2),
    ]);
    // Flat: the marginal cost of a resource (beyond a build's fixed cost, taken from the
    // smallest size) does not grow with N.
    const mid = rows[rows.length - 2]!;
    const marginal = (a: GeneratorRow, b: GeneratorRow) => (b.build.ms - a.build.ms) / (b.resources - a.resources);
    if (mid !== small) {
      const [first, last] = [marginal(small, mid), marginal(mid, large)];
      targets.push([
        `generator: ms per added resource ${small.resources}→${mid.resources} vs ${mid.resources}→${large.resources} (flat: <= 1.5×)`,
        last <= 1.5 * first,
        `${first.toFixed(1)} / ${last.toFixed(1)}`,
      ]);
    }
  }
  return { lines: [...lines, ''], targets };
}

/** Measures every size in turn under `workDir`. */
export async function runGenerator(
  sizes: readonly number[],
  workDir: string,
  log: (line: string) => void = () => {},
): Promise<GeneratorRow[]> {
  mkdirSync(workDir, { recursive: true });
  log('generator: emitting the package declarations');
  const types = await emitDeclarations(join(workDir, 'types'));
  const rows: GeneratorRow[] = [];
  for (const n of sizes) {
    log(`generator: ${n} resources`);
    rows.push(await measureGenerator(n, join(workDir, String(n)), types));
  }
  return rows;
}
