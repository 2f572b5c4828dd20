/**
 * ARCHITECTURE.md stays true: every path it names exists, and every source file of the
 * runtime's pipeline folders (and every runtime folder) is named in it, so a file added or
 * moved without updating the walk-through fails here.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
/** Every `code span` that looks like a repository path. */
const named = [...doc.matchAll(/`([a-z-]+\/[\w./-]*)`/g)].map((m) => m[1]!);

/** Source files (no tests) directly in `dir`. */
const sources = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => `${dir}/${entry.name}`);

describe('ARCHITECTURE.md', () => {
  it('names only paths that exist', () => {
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('names every runtime folder, and every file of the pipeline folders', () => {
    const folders = readdirSync(join(ROOT, 'runtime'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !['dist', 'node_modules'].includes(entry.name))
      .map((entry) => `runtime/${entry.name}/`);
    const mentioned = (path: string) => named.some((n) => n === path || n.startsWith(path));
    expect(folders.filter((folder) => !mentioned(folder))).toEqual([]);
    const pipeline = [
      'runtime',
      'runtime/http',
      'runtime/registry',
      'runtime/query',
      'runtime/pipeline',
      'runtime/read',
      'runtime/write',
      'runtime/document',
      'runtime/atomic',
      'runtime/adapters',
    ];
    expect(pipeline.flatMap(sources).filter((file) => !named.includes(file))).toEqual([]);
  });
});
