/**
 * `jsonapi-gen init [dir] [--store kysely|prisma|drizzle]`: a new host that runs with `npm install &&
 * npm start`. The text of the files is in the package's `templates/init/` (`*.tpl`, `{{name}}`
 * replaced); with `--store prisma` or `--store drizzle`, the files of `templates/init-prisma/` or
 * `templates/init-drizzle/` are laid over them (replacing those of the same path; a Drizzle host
 * leaves out the Kysely migrations). package.json is written here. Existing files are never
 * overwritten: when one is in the way, nothing is written.
 *
 * Where the host gets the jsonapi-gen packages: run from a clone of the repository, `init`
 * packs the clone's packages the host uses into the host's `vendor/` and depends on those tarballs
 * (`file:vendor/...`), so the host installs whether or not they are published; `--registry`
 * (the default outside a clone) depends on `^version` from the registry instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { templatesDir } from './stubs.js';

interface Manifest {
  name?: string;
  version?: string;
}

/** The CLI package's name: its package.json marks the package root. */
const CLI = '@jsonapi-gen/cli';

/** The data layers a new host is scaffolded with: the Kysely, Prisma or Drizzle store. */
export type InitStore = 'kysely' | 'prisma' | 'drizzle';

/** The packages a host may depend on, by the folder of the repository that holds each; `store`: only a host of that store. */
const PACKAGES: ReadonlyArray<{ name: string; folder: string; dev: boolean; store?: InitStore }> = [
  { name: 'jsonapi-gen', folder: 'runtime', dev: false },
  { name: '@jsonapi-gen/kysely', folder: 'integrations/kysely', dev: false, store: 'kysely' },
  { name: '@jsonapi-gen/prisma', folder: 'integrations/prisma', dev: false, store: 'prisma' },
  { name: '@jsonapi-gen/drizzle', folder: 'integrations/drizzle', dev: false, store: 'drizzle' },
  { name: CLI, folder: 'generator', dev: true },
];

/** The jsonapi-gen packages a host of `store` depends on. */
const packagesFor = (store: InitStore) => PACKAGES.filter((p) => p.store === undefined || p.store === store);

/**
 * Third-party ranges of a new host. The published CLI cannot read the other packages'
 * manifests, so they are kept here; test/package/manifests.test.ts checks them against the
 * Kysely package's peer dependencies and the repository's own versions.
 */
export const HOST_DEPENDENCIES = {
  dependencies: { 'better-sqlite3': '^12.0.0', kysely: '~0.28.0' },
  devDependencies: {
    '@types/better-sqlite3': '^9.6.0',
    '@types/node': '^20.19.0',
    tsx: '^4.23.15',
    typescript: '~5.9.3',
    vitest: '^3.2.4',
  },
} as const;

/**
 * What a Prisma host adds to `HOST_DEPENDENCIES`: Prisma's client, CLI and SQLite adapter at
 * the version this repository is tested with (test/package/manifests.test.ts checks them). Its
 * tables still come from the Kysely migrations, hence `kysely` and `better-sqlite3` stay.
 */
export const PRISMA_HOST_DEPENDENCIES = {
  dependencies: { '@prisma/adapter-better-sqlite3': '7.10.0', '@prisma/client': '7.10.0' },
  devDependencies: { prisma: '7.10.0' },
} as const;

/**
 * What a Drizzle host has in place of Kysely: drizzle-orm, in the range of the Drizzle
 * integration's peer dependency (test/cli/init-drizzle.test.ts checks it). Its tables come from
 * SQL migrations that drizzle-orm's own migrator runs, so it needs no Kysely.
 */
export const DRIZZLE_HOST_DEPENDENCIES = {
  dependencies: { 'drizzle-orm': '^0.45.2' },
} as const;

