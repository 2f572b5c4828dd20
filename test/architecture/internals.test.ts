/**
 * No platform or library internals outside tests: nothing impersonates the platform's Request
 * or Response (symbol slots, prototype swaps), nothing wraps Kysely's builders in a Proxy or
 * reads its operation nodes, executor or connections (`getExecutor` is marked internal in
 * Kysely's own declarations). A match here is a dependency an upgrade may break silently.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FORBIDDEN =
  /getOwnPropertySymbols|setPrototypeOf|new Proxy\b|toOperationNode|getExecutor|provideConnection|Object\.hasOwn\(connection/;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', 'generated'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) yield path;
  }
}

describe('internals', () => {
  it('runtime, integrations, generator, examples and bench use only public APIs of the platform and Kysely', () => {
    const found: string[] = [];
    let files = 0;
    for (const top of ['runtime', 'integrations', 'generator', 'examples', 'bench']) {
      for (const file of sources(join(ROOT, top))) {
        files++;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => FORBIDDEN.test(line) && found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`));
      }
    }
    expect(files).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });
});
