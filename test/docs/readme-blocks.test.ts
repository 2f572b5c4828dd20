/**
 * Every ```ts block of the READMEs compiles as printed. Each block becomes a file of a small
 * host inside the repository (.tmp/readme-blocks/), so the tsconfig's `paths` serve
 * `jsonapi-gen`, `jsonapi-gen/node` and `@jsonapi-gen/kysely` from their sources and
 * node_modules serves the rest; all blocks are type-checked in one program with the
 * repository's compiler options. The host's own modules are the blog demo's, laid out as the
 * README's host is: `./schema.js`, `./generated/index.js`, `./db.js` (the Kysely `db` and its
 * `Database`), `./data/articles.js` (a data layer of articles), `./client/api.js` (what
 * openapi-typescript makes of the generated OpenAPI document), `./tables.js` (the demo's Drizzle
 * tables for SQLite) and `./prisma.js` (`prisma`, a client of the demo's Prisma schema).
 *
 * A line that says `// compile error` must fail to compile (the README promises it) and every
 * other line must compile. Blocks that export `defineResource(...)` results are also checked
 * as the generator checks a schema, with the blog's other resources beside them.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcesOf } from '../../generator/load.js';
import { validate } from '../../generator/validate.js';
import { type CodeBlock, READMES, ROOT, readReadme, typeScriptBlocks } from './readme.js';

const HOST = join(ROOT, '.tmp', 'readme-blocks');
const BLOG = join(ROOT, 'examples', 'blog');
/** The import specifier of a blog file from `from` (a folder of HOST). */
const blog = (from: string, file: string) => relative(from, join(BLOG, file)).split('\\').join('/');

const blocks: CodeBlock[] = READMES.flatMap((readme) => typeScriptBlocks(readme));
const fileOf = (block: CodeBlock) =>
  join(HOST, `${block.readme.replace(/README\.md$/, 'readme').replace(/\W+/g, '-')}-${block.line}.ts`);

/** The host the blocks are files of; its modules are the blog demo's. */
async function writeHost(): Promise<void> {
  rmSync(HOST, { recursive: true, force: true });
  for (const dir of ['generated', 'data', 'client']) mkdirSync(join(HOST, dir), { recursive: true });
  writeFileSync(join(HOST, 'schema.ts'), `export * from '${blog(HOST, 'schema.js')}';\n`);
  writeFileSync(
    join(HOST, 'generated', 'index.ts'),
    `export * from '${blog(join(HOST, 'generated'), 'generated/index.js')}';\n`,
  );
  writeFileSync(
    join(HOST, 'generated', 'client.ts'),
    `export * from '${blog(join(HOST, 'generated'), 'generated/client.js')}';\n`,
  );
  writeFileSync(
    join(HOST, 'db.ts'),
    `import type { Kysely } from 'kysely';
import type { Database } from '${blog(HOST, 'db.js')}';
export type { Database };
export declare const db: Kysely<Database>;
`,
  );
  writeFileSync(
    join(HOST, 'data', 'articles.ts'),
    `import { createStore } from '${blog(join(HOST, 'data'), 'store.js')}';
import { db } from '../db.js';
export const articlesDataLayer = createStore(db).articles;
`,
  );
  writeFileSync(join(HOST, 'tables.ts'), `export * from '${blog(HOST, 'drizzle/sqlite.js')}';\n`);
  writeFileSync(
    join(HOST, 'prisma.ts'),
    `import type { BlogPrisma } from '${blog(HOST, 'prisma-store.js')}';
export declare const prisma: BlogPrisma;
`,
  );
  const types = astToString(await openapiTS(pathToFileURL(join(BLOG, 'generated', 'openapi.json'))));
  writeFileSync(join(HOST, 'client', 'api.d.ts'), types);
  for (const block of blocks) writeFileSync(fileOf(block), block.code);
}

interface Problem {
  readonly at: string;
  readonly message: string;
}

/** Type-checks every block in one program: what is wrong, each at its README line. */
function compile(): Problem[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('cannot read tsconfig.json');
  const program = ts.createProgram(blocks.map(fileOf), { ...config.options, noEmit: true });
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  const problems: Problem[] = global.map((d) => ({
    at: 'tsconfig',
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
  for (const block of blocks) {
    const source = program.getSourceFile(fileOf(block));
    if (!source) throw new Error(`${block.readme}:${block.line}: not in the program`);
    const lines = block.code.split('\n');
    const failing = new Set<number>();
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      failing.add(line);
      if (!/\/\/ compile error\b/.test(lines[line] ?? '')) {
        problems.push({
          at: `${block.readme}:${block.line + line}`,
          message: `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
        });
      }
    }
    lines.forEach((text, line) => {
      if (/\/\/ compile error\b/.test(text) && !failing.has(line))
        problems.push({
          at: `${block.readme}:${block.line + line}`,
          message: 'compiles, but the README says it is a compile error',
        });
    });
  }
  return problems;
}

describe('the TypeScript blocks of the READMEs', () => {
  beforeAll(writeHost, 60_000);

  it('are found: every ```ts fence opens a block that closes', () => {
    for (const readme of READMES) {
      const fences = readReadme(readme).match(/^ *```(ts|typescript)[ \t]*$/gm) ?? [];
      expect(typeScriptBlocks(readme).length, readme).toBe(fences.length);
    }
    expect(blocks.length).toBeGreaterThanOrEqual(10);
  });

  it('compile as printed, and the lines they call compile errors are', () => {
    expect(compile()).toEqual([]);
  }, 120_000);

  it('that declare resources declare a schema the generator accepts', async () => {
    const schemas = blocks.filter((block) => /^export const \w+ = defineResource\(/m.test(block.code));
    expect(schemas.length).toBeGreaterThan(0);
    const neighbours = (await import('../../examples/blog/schema.js')) as Record<string, unknown>;
    for (const block of schemas) {
      const declared = (await import(pathToFileURL(fileOf(block)).href)) as Record<string, unknown>;
      // The blog's resources of the other types, which the block's relationships name.
      const others = Object.entries(neighbours).filter(([name]) => name !== 'extensions' && !(name in declared));
      const issues = validate(resourcesOf(fileOf(block), { ...Object.fromEntries(others), ...declared }));
      expect(issues.map((issue) => `${block.readme}:${block.line}: ${issue.message}`)).toEqual([]);
    }
  });
});