/** The third-party dependencies of a host of `store`. */
function hostDependencies(store: InitStore): {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
} {
  switch (store) {
    case 'kysely':
      return HOST_DEPENDENCIES;
    case 'prisma':
      return {
        dependencies: { ...HOST_DEPENDENCIES.dependencies, ...PRISMA_HOST_DEPENDENCIES.dependencies },
        devDependencies: { ...HOST_DEPENDENCIES.devDependencies, ...PRISMA_HOST_DEPENDENCIES.devDependencies },
      };
    case 'drizzle':
      return {
        dependencies: {
          'better-sqlite3': HOST_DEPENDENCIES.dependencies['better-sqlite3'],
          ...DRIZZLE_HOST_DEPENDENCIES.dependencies,
        },
        devDependencies: HOST_DEPENDENCIES.devDependencies,
      };
  }
}

/** The template folder a store's host lays over `templates/init/`, and the paths of it that host leaves out. */
const OVERLAYS: Readonly<Record<InitStore, { folder: string; omit: readonly string[] } | undefined>> = {
  kysely: undefined,
  prisma: { folder: 'init-prisma', omit: [] },
  // Its tables come from drizzle/*.sql, not from Kysely migrations.
  drizzle: { folder: 'init-drizzle', omit: ['src/migrations/'] },
};

/** This package's root directory (where its package.json names it @jsonapi-gen/cli), and its manifest. */
export function packageRoot(): { dir: string; manifest: Manifest } {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      if (manifest.name === CLI) return { dir, manifest };
    } catch {
      // keep looking upwards
    }
    if (dirname(dir) === dir) throw new Error(`cannot find the ${CLI} package root`);
  }
}

/** The root of the repository clone this command runs from, or undefined when it runs from an installed package. */
export function checkoutRoot(): string | undefined {
  const { dir } = packageRoot();
  const root = dirname(dir);
  const isClone =
    existsSync(join(dir, 'cli.ts')) && PACKAGES.every((p) => existsSync(join(root, p.folder, 'package.json')));
  return isClone ? root : undefined;
}

export interface InitOptions {
  /**
   * `checkout`: pack this clone's packages into `<dir>/vendor/` and depend on the tarballs;
   * `registry`: depend on `^version` from the npm registry. Default: `checkout` when run from
   * a clone, else `registry`.
   */
  readonly from?: 'checkout' | 'registry';
  /**
   * The host's data layers: `kysely` (the default), `prisma` (`@jsonapi-gen/prisma` on a
   * Prisma client generated from `prisma/schema.prisma`; the tables still come from the
   * Kysely migrations, as `prisma migrate` needs a schema engine) or `drizzle`
   * (`@jsonapi-gen/drizzle` on the Drizzle tables of `src/tables.ts`, made by the SQL
   * migrations of `drizzle/` that drizzle-orm's migrator runs).
   */
  readonly store?: InitStore;
}

export interface InitResult {
  /** The target directory, absolute. */
  readonly dir: string;
  /** Paths relative to `dir`, in writing order (tarballs in `vendor/` included). */
  readonly written: string[];
  /** Where the jsonapi-gen packages come from. */
  readonly from: 'checkout' | 'registry';
  /** The host's data layers. */
  readonly store: InitStore;
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

/** The file name `npm pack` gives a package's tarball (`@scope/name` → `scope-name-1.0.0.tgz`). */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * Every file of a new host, by path relative to it. `packages` maps each jsonapi-gen package
 * to the version specifier the host depends on.
 */
export function scaffold(
  name: string,
  packages: Readonly<Record<string, string>>,
  store: InitStore = 'kysely',
): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (templates: string, dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(templates, path);
      else if (entry.name.endsWith('.tpl')) {
        // npm never packs a file named .gitignore, hence gitignore.tpl; github/ is .github/
        // (the host's CI workflow), kept out of sight of this repository's own CI.
        const target = relative(templates, path)
          .slice(0, -'.tpl'.length)
          .split('\\')
          .join('/')
          .replace(/^gitignore$/, '.gitignore')
          .replace(/^github\//, '.github/');
        files.set(target, readFileSync(path, 'utf8').replaceAll('{{name}}', name));
      }
    }
  };
  const base = join(templatesDir(), 'init');
  walk(base, base);
  const overlay = OVERLAYS[store];
  if (overlay !== undefined) {
    for (const path of [...files.keys()])
      if (overlay.omit.some((prefix) => path.startsWith(prefix))) files.delete(path);
    const folder = join(templatesDir(), overlay.folder);
    walk(folder, folder);
  }

