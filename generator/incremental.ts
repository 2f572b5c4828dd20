/**
 * Incremental builds: `manifest.json` in the output directory records a hash of what the output
 * is made from (the model, the document options and the generator's sources) and a hash of
 * every file written. A build whose input hash matches, with every file on disk as recorded,
 * has nothing to do: it loads the schema, validates it, builds the model, hashes, and stops,
 * without loading the emitters, ts-morph or prettier.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiDescription } from './api-description.js';
import type { ApiModel } from './ir.js';
import type { OpenApiOptions } from './emit/openapi.js';
import type { OutputFile } from './print.js';

/** The manifest's name in the output directory. */
export const MANIFEST = 'manifest.json';

export interface Manifest {
  readonly 'x-generated': string;
  /** sha256 of the model, the options and the generator's sources. */
  readonly input: string;
  /** sha256 of each generated file, by path. */
  readonly files: Readonly<Record<string, string>>;
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

let fingerprint: string | undefined;

/** The file the package's build writes into dist/: the fingerprint of the sources it compiled. */
export const FINGERPRINT = 'fingerprint.json';

/** A relative import of a module, on a line of code: `from '<path>.js'`, `import('<path>.js')`, `import '<path>.js'`. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']+)\.js'/g;

/** The relative imports of a module's text (lines of comments aside). */
function relativeImports(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .flatMap((line) => [...line.matchAll(RELATIVE_IMPORT)].map((match) => match[1]!));
}

/**
 * A hash of the generator's sources under `root` (its folder): the `.ts` modules of the command,
 * `cli.ts` and every module it imports, directly or not, by path, with line endings as git
 * stores them. Never dist/, nor any file the command does not import (a build's output, a
 * scratch file), so it is the same in a fresh clone and after `npm run build`.
 *
 * @example
 * sourceFingerprint('generator'); // 'a3f1...'
 */
export function sourceFingerprint(root: string): string {
  const sources = new Map<string, string>();
  const visit = (path: string) => {
    if (sources.has(path)) return;
    const text = readFileSync(join(root, path), 'utf8').replaceAll('\r\n', '\n');
    sources.set(path, text);
    for (const specifier of relativeImports(text)) {
      const target = posix.join(posix.dirname(path), `${specifier}.ts`);
      if (!target.startsWith('../')) visit(target);
    }
  };
  visit('cli.ts');
  const hash = createHash('sha256');
  for (const path of [...sources.keys()].sort()) hash.update(`${path}\0`).update(sources.get(path)!).update('\0');
  return hash.digest('hex');
}

/**
 * Writes dist/`FINGERPRINT`: run by the package's build, from dist/, over the sources it
 * compiled (the folder above).
 */
export function writeFingerprint(): void {
  const here = dirname(fileURLToPath(import.meta.url));
  writeFileSync(join(here, FINGERPRINT), JSON.stringify({ sources: sourceFingerprint(dirname(here)) }) + '\n');
}

/**
 * A hash of the generator's own code, so that a changed emitter invalidates earlier output even
 * at the same version. It is the same whether the command runs the sources (`.ts`, in a clone,
 * through tsx) or the compiled package (dist/, which carries the fingerprint of the sources it
 * was built from): the fingerprint of the sources, never of the files that happen to lie beside
 * them.
 */
export function generatorFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const here = dirname(fileURLToPath(import.meta.url));
  if (fileURLToPath(import.meta.url).endsWith('.ts')) return (fingerprint = sourceFingerprint(here));
  const built = JSON.parse(readFileSync(join(here, FINGERPRINT), 'utf8')) as { sources?: unknown };
  if (typeof built.sources !== 'string')
    throw new Error(`${join(here, FINGERPRINT)} holds no fingerprint: rebuild the package`);
  return (fingerprint = built.sources);
}

/**
 * The input hash of a build.
 *
 * @example
 * import { loadSchema } from './load.js';
 * import { buildModel } from './model.js';
 * inputHash(buildModel(await loadSchema('schema.ts'), '../schema.ts'), { title: 'Blog' }); // 'e3b0c442...'
 */
export function inputHash(model: ApiModel, options: OpenApiOptions, description?: ApiDescription): string {
  // The description holds what the model leaves out (visibility of endpoints, filters, sorts): schema.json's input.
  return sha256(JSON.stringify({ model, options, generator: generatorFingerprint(), description }));
}

/** The manifest of `files` built from `input`, as one more output file. */
export function manifestFile(input: string, files: readonly OutputFile[], schemaPath: string): OutputFile {
  const manifest: Manifest = {
    'x-generated': `Generated by jsonapi-gen from ${schemaPath}. Do not edit: it lets \`jsonapi-gen build\` skip a build whose input has not changed.`,
    input,
    files: Object.fromEntries(files.map((f) => [f.path, sha256(f.content)])),
  };
  return { path: MANIFEST, content: JSON.stringify(manifest, null, 2) + '\n' };
}

/**
 * The files of `outDir` when they are the output of `input`: its manifest records `input` and
 * every file it lists is on disk with the recorded content. Undefined when a build must run.
 */
export function upToDate(outDir: string, input: string): string[] | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(outDir, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
  if (manifest.input !== input || typeof manifest.files !== 'object' || manifest.files === null) return undefined;
  for (const [path, hash] of Object.entries(manifest.files)) {
    try {
      if (sha256(readFileSync(join(outDir, path))) !== hash) return undefined;
    } catch {
      return undefined;
    }
  }
  return [...Object.keys(manifest.files), MANIFEST].sort();
}
