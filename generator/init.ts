/**
 * `jsonapi-gen init [dir]`: a new host that runs with `npm install && npm start`. The text of
 * the files is in the package's `templates/init/` (`*.tpl`, `{{name}}` replaced); package.json
 * is written here, its versions taken from this package's own manifest. Existing files are
 * never overwritten: when one is in the way, nothing is written.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** This package's root directory (where its package.json names it jsonapi-gen), and its manifest. */
export function packageRoot(): { dir: string; manifest: Manifest } {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      if (manifest.name === 'jsonapi-gen') return { dir, manifest };
    } catch {
      // keep looking upwards
    }
    if (dirname(dir) === dir) throw new Error('cannot find the jsonapi-gen package root');
  }
}

export interface InitResult {
  /** The target directory, absolute. */
  readonly dir: string;
  /** Paths relative to `dir`, in writing order. */
  readonly written: string[];
}

export class InitConflict extends Error {
  constructor(readonly existing: readonly string[]) {
    super(`refusing to overwrite ${existing.join(', ')}`);
    this.name = 'InitConflict';
  }
}

/** A package name from a directory name: lower case, npm-safe. */
export function packageName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name || 'jsonapi-server';
}

/** Every file of a new host, by path relative to it. */
export function scaffold(name: string): Map<string, string> {
  const { dir: root, manifest } = packageRoot();
  const templates = join(root, 'templates', 'init');
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.tpl')) {
        // npm never packs a file named .gitignore, hence gitignore.tpl.
        const target = relative(templates, path).slice(0, -'.tpl'.length).replace(/^gitignore$/, '.gitignore');
        files.set(target.split('\\').join('/'), readFileSync(path, 'utf8').replaceAll('{{name}}', name));
      }
    }
  };
  walk(templates);

  const range = (deps: Record<string, string> | undefined, name: string, fallback: string) => deps?.[name] ?? fallback;
  const build = 'jsonapi-gen build src/schema.ts --out src/generated';
  const pkg = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      start: `${build} --quiet && tsx src/server.ts`,
      build,
      watch: `${build} --watch`,
      check: `${build} --check`,
      typecheck: 'tsc',
    },
    dependencies: {
      'better-sqlite3': range(manifest.peerDependencies, 'better-sqlite3', '^12.0.0'),
      'jsonapi-gen': `^${manifest.version ?? '0.1.0'}`,
      kysely: range(manifest.peerDependencies, 'kysely', '~0.28.0'),
    },
    devDependencies: {
      '@types/better-sqlite3': range(manifest.devDependencies, '@types/better-sqlite3', '^7.6.0'),
      '@types/node': range(manifest.devDependencies, '@types/node', '^20.0.0'),
      tsx: range(manifest.dependencies, 'tsx', '^4.0.0'),
      typescript: range(manifest.devDependencies, 'typescript', '^5.0.0'),
    },
  };
  files.set('package.json', JSON.stringify(pkg, null, 2) + '\n');
  return files;
}

/** Writes a new host into `dir` (created when missing); throws `InitConflict` when a file exists. */
export function init(dir: string): InitResult {
  const target = resolve(dir);
  const files = scaffold(packageName(target));
  const existing = [...files.keys()].filter((path) => existsSync(join(target, path)));
  if (existing.length > 0) throw new InitConflict(existing);
  const written: string[] = [];
  for (const [path, content] of files) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), content);
    written.push(path);
  }
  return { dir: target, written };
}
