/**
 * The jsonapi-gen command:
 *   build <schema.ts> --out <dir> [--check] [--stubs <dir>] [--watch] [--quiet | --json]
 *   init [dir] [--from-checkout | --registry] [--store kysely|prisma|drizzle]
 *   diff <old> <new> | diff --against <ref> <path> [--json] [--allow-breaking]
 * Schema mistakes print as `file:line:col` with the line quoted, and exit 1; never a stack trace.
 * Output is short, coloured only on a terminal (NO_COLOR respected, see output.ts).
 */
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { describeApi } from './api-description.js';
import { SchemaError } from './errors.js';
import type { DiffOptions } from './diff/command.js';
import type { OpenApiOptions } from './emit/openapi.js';
import { checkFiles, leftovers, writeFiles } from './files.js';
import type { ApiModel } from './ir.js';
import { InitConflict, type InitOptions, type InitStore, init, packageRoot } from './init.js';
import { MANIFEST, inputHash, manifestFile, upToDate } from './incremental.js';
import { loadSchema } from './load.js';
import { endpointCount, modelFor } from './model.js';
import { type Io, streamIo, styleProblems } from './output.js';
import type { OutputFile } from './print.js';
import { validate } from './validate.js';

export type { Io } from './output.js';

export interface BuildOptions {
  out: string;
  check?: boolean;
  stubs?: string;
  title?: string;
  apiVersion?: string;
  /** Nothing on stdout; errors still go to stderr. */
  quiet?: boolean;
  /** One JSON object on stdout per build (and nothing on stderr): see `BuildReport`. */
  json?: boolean;
  watch?: boolean;
}

/** What `build --json` prints. Paths in the lists are relative to `out`. */
export type BuildReport =
  | {
      ok: true;
      schema: string;
      out: string;
      resources: number;
      endpoints: number;
      written: string[];
      unchanged: string[];
      removed: string[];
      stubs?: { dir: string; written: string[]; kept: string[] };
    }
  | {
      ok: boolean;
      check: true;
      schema: string;
      out: string;
      resources: number;
      endpoints: number;
      stale: string[];
      missing: string[];
      extra: string[];
    }
  | {
      ok: false;
      schema: string;
      out: string;
      errors: Array<{ message: string; file?: string; line?: number; column?: number }>;
    };

