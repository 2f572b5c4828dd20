/** Running the jsonapi-gen command as users do: `node bin/jsonapi-gen.js`, spawned. */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'jsonapi-gen.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (colour decided by `env`; NO_COLOR and FORCE_COLOR are removed unless given). */
export function cli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd ?? ROOT, env: { ...env, ...options.env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** A fresh directory under the repository's .tmp/ (so schemas there resolve `jsonapi-gen` by the root tsconfig). */
export function workDir(name: string): string {
  const dir = join(ROOT, '.tmp', 'cli', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `fixtures/minimal/schema.ts` (one resource, `tags`, two endpoints) copied into `dir`. */
export function minimalSchema(dir: string): string {
  const schema = join(dir, 'schema.ts');
  copyFileSync(join(ROOT, 'fixtures', 'minimal', 'schema.ts'), schema);
  return schema;
}

// eslint-disable-next-line no-control-regex -- ESC is what starts an ANSI colour code
export const ANSI = /\u001b\[\d+m/;
