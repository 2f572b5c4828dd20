/**
 * Compiles what the benchmark runs (runtime/, integrations/, examples/blog/, bench/) to plain
 * JavaScript in `outDir`, file by file with TypeScript's own transpiler, as `npm run build`
 * ships the package. Servers then run on plain `node`: no loader hooks, and none of the
 * per-closure `__name` calls tsx's esbuild transform adds, which would tax both servers
 * (and the library more than hand-written code). `jsonapi-gen` resolves to the compiled
 * runtime through the package's self-reference (`outDir/package.json` exports); other packages
 * through a `node_modules` link to the project's.
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
    } else if (!entry.name.startsWith('.') && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
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
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string };
  writeFileSync(
    join(outDir, 'package.json'),
    JSON.stringify({
      name: pkg.name,
      type: 'module',
      exports: { '.': './runtime/index.js', './node': './runtime/adapters/node.js', './kysely': './integrations/kysely/index.js' },
    }),
  );
  symlinkSync(join(root, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  return count;
}
