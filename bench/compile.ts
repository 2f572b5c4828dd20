/**
 * Compiles what the benchmark runs (runtime/, integrations/, examples/blog/, bench/) to plain
 * JavaScript in `outDir`, file by file with TypeScript's own transpiler, as `npm run build`
 * ships the package. Servers then run on plain `node`: no loader hooks, and none of the
 * per-closure `__name` calls tsx's esbuild transform adds, which would tax both servers
 * (and the library more than hand-written code). `jsonapi-gen` and the `@jsonapi-gen/*` stores and
 * integrations resolve to the compiled workspaces through `outDir/node_modules` links (each given a
 * package.json naming its entry points); every other package to the project's own. The demo's
 * generated Prisma clients (examples/blog/prisma/generated, TypeScript) are compiled with it.
 */
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const SOURCES = ['runtime', 'integrations', 'examples/blog', 'bench'];

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) yield* files(path);
    } else if (
      !entry.name.startsWith('.') &&
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.endsWith('.d.ts')
    ) {
      yield path;
    }
  }
}

/** Transpiles the sources under `root` into `outDir`; returns the number of files. */
export function compile(root: string, outDir: string): number {
  let count = 0;
  for (const source of SOURCES) {
    for (const file of files(join(root, source))) {
      const output = ts.transpileModule(readFileSync(file, 'utf8'), {
        fileName: file,
        compilerOptions: {
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
          verbatimModuleSyntax: true,
          sourceMap: false,
        },
      });
      const target = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, output.outputText);
      count++;
    }
  }
  // Everything compiled is ESM.
  writeFileSync(join(outDir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  linkPackages(root, outDir);
  return count;
}

/** The compiled workspaces, by package name: where they are and the entry points they export. */
const WORKSPACES: Record<string, { dir: string; exports: Record<string, string> }> = {
  'jsonapi-gen': {
    dir: 'runtime',
    exports: { '.': './index.js', './node': './adapters/node.js', './internal': './internal.js' },
  },
  '@jsonapi-gen/kysely': { dir: 'integrations/kysely', exports: { '.': './index.js' } },
  '@jsonapi-gen/prisma': { dir: 'integrations/prisma', exports: { '.': './index.js' } },
  '@jsonapi-gen/drizzle': { dir: 'integrations/drizzle', exports: { '.': './index.js' } },
  '@jsonapi-gen/opentelemetry': { dir: 'integrations/opentelemetry', exports: { '.': './index.js' } },
};

/** `outDir/node_modules`: the compiled workspaces, and a link to every other package of the project. */
function linkPackages(root: string, outDir: string): void {
  const modules = join(outDir, 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      mkdirSync(join(modules, entry), { recursive: true });
      for (const scoped of readdirSync(join(root, 'node_modules', entry))) {
        if (!WORKSPACES[`${entry}/${scoped}`])
          symlinkSync(join(root, 'node_modules', entry, scoped), join(modules, entry, scoped), 'dir');
      }
    } else if (!WORKSPACES[entry]) {
      symlinkSync(join(root, 'node_modules', entry), join(modules, entry), 'dir');
    }
  }
  for (const [name, { dir, exports }] of Object.entries(WORKSPACES)) {
    writeFileSync(join(outDir, dir, 'package.json'), JSON.stringify({ name, type: 'module', exports }));
    symlinkSync(join(outDir, dir), join(modules, name), 'dir');
  }
}
