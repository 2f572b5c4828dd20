/**
 * `jsonapi-gen build <schema.ts> --out <dir> [--check] [--stubs <dir>]`.
 * Schema mistakes print as `file:line:col` with the line quoted, and exit 1; never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { SchemaError } from './errors.js';
import { checkFiles, writeFiles } from './files.js';
import { endpointCount } from './model.js';

export interface BuildOptions {
  out: string;
  check?: boolean;
  stubs?: string;
  title?: string;
  apiVersion?: string;
}

interface Io {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: Io = { out: (line) => process.stdout.write(line + '\n'), err: (line) => process.stderr.write(line + '\n') };

function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'jsonapi-gen') return pkg.version ?? '0.0.0';
    } catch {
      // keep looking upwards
    }
    if (dirname(dir) === dir) return '0.0.0';
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const shown = (path: string) => relative(process.cwd(), path) || '.';

/** Runs `build`; returns the exit code. */
export async function build(schema: string, options: BuildOptions, io: Io = consoleIo): Promise<number> {
  const outDir = resolve(options.out);
  // Loaded on demand: ts-morph and prettier are heavy, and --help or --version need neither.
  const { generate } = await import('./generate.js');
  const { model, files } = await generate(schema, outDir, {
    ...(options.title !== undefined && { title: options.title }),
    ...(options.apiVersion !== undefined && { version: options.apiVersion }),
  });
  const what = `${plural(model.resources.length, 'resource')}, ${plural(endpointCount(model), 'endpoint')}`;
  if (options.check) {
    const { stale, missing, extra } = checkFiles(outDir, files);
    if (stale.length + missing.length + extra.length === 0) {
      io.out(`jsonapi-gen: ${shown(outDir)} is up to date (${plural(files.length, 'file')}; ${what})`);
      return 0;
    }
    io.err(`jsonapi-gen: ${shown(outDir)} is out of date; run jsonapi-gen build ${shown(resolve(schema))} --out ${shown(outDir)}`);
    for (const path of stale) io.err(`  stale:   ${path}`);
    for (const path of missing) io.err(`  missing: ${path}`);
    for (const path of extra) io.err(`  extra:   ${path}`);
    return 1;
  }
  const result = writeFiles(outDir, files);
  io.out(
    `jsonapi-gen: ${what} → ${shown(outDir)}: ${result.written.length} written, ${result.unchanged.length} unchanged` +
      (result.removed.length > 0 ? `, ${result.removed.length} removed` : ''),
  );
  for (const path of result.written) io.out(`  wrote    ${path}`);
  for (const path of result.removed) io.out(`  removed  ${path}`);
  if (options.stubs !== undefined) {
    const { writeStubs } = await import('./stubs.js');
    const stubs = await writeStubs(model, resolve(options.stubs), outDir);
    io.out(`jsonapi-gen: stubs → ${shown(resolve(options.stubs))}: ${stubs.written.length} written, ${stubs.skipped.length} kept`);
    for (const path of stubs.written) io.out(`  wrote    ${path}`);
  }
  return 0;
}

export function program(io: Io = consoleIo): Command {
  const cli = new Command('jsonapi-gen')
    .description('Typed code and an OpenAPI 3.1 document from declared JSON:API resources.')
    .version(packageVersion(), '-v, --version')
    .showHelpAfterError();
  cli
    .command('build')
    .description('Generate types, data-layer interfaces, handlers, createApi and openapi.json from a schema file.')
    .argument('<schema>', 'the schema file (.ts), exporting defineResource(...) results')
    .requiredOption('-o, --out <dir>', 'the output directory')
    .option('--check', 'write nothing; exit 1 listing stale or missing files')
    .option('--stubs <dir>', 'also scaffold data-layer stubs in <dir>, never overwriting a file')
    .option('--title <title>', 'info.title of the OpenAPI document', 'JSON:API')
    .option('--api-version <version>', 'info.version of the OpenAPI document', '1.0.0')
    .action(async (schema: string, options: BuildOptions) => {
      process.exitCode = await build(schema, options, io);
    });
  return cli;
}

/** The CLI entry: parses `argv`, reports failures without stack traces. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  try {
    await program().parseAsync([...argv]);
  } catch (error) {
    if (error instanceof SchemaError) {
      process.stderr.write(error.format() + '\n');
      process.exitCode = 1;
    } else if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(`jsonapi-gen: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
