/**
 * No import cycles, type imports included, in the runtime, the generator or the Kysely
 * integration: each file can be read knowing only what it imports. Checked with dpdm
 * (https://github.com/acrazing/dpdm) from every entry point.
 */
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRIES = ['runtime/index.ts', 'runtime/adapters/node.ts', 'integrations/kysely/index.ts', 'generator/cli.ts'];

describe('import graph', () => {
  it('has no cycles from any entry point (type imports count)', async () => {
    const tree = await parseDependencyTree(ENTRIES, {
      cwd: ROOT,
      context: ROOT,
      transform: false, // keep `import type` edges: a type cycle is a cycle for a reader
      include: /\.ts$/,
      exclude: /node_modules/,
    });
    const files = Object.keys(tree);
    expect(files.length).toBeGreaterThan(50);
    expect(parseCircular(tree).map((cycle) => cycle.join(' -> '))).toEqual([]);
  }, 60_000);
});
