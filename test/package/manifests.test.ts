/**
 * The packages' manifests: one version for all (and the peer ranges between them pinned to it),
 * what a registry user expects of each, and the ranges `init` writes into a new host in step
 * with the packages'.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOST_DEPENDENCIES, PRISMA_HOST_DEPENDENCIES } from '../../generator/init.js';
import { ROOT, WORKSPACES } from './support.js';

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  exports?: Record<string, unknown>;
  [key: string]: unknown;
}

const read = (folder: string) => JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as Manifest;
const root = read('.');
const manifests = Object.fromEntries(WORKSPACES.map((w) => [w.name, read(w.folder)]));
const runtime = manifests['jsonapi-gen']!;
const kysely = manifests['@jsonapi-gen/kysely']!;
const prisma = manifests['@jsonapi-gen/prisma']!;
const drizzle = manifests['@jsonapi-gen/drizzle']!;
const openTelemetry = manifests['@jsonapi-gen/opentelemetry']!;
const cli = manifests['@jsonapi-gen/cli']!;

describe('package manifests', () => {
  it('the root is the private development workspace of the three packages', () => {
    expect(root.private).toBe(true);
    expect(root.workspaces).toEqual(WORKSPACES.map((w) => w.folder));
    for (const w of WORKSPACES) expect(read(w.folder).name).toBe(w.name);
  });

  it('versions move together', () => {
    for (const manifest of Object.values(manifests))
      expect(`${manifest.name}@${manifest.version}`).toBe(`${manifest.name}@${root.version}`);
    expect(kysely.peerDependencies?.['jsonapi-gen']).toBe(root.version);
    expect(prisma.peerDependencies?.['jsonapi-gen']).toBe(root.version);
    expect(drizzle.peerDependencies?.['jsonapi-gen']).toBe(root.version);
    expect(openTelemetry.peerDependencies?.['jsonapi-gen']).toBe(root.version);
    expect(cli.peerDependencies?.['jsonapi-gen']).toBe(root.version);
  });

  it('the runtime has no dependencies, no side effects, and types first in every export', () => {
    expect(runtime.dependencies ?? {}).toEqual({});
    expect(runtime.peerDependencies ?? {}).toEqual({});
    expect(runtime.sideEffects).toBe(false);
    expect(Object.keys(runtime.exports ?? {})).toEqual(['.', './node', './internal', './package.json']);
    for (const manifest of [runtime, kysely, prisma, drizzle, openTelemetry]) {
      for (const [path, target] of Object.entries(manifest.exports ?? {})) {
        if (path === './package.json') continue;
        expect(Object.keys(target as object), `${manifest.name} ${path}`).toEqual(['types', 'default']);
      }
    }
  });

  it('the Drizzle integration takes drizzle-orm and the runtime as its only peers, and has no dependencies', () => {
    expect(drizzle.dependencies ?? {}).toEqual({});
    expect(Object.keys(drizzle.peerDependencies ?? {}).sort()).toEqual(['drizzle-orm', 'jsonapi-gen']);
    expect(drizzle.sideEffects).toBe(false);
  });

  it('the Kysely integration takes kysely and its drivers as peers, the drivers optional', () => {
    expect(kysely.dependencies ?? {}).toEqual({});
    expect(Object.keys(kysely.peerDependencies ?? {}).sort()).toEqual([
      'better-sqlite3',
      'jsonapi-gen',
      'kysely',
      'mysql2',
      'pg',
    ]);
    expect(kysely.peerDependenciesMeta).toEqual({
      'better-sqlite3': { optional: true },
      mysql2: { optional: true },
      pg: { optional: true },
    });
  });

  it('the Prisma integration takes Prisma Client and its adapters as peers, the adapters optional, in the versions developed with', () => {
    expect(prisma.dependencies ?? {}).toEqual({});
    expect(Object.keys(prisma.peerDependencies ?? {}).sort()).toEqual([
      '@prisma/adapter-better-sqlite3',
      '@prisma/adapter-mariadb',
      '@prisma/adapter-pg',
      '@prisma/client',
      'jsonapi-gen',
    ]);
    expect(prisma.peerDependenciesMeta).toEqual({
      '@prisma/adapter-better-sqlite3': { optional: true },
      '@prisma/adapter-mariadb': { optional: true },
      '@prisma/adapter-pg': { optional: true },
    });
    // The repository develops and tests with one Prisma version (CLI, client and adapters alike),
    // the lowest the peer ranges allow.
    for (const name of [
      'prisma',
      '@prisma/client',
      '@prisma/adapter-better-sqlite3',
      '@prisma/adapter-mariadb',
      '@prisma/adapter-pg',
    ])
      expect(`^${root.devDependencies?.[name]}`, name).toBe(prisma.peerDependencies?.['@prisma/client']);
  });

  it('the OpenTelemetry integration takes @opentelemetry/api as its only peer besides the runtime, in the range developed with', () => {
    expect(openTelemetry.dependencies ?? {}).toEqual({});
    expect(Object.keys(openTelemetry.peerDependencies ?? {}).sort()).toEqual(['@opentelemetry/api', 'jsonapi-gen']);
    expect(openTelemetry.peerDependencies?.['@opentelemetry/api']).toBe('^1.9.0');
    // The repository develops and tests with the lowest minor version the peer range allows.
    expect(root.devDependencies?.['@opentelemetry/api']).toBe('~1.9.0');
  });

  it('the CLI carries the generator and the schema loader, and the jsonapi-gen bin', () => {
    expect(Object.keys(cli.dependencies ?? {}).sort()).toEqual([
      'commander',
      'openapi3-ts',
      'prettier',
      'ts-morph',
      'tsx',
      'typescript',
    ]);
    expect(cli.bin).toEqual({ 'jsonapi-gen': 'bin/jsonapi-gen.js' });
  });

  it('each package has what a registry user expects', () => {
    for (const [i, manifest] of Object.values(manifests).entries()) {
      expect(manifest, manifest.name).toMatchObject({
        type: 'module',
        license: 'MIT',
        engines: { node: '>=20' },
        repository: { type: 'git', directory: WORKSPACES[i]!.folder },
        files: expect.arrayContaining(['dist', 'README.md']),
        scripts: { prepack: 'npm run build' },
      });
      expect((manifest.keywords as string[]).length).toBeGreaterThan(3);
    }
  });

  it('each package ships what its manifest points at: main, types, bin and every export are under `files`', () => {
    const targets = (value: unknown): string[] =>
      typeof value === 'string'
        ? [value]
        : value && typeof value === 'object'
          ? Object.values(value).flatMap(targets)
          : [];
    for (const manifest of Object.values(manifests)) {
      const files = manifest.files as string[];
      const shipped = (path: string) =>
        files.some((entry) => path.replace(/^\.\//, '') === entry || path.replace(/^\.\//, '').startsWith(`${entry}/`));
      // package.json is always in a tarball; everything else only when `files` says so.
      const pointed = [manifest.main, manifest.types, manifest.bin, manifest.exports]
        .flatMap(targets)
        .filter((path) => path !== './package.json');
      expect(pointed.length, manifest.name).toBeGreaterThan(0);
      expect(
        pointed.filter((path) => !shipped(path)),
        manifest.name,
      ).toEqual([]);
    }
    // The command reads its templates at run time (init, --stubs): the build copies them in.
    expect(cli.files).toContain('templates');
    expect(cli.scripts).toMatchObject({ build: expect.stringContaining('cp -R ../templates templates') });
  });

  it('the CHANGELOG has the version the packages carry, and what each of them contains', () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const start = changelog.indexOf(`\n## [${root.version}]`);
    expect(start, `CHANGELOG.md: no "## [${root.version}]" section`).toBeGreaterThan(0);
    const entry = changelog.slice(start + 1).split(/\n## \[/)[0]!;
    for (const w of WORKSPACES) expect(entry, w.name).toContain(`\`${w.name}\` (${w.folder}/)`);
    // The packages' READMEs send their readers there.
    for (const w of WORKSPACES)
      expect(readFileSync(join(ROOT, w.folder, 'README.md'), 'utf8'), w.name).toContain('CHANGELOG.md');
  });

  it('init writes the ranges of the packages it scaffolds for', () => {
    expect(HOST_DEPENDENCIES.dependencies.kysely).toBe(kysely.peerDependencies?.kysely);
    expect(HOST_DEPENDENCIES.dependencies['better-sqlite3']).toBe(kysely.peerDependencies?.['better-sqlite3']);
    // The host's tools are the ranges this repository develops and tests with.
    for (const [name, range] of Object.entries(HOST_DEPENDENCIES.devDependencies))
      expect(range, name).toBe(root.devDependencies?.[name]);
    // A Prisma host's Prisma packages: the versions this repository pins, within the Prisma integration's peer ranges.
    const prismaPeers = read('integrations/prisma').peerDependencies ?? {};
    for (const [name, version] of Object.entries({
      ...PRISMA_HOST_DEPENDENCIES.dependencies,
      ...PRISMA_HOST_DEPENDENCIES.devDependencies,
    })) {
      expect(version, name).toBe(root.devDependencies?.[name]);
      if (name in prismaPeers) expect(`^${version}`, name).toBe(prismaPeers[name]);
    }
  });
});
