/** Packing the repository's packages and installing them, as the package and init tests do. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The published packages, by workspace folder (the order they build in: the runtime first). */
export const WORKSPACES = [
  { name: 'jsonapi-gen', folder: 'runtime' },
  { name: '@jsonapi-gen/kysely', folder: 'integrations/kysely' },
  { name: '@jsonapi-gen/prisma', folder: 'integrations/prisma' },
  { name: '@jsonapi-gen/drizzle', folder: 'integrations/drizzle' },
  { name: '@jsonapi-gen/opentelemetry', folder: 'integrations/opentelemetry' },
  { name: '@jsonapi-gen/cli', folder: 'generator' },
] as const;

/**
 * npm, quietly, from the machine's npm cache first: installs fetch only what the cache lacks
 * (third-party dependencies of the packages come from the registry).
 */
export function npm(args: readonly string[], cwd: string, timeout = 600_000): string {
  return execFileSync('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout,
  });
}

export interface Packed {
  /** Absolute path of the tarball. */
  readonly file: string;
  readonly version: string;
  /** Bytes of the tarball. */
  readonly size: number;
  /** Paths inside the package. */
  readonly files: readonly string[];
}

/** `npm pack` of every workspace into `destination` (each prepack builds its dist/), by package name. */
export function packWorkspaces(destination: string): Record<string, Packed> {
  const out = npm(
    ['pack', '--json', '--pack-destination', destination, ...WORKSPACES.flatMap((w) => ['--workspace', w.folder])],
    ROOT,
  );
  // Each prepack's banner comes before the JSON on stdout.
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as Array<{
    name: string;
    version: string;
    filename: string;
    size: number;
    files: Array<{ path: string }>;
  }>;
  return Object.fromEntries(
    packed.map((p) => [
      p.name,
      { file: join(destination, p.filename), version: p.version, size: p.size, files: p.files.map((f) => f.path) },
    ]),
  );
}
