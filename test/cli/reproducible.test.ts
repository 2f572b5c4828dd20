/**
 * The committed output of the demo is what a fresh clone builds, byte for byte: `npm run
 * generate:blog` in a clone of this repository's committed HEAD writes nothing and leaves
 * `git status` clean, and so it stays after the packages are built (`npm run build
 * --workspaces`, which `init` and `npm pack` run and which writes generator/dist/), whether the
 * command runs from the sources (the clone's `bin/`) or from the compiled dist/.
 *
 * It tests what is committed: a change not yet committed is not in the clone.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support.js';

/** The workspace packages: linked to the clone's own folders, as `npm ci` in it would. */
const WORKSPACES: Record<string, string> = {
  'jsonapi-gen': 'runtime',
  '@jsonapi-gen/kysely': 'integrations/kysely',
  '@jsonapi-gen/prisma': 'integrations/prisma',
  '@jsonapi-gen/drizzle': 'integrations/drizzle',
  '@jsonapi-gen/opentelemetry': 'integrations/opentelemetry',
  '@jsonapi-gen/cli': 'generator',
};

/** The clone's node_modules: every installed package of this checkout, by link, and its own workspaces. */
function linkModules(clone: string): void {
  const modules = join(clone, 'node_modules');
  mkdirSync(join(modules, '@jsonapi-gen'), { recursive: true });
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry.startsWith('@')) {
      for (const scoped of readdirSync(join(ROOT, 'node_modules', entry))) {
        const name = `${entry}/${scoped}`;
        if (WORKSPACES[name] === undefined) {
          mkdirSync(join(modules, entry), { recursive: true });
          symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
        }
      }
    } else if (WORKSPACES[entry] === undefined && entry !== '.package-lock.json') {
      symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry), 'dir');
    }
  }
  for (const [name, folder] of Object.entries(WORKSPACES)) symlinkSync(join(clone, folder), join(modules, name), 'dir');
}

describe('the committed generated output of the demo', () => {
  let clone: string;
  const run = (command: string, args: readonly string[]) =>
    execFileSync(command, args, {
      cwd: clone,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
  const status = () => run('git', ['status', '--porcelain', '--untracked-files=all']);
  const generate = (...flags: string[]) =>
    run('node', [
      'bin/jsonapi-gen.js',
      'build',
      'examples/blog/schema.ts',
      '--out',
      'examples/blog/generated',
      ...flags,
    ]);
  /** The same build by the compiled package, as its published `bin` runs it. */
  const generateFromDist = (...flags: string[]) =>
    run('node', [
      '--input-type=module',
      '-e',
      `const { main } = await import('./generator/dist/cli.js'); await main(['node', 'jsonapi-gen', ...process.argv.slice(1)]);`,
      'build',
      'examples/blog/schema.ts',
      '--out',
      'examples/blog/generated',
      ...flags,
    ]);

  beforeAll(() => {
    clone = mkdtempSync(join(tmpdir(), 'jsonapi-gen-clone-'));
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, clone]);
    execFileSync('git', ['checkout', '--quiet', head], { cwd: clone });
    linkModules(clone);
  });
  afterAll(() => {
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  it('a fresh clone builds it unchanged, before and after `npm run build` of the packages, from the sources and from dist/', () => {
    expect(status()).toBe('');
    expect(generate()).toMatch(/examples\/blog\/generated: 0 written, 12 unchanged/);
    expect(status()).toBe('');

    run('npm', ['run', 'build', '--workspaces', '--silent']);
    expect(readdirSync(join(clone, 'generator', 'dist'))).toContain('cli.js');
    expect(status()).toBe('');
    expect(generate()).toMatch(/0 written, 12 unchanged/);
    expect(generate('--check')).toMatch(/is up to date/);
    expect(generateFromDist()).toMatch(/0 written, 12 unchanged/);
    expect(generateFromDist('--check')).toMatch(/is up to date/);
    expect(status()).toBe('');
  }, 300_000);
});