function packageVersion(): string {
  try {
    return packageRoot().manifest.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const shown = (path: string) => relative(process.cwd(), path) || '.';
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The output of a build: `fresh` when `outDir` already holds it (its manifest records the same
 * input hash and its files are intact), found without loading the emitters; else generated,
 * with its manifest.
 */
async function prepare(
  schemaFile: string,
  outDir: string,
  options: OpenApiOptions,
): Promise<{ model: ApiModel; files: readonly OutputFile[]; fresh: boolean }> {
  const loaded = await loadSchema(schemaFile);
  if (validate(loaded).length === 0) {
    const model = modelFor(loaded, outDir);
    const paths = upToDate(outDir, inputHash(model, options, describeApi(loaded, model.schemaPath)));
    if (paths && leftovers(outDir, paths).length === 0)
      return { model, files: paths.map((path) => ({ path, content: '' })), fresh: true };
  }
  // Loaded on demand: ts-morph and prettier are heavy, and --help, --version or a build with
  // nothing to do need neither.
  const { generateFrom } = await import('./generate.js');
  const { model, files } = await generateFrom(loaded, outDir, options);
  const description = describeApi(loaded, model.schemaPath);
  const manifest = manifestFile(inputHash(model, options, description), files, model.schemaPath);
  return { model, files: [...files, manifest].sort((a, b) => (a.path < b.path ? -1 : 1)), fresh: false };
}

/** Runs `build` once; returns the exit code. Schema mistakes are reported here, not thrown. */
export async function build(schema: string, options: BuildOptions, io: Io = streamIo()): Promise<number> {
  const outDir = resolve(options.out);
  const schemaFile = resolve(schema);
  const say = (line: string) => {
    if (!options.quiet && !options.json) io.out(line);
  };
  const report = (value: BuildReport) => io.out(JSON.stringify(value));
  const { bold, green, yellow } = io.outStyle;
  const e = io.errStyle;
  const name = bold('jsonapi-gen');
  const errName = e.bold('jsonapi-gen');

  try {
    const { model, files, fresh } = await prepare(schemaFile, outDir, {
      ...(options.title !== undefined && { title: options.title }),
      ...(options.apiVersion !== undefined && { version: options.apiVersion }),
    });
    const counts = { resources: model.resources.length, endpoints: endpointCount(model) };
    const what = `${plural(counts.resources, 'resource')}, ${plural(counts.endpoints, 'endpoint')}`;

    if (options.check) {
      // The manifest is a cache, not output: a stale one only costs the next build its skip.
      const { stale, missing, extra } = fresh
        ? { stale: [], missing: [], extra: [] }
        : checkFiles(
            outDir,
            files.filter((f) => f.path !== MANIFEST),
          );
      const ok = stale.length + missing.length + extra.length === 0;
      if (options.json) report({ ok, check: true, schema: schemaFile, out: outDir, ...counts, stale, missing, extra });
      else if (ok) say(`${name}: ${shown(outDir)} is up to date (${plural(files.length, 'file')}; ${what})`);
      else {
        io.err(
          `${errName}: ${shown(outDir)} is ${e.red('out of date')}; run jsonapi-gen build ${shown(schemaFile)} --out ${shown(outDir)}`,
        );
        for (const path of stale) io.err(`  stale:   ${path}`);
        for (const path of missing) io.err(`  missing: ${path}`);
        for (const path of extra) io.err(`  extra:   ${path}`);
      }
      return ok ? 0 : 1;
    }

    const result = fresh
      ? { written: [], unchanged: files.map((f) => f.path), removed: [] }
      : writeFiles(outDir, files);
    let stubs: { dir: string; written: string[]; kept: string[] } | undefined;
    if (options.stubs !== undefined) {
      const { writeStubs } = await import('./stubs.js');
      const stubsDir = resolve(options.stubs);
      const written = await writeStubs(model, stubsDir, outDir);
      stubs = { dir: stubsDir, written: written.written, kept: written.skipped };
    }
    if (options.json) {
      report({
        ok: true,
        schema: schemaFile,
        out: outDir,
        ...counts,
        written: result.written,
        unchanged: result.unchanged,
        removed: result.removed,
        ...(stubs && { stubs }),
      });
      return 0;
    }
    const changed =
      result.written.length > 0 ? green(`${result.written.length} written`) : `${result.written.length} written`;
    say(
      `${name}: ${what} → ${shown(outDir)}: ${changed}, ${result.unchanged.length} unchanged` +
        (result.removed.length > 0 ? `, ${yellow(`${result.removed.length} removed`)}` : ''),
    );
    for (const path of result.removed) say(`  removed  ${path}`);
    if (stubs) {
      say(`${name}: stubs → ${shown(stubs.dir)}: ${stubs.written.length} written, ${stubs.kept.length} kept`);
      for (const path of stubs.written) say(`  wrote    ${path}`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof SchemaError)) {
      if (!options.json) throw error;
      report({ ok: false, schema: schemaFile, out: outDir, errors: [{ message: message(error) }] });
      return 1;
    }
    if (options.json) {
      report({ ok: false, schema: schemaFile, out: outDir, errors: error.problems.map((p) => ({ ...p })) });
    } else {
      io.err(styleProblems(error.format(), e));
    }
    return 1;
  }
}

/**
 * `build --watch`: builds now and on every change, until SIGINT or SIGTERM; exit code 0. Each
 * build runs in a fresh process (`jsonapi-gen build` without --watch): a schema module and
 * everything it imports load anew, and a failed build cannot take the watcher down.
 */
export async function buildWatching(
  schema: string,
  options: BuildOptions,
  io: Io = streamIo(),
  bin = process.argv[1],
): Promise<number> {
  if (bin === undefined) throw new Error('--watch needs the path of the jsonapi-gen command');
  const { spawn } = await import('node:child_process');
  const { watchSchema } = await import('./watch.js');
  const { bold, dim } = io.outStyle;
  if (!options.quiet && !options.json)
    io.out(`${bold('jsonapi-gen')}: watching ${shown(resolve(schema, '..'))} ${dim('(Ctrl-C stops)')}`);
  const args = [bin, 'build', resolve(schema), '--out', resolve(options.out)];
  if (options.stubs !== undefined) args.push('--stubs', resolve(options.stubs));
  if (options.title !== undefined) args.push('--title', options.title);
  if (options.apiVersion !== undefined) args.push('--api-version', options.apiVersion);
  if (options.quiet) args.push('--quiet');
  if (options.json) args.push('--json');
  const once = () =>
    new Promise<void>((done) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
      child.once('error', (error) => {
        io.err(`${io.errStyle.bold('jsonapi-gen')}: ${io.errStyle.red('error')}: ${message(error)}`);
        done();
      });
      child.once('exit', () => done());
    });
  await watchSchema(schema, once).done;
  return 0;
}

/** `init [dir]`: scaffolds a host; builds its generated code when jsonapi-gen already resolves there. */
export async function initCommand(dir: string, io: Io = streamIo(), options: InitOptions = {}): Promise<number> {
  const { bold, green, dim } = io.outStyle;
  let result;
  try {
    result = init(dir, options);
  } catch (error) {
    if (!(error instanceof InitConflict)) throw error;
    io.err(
      `${io.errStyle.bold('jsonapi-gen')}: ${io.errStyle.red('error')}: ${shown(resolve(dir))} already has ${error.existing.join(', ')}; nothing written`,
    );
    return 1;
  }
  const source =
    result.from === 'checkout'
      ? 'the packages of this clone, packed into vendor/'
      : 'the packages from the npm registry';
  io.out(
    `${bold('jsonapi-gen')}: ${green(`new host in ${shown(result.dir)}`)} (${plural(result.written.length, 'file')}; ${source})`,
  );
  for (const path of result.written) io.out(dim(`  ${path}`));
  let installed = false;
  try {
    createRequire(join(result.dir, 'package.json')).resolve('jsonapi-gen');
    installed = true;
  } catch {
    installed = false;
  }
  if (installed) {
    const code = await build(join(result.dir, 'src', 'schema.ts'), { out: join(result.dir, 'src', 'generated') }, io);
    if (code !== 0) return code;
  }
  const cd = shown(result.dir) === '.' ? '' : `cd ${shown(result.dir)} && `;
  // A Prisma host's client is generated from prisma/schema.prisma before it can start.
  const generate = result.store === 'prisma' ? 'npm run prisma:generate && ' : '';
  io.out(`Next: ${bold(`${cd}${installed ? '' : 'npm install && '}${generate}npm start`)}`);
  return 0;
}

export function program(io: Io = streamIo()): Command {
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
    .addOption(new Option('-w, --watch', 'rebuild when the schema (or a file beside it) changes').conflicts('check'))
    .addOption(new Option('-q, --quiet', 'print nothing on success (errors still go to stderr)').conflicts('json'))
    .option('--json', 'print the result as JSON on stdout (one object per build)')
    .action(async (schema: string, options: BuildOptions) => {
      process.exitCode = options.watch ? await buildWatching(schema, options, io) : await build(schema, options, io);
    });
  cli
    .command('init')
    .description(
      'Scaffold a new host: schema, SQLite store (Kysely, or Prisma or Drizzle with --store), server, a test and npm scripts; then `npm install && npm start`.',
    )
    .argument('[dir]', 'the directory (created when missing)', '.')
    .addOption(
      new Option(
        '--from-checkout',
        "depend on this clone's packages, packed into <dir>/vendor/ (the default when run from a clone)",
      ).conflicts('registry'),
    )
    .option(
      '--registry',
      'depend on the published packages, ^version from the npm registry (the default outside a clone)',
    )
    .addOption(
      new Option(
        '--store <store>',
        'the data layers: the Kysely store, the Prisma store on a client generated from prisma/schema.prisma, or the Drizzle store on the tables of src/tables.ts',
      )
        .choices(['kysely', 'prisma', 'drizzle'])
        .default('kysely'),
    )
    .action(async (dir: string, options: { fromCheckout?: boolean; registry?: boolean; store: InitStore }) => {
      const from = options.registry ? 'registry' : options.fromCheckout ? 'checkout' : undefined;
      process.exitCode = await initCommand(dir, io, { ...(from !== undefined && { from }), store: options.store });
    });
  cli
    .command('diff')
    .description(
      'Compare two versions of an API (schema files or generated folders): every change, breaking or not, and the semver verdict; exit 1 on a breaking change.',
    )
    .argument('[old]', 'the old schema file or generated folder (with --against: the schema file or folder to compare)')
    .argument('[new]', 'the new schema file or generated folder')
    .option('--against <ref>', 'compare <old> with the same path at this git ref')
    .option('--json', 'print { verdict, changes } as JSON on stdout')
    .option('--allow-breaking', 'exit 0 even when a change is breaking')
    // A bad invocation exits 2, as an unreadable input does: 1 means a breaking change.
    .exitOverride((error) => {
      throw error.exitCode === 0 ? error : new CommanderError(2, error.code, error.message);
    })
    .action(async (old: string | undefined, now: string | undefined, options: DiffOptions) => {
      // Loaded on demand, as the emitters are for build.
      const { diff } = await import('./diff/command.js');
      process.exitCode = await diff(
        [old, now].filter((p) => p !== undefined),
        options,
        io,
      );
    });
  return cli;
}

/** The CLI entry: parses `argv`, reports failures without stack traces. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const io = streamIo();
  try {
    await program(io).parseAsync([...argv]);
  } catch (error) {
    if (error instanceof SchemaError) {
      io.err(styleProblems(error.format(), io.errStyle));
      process.exitCode = 1;
    } else if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
    } else {
      io.err(`${io.errStyle.bold('jsonapi-gen')}: ${io.errStyle.red('error')}: ${message(error)}`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