  const ours = (dev: boolean) =>
    Object.fromEntries(
      packagesFor(store)
        .filter((p) => p.dev === dev)
        .map((p) => [p.name, packages[p.name] ?? '*']),
    );
  const prisma = store === 'prisma';
  const sorted = (deps: Record<string, string>) =>
    Object.fromEntries(Object.entries(deps).sort(([a], [b]) => (a < b ? -1 : 1)));
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
      test: `${build} --quiet && tsc && vitest run`,
      typecheck: 'tsc',
      // Offline (no schema engine download); with internet, `npx prisma generate` does the same.
      ...(prisma && { 'prisma:generate': 'node scripts/prisma-generate.mjs' }),
    },
    dependencies: sorted({ ...ours(false), ...hostDependencies(store).dependencies }),
    devDependencies: sorted({ ...ours(true), ...hostDependencies(store).devDependencies }),
  };
  files.set('package.json', JSON.stringify(pkg, null, 2) + '\n');
  return files;
}

/** `npm pack` of the clone's packages into `destination` (each builds its dist/ first); the tarballs' file names by package. */
function packCheckout(
  root: string,
  destination: string,
  packages: ReadonlyArray<{ folder: string }>,
): Record<string, string> {
  mkdirSync(destination, { recursive: true });
  const args = [
    'pack',
    '--json',
    '--pack-destination',
    destination,
    ...packages.flatMap((p) => ['--workspace', p.folder]),
  ];
  // The packages' prepack (tsc) prints its banner on stdout before the JSON: read from the first `[`.
  const out = execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as Array<{ name: string; filename: string }>;
  return Object.fromEntries(packed.map((p) => [p.name, p.filename]));
}

/** Writes a new host into `dir` (created when missing); throws `InitConflict` when a file exists. */
export function init(dir: string, options: InitOptions = {}): InitResult {
  const target = resolve(dir);
  const root = checkoutRoot();
  const from = options.from ?? (root === undefined ? 'registry' : 'checkout');
  if (from === 'checkout' && root === undefined)
    throw new Error('init --from-checkout runs only from a clone of the jsonapi-gen repository');
  const store = options.store ?? 'kysely';
  const packages = packagesFor(store);
  const version = packageRoot().manifest.version ?? '0.0.0';
  const vendor = (p: (typeof PACKAGES)[number]) => `vendor/${tarballName(p.name, version)}`;
  const specifiers = Object.fromEntries(
    packages.map((p) => [p.name, from === 'checkout' ? `file:${vendor(p)}` : `^${version}`]),
  );
  const files = scaffold(packageName(target), specifiers, store);
  const tarballs = from === 'checkout' ? packages.map(vendor) : [];
  const existing = [...files.keys(), ...tarballs].filter((path) => existsSync(join(target, path)));
  if (existing.length > 0) throw new InitConflict(existing);
  const written: string[] = [];
  for (const [path, content] of files) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), content);
    written.push(path);
  }
  if (root !== undefined && from === 'checkout') {
    const packed = packCheckout(root, join(target, 'vendor'), packages);
    for (const p of packages) {
      if (`vendor/${packed[p.name]}` !== vendor(p))
        throw new Error(`npm pack wrote ${packed[p.name]} for ${p.name}, not ${vendor(p)}`);
    }
    written.push(...tarballs);
  }
  return { dir: target, written, from, store };
}
