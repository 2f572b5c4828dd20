/**
 * The runtime's folders are layers: no file imports (type imports included) a file of a higher
 * layer. The layers are read from the table under "## Layers" in ARCHITECTURE.md, so the page a
 * reader trusts and the rule CI checks are one list. Imports are found with dpdm, as for cycles.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Layer {
  readonly rank: number;
  readonly name: string;
  /** Folders (ending in `/`) and files, relative to the repository. */
  readonly paths: readonly string[];
}

/** The rows of the table under `## Layers`: `| rank | name | what it holds | where |`, bottom first. */
function layersOf(markdown: string): Layer[] {
  const section = markdown.split(/^## Layers$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => /^\|\s*\d+\s*\|/.test(line))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return {
        rank: Number(cells[0]),
        name: cells[1]!,
        paths: [...cells.at(-1)!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
      };
    });
}

/** The layer a file belongs to: the one naming it or a folder holding it. */
function layerOf(file: string, layers: readonly Layer[]): Layer | undefined {
  return layers.find((layer) =>
    layer.paths.some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path)),
  );
}

/** Source files (not tests) under `dir`, relative to `root`. */
function sources(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ['dist', 'node_modules'].includes(entry.name) ? [] : sources(root, path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every import of `dir`'s files that runs to a higher layer (or does not resolve), and every file in no layer. */
async function layerViolations(root: string, dir: string, layers: readonly Layer[]): Promise<string[]> {
  const files = sources(root, dir);
  const tree = await parseDependencyTree(files, {
    cwd: root,
    context: root,
    transform: false, // keep `import type` edges: a type from above is a dependency on above
    include: /\.ts$/,
    exclude: /node_modules/,
  });
  const found = files.filter((file) => !layerOf(file, layers)).map((file) => `${file} is in no layer`);
  for (const file of files) {
    const from = layerOf(file, layers);
    for (const dependency of tree[file] ?? []) {
      if (dependency.id === null && dependency.request.startsWith('.'))
        found.push(`${file} imports '${dependency.request}', which does not resolve`);
      const to = dependency.id === null ? undefined : layerOf(dependency.id, layers);
      if (from && to && to.rank > from.rank) {
        found.push(
          `${file} (layer ${from.rank}, ${from.name}) imports '${dependency.request}' = ${dependency.id} (layer ${to.rank}, ${to.name})`,
        );
      }
    }
  }
  return found;
}

const LAYERS = layersOf(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'));

describe('runtime layers', () => {
  it('are stated in ARCHITECTURE.md: a few, bottom first, each naming paths that exist', () => {
    expect(LAYERS.map((layer) => layer.rank)).toEqual(LAYERS.map((_, i) => i + 1));
    expect(LAYERS.length).toBeGreaterThanOrEqual(4);
    expect(LAYERS.length).toBeLessThanOrEqual(7);
    const paths = LAYERS.flatMap((layer) => layer.paths);
    expect(paths.filter((path) => !path.startsWith('runtime/'))).toEqual([]);
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('hold every runtime file, and no import runs from a lower layer to a higher one', async () => {
    expect(sources(ROOT, 'runtime').length).toBeGreaterThan(50);
    expect(await layerViolations(ROOT, 'runtime', LAYERS)).toEqual([]);
  }, 60_000);

  it('would fail on an upward import (type-only too), planted in a copy of the layout', async () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      const plant = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      const [bottom, next] = [LAYERS[0]!, LAYERS[1]!];
      const low = `${bottom.paths[0]}low.ts`;
      const high = `${next.paths[0]}high.ts`;
      plant(high, `export interface High { readonly name: string }\n`);
      plant(
        low,
        `import type { High } from '${relative(dirname(low), high).replace(/\.ts$/, '.js')}';\nexport type Low = High;\n`,
      );
      plant(
        `${next.paths[0]}down.ts`,
        `import type { Low } from '${relative(next.paths[0]!, low).replace(/\.ts$/, '.js')}';\nexport type Down = Low;\n`,
      );
      plant('runtime/stray.ts', `export const stray = 1;\n`);
      // Imports name `.js` files, resolved to `.ts` as the repository's own tsconfig.json resolves them.
      plant('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
      expect(await layerViolations(root, 'runtime', LAYERS)).toEqual([
        'runtime/stray.ts is in no layer',
        `${low} (layer 1, ${bottom.name}) imports '${relative(dirname(low), high).replace(/\.ts$/, '.js')}' = ${high} (layer 2, ${next.name})`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
