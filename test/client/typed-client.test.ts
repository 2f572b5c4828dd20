/**
 * The OpenAPI document is true to the API: openapi-typescript turns the generated
 * examples/blog/generated/openapi.json into types, a small openapi-fetch program is compiled
 * against them with the TypeScript compiler API (strict, no errors allowed, and a wrong include
 * path must be an error), and the compiled program is then run, as its own Node process, against
 * the running demo: list articles with include and page[limit], create one (Bearer auth,
 * application/vnd.api+json), read it back. Its typed reads must match what the server sent.
 *
 * The guide's openapi-fetch recipe is run the same way, as printed: taken from
 * docs/guide/generating.md, its
 * `baseUrl` pointed at the demo's port and a line appended that prints what it got, so that it
 * stops passing here when it stops working for a reader (as it did when it let openapi-fetch
 * send its POST as application/json, which the server refuses with 415).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { typeScriptBlocks } from '../docs/readme.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENT = join(ROOT, 'examples', 'blog', 'generated', 'openapi.json');
/** The guide page that prints the openapi-fetch recipe. */
const GUIDE = 'docs/guide/generating.md';

/** The program a client author writes: nothing but openapi-fetch and the generated `paths`. */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './blog.js';

const JSONAPI = 'application/vnd.api+json';

export async function main(baseUrl: string) {
  const client = createClient<paths>({
    baseUrl,
    headers: { accept: JSONAPI },
    // JSON:API lists are comma-separated: the document says style form, explode false.
    querySerializer: { array: { style: 'form', explode: false } },
  });

  const list = await client.GET('/articles', {
    params: { query: { include: ['author', 'tags'], 'page[limit]': 2, sort: ['title'] } },
  });
  if (!list.data) throw new Error(\`list failed: \${list.response.status} \${JSON.stringify(list.error)}\`);
  const listed = list.data.data.map((article) => ({
    id: article.id,
    title: article.attributes?.title,
    author: article.relationships?.author?.data?.id,
  }));
  const included = (list.data.included ?? []).map((resource) => \`\${resource.type}:\${resource.id}\`);

  const created = await client.POST('/articles', {
    headers: { authorization: 'Bearer 1', 'content-type': JSONAPI },
    body: {
      data: {
        type: 'articles',
        attributes: { title: 'Typed clients', body: 'From the OpenAPI document.' },
        relationships: { author: { data: { type: 'people', id: '1' } }, tags: { data: [{ type: 'tags', id: '1' }] } },
      },
    },
  });
  if (!created.data) throw new Error(\`create failed: \${created.response.status} \${JSON.stringify(created.error)}\`);
  const id: string = created.data.data.id;

  const read = await client.GET('/articles/{id}', { params: { path: { id }, query: { include: ['author', 'tags'] } } });
  if (!read.data) throw new Error(\`read failed: \${read.response.status} \${JSON.stringify(read.error)}\`);
  const status: 'draft' | 'published' | undefined = read.data.data.attributes?.status;
  const author = read.data.included?.find((resource) => resource.type === 'people');

  const missing = await client.GET('/articles/{id}', { params: { path: { id: '999999' } } });

  // @ts-expect-error: not an include path of articles
  void client.GET('/articles', { params: { query: { include: ['nope'] } } });

  return {
    list: { status: list.response.status, type: list.response.headers.get('content-type'), listed, included, total: list.data.meta?.['total'], next: list.data.links?.['next'] },
    created: { status: created.response.status, location: created.response.headers.get('location'), id, title: created.data.data.attributes?.title },
    read: { status: read.response.status, title: read.data.data.attributes?.title, articleStatus: status, author: author?.type === 'people' ? author.attributes?.name : undefined, authorId: read.data.data.relationships?.author?.data?.id, tags: read.data.data.relationships?.tags?.data?.map((tag) => tag.id) },
    missing: { status: missing.response.status, code: missing.error?.errors?.[0]?.status },
  };
}

console.log(JSON.stringify(await main(process.argv[2]!)));
`;

/** Appended to the guide's recipe: what it got, for the test to check. */
const REPORT = `
console.log(JSON.stringify({
  list: { status: list.response.status, titles: list.data?.data.map((article) => article.attributes?.title) },
  created: { status: created.response.status, id: created.data?.data.id, title: created.data?.data.attributes?.title, location: created.response.headers.get('location') },
}));
`;

interface Diagnostic {
  readonly file: string;
  /** 0-based. */
  readonly line: number;
  readonly text: string;
}

/** Compiles `entry` (in `dir`) as a client author would, strictly, into `dir/out`; what tsc said. */
function compileStrictly(dir: string, entry: string): Diagnostic[] {
  const program = ts.createProgram([join(dir, entry)], {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [join(dir, 'node_modules', '@types')],
    skipLibCheck: true,
    rootDir: dir,
    outDir: join(dir, 'out'),
  });
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => ({
    file: d.file ? relative(dir, d.file.fileName) : '',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1,
    text: ts.formatDiagnostic(d, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => dir,
      getNewLine: () => '\n',
    }),
  }));
}

describe('a typed client generated from openapi.json', () => {
  let dir: string;
  let demo: Demo;
  let types: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-client-'));
    // The program resolves openapi-fetch (and the compiler its types) from the repository.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    types = astToString(await openapiTS(pathToFileURL(DOCUMENT), { immutable: false }));
    // Where each program imports them from: the test's program, and the guide's recipe.
    writeFileSync(join(dir, 'blog.ts'), types);
    mkdirSync(join(dir, 'client'));
    writeFileSync(join(dir, 'client', 'api.ts'), types);
    demo = await startDemo({ port: 0, seed: 10, databaseUrl: null });
  });

  afterAll(async () => {
    await demo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('openapi-typescript accepts the document, the program compiles strictly, and it runs against the demo', async () => {
    expect(types).toContain('"/articles/{id}"');
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    expect(compileStrictly(dir, 'program.ts').map((d) => d.text)).toEqual([]);

    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'out', 'program.js'), demo.url], {
      cwd: dir,
    });
    const result = JSON.parse(stdout);

    expect(result.list.status).toBe(200);
    expect(result.list.type).toBe('application/vnd.api+json');
    expect(result.list.listed).toHaveLength(2);
    for (const article of result.list.listed) {
      expect(article.title).toEqual(expect.any(String));
      expect(result.list.included).toContain(`people:${article.author}`);
    }
    expect(result.list.listed.map((a: { title: string }) => a.title)).toEqual(
      [...result.list.listed.map((a: { title: string }) => a.title)].sort(),
    );
    expect(result.list.total).toBe(10);
    expect(result.list.next).toMatch(/page%5Blimit%5D=2|page\[limit\]=2/);

    expect(result.created).toMatchObject({ status: 201, title: 'Typed clients' });
    expect(result.created.location).toBe(`${demo.url}/articles/${result.created.id}`);

    const person = (await (await fetch(`${demo.url}/people/1`)).json()) as { data: { attributes: { name: string } } };
    expect(result.read).toEqual({
      status: 200,
      title: 'Typed clients',
      articleStatus: 'draft',
      author: person.data.attributes.name,
      authorId: '1',
      tags: ['1'],
    });
    expect(result.missing).toEqual({ status: 404, code: '404' });
    expect(JSON.parse(readFileSync(DOCUMENT, 'utf8')).openapi).toBe('3.1.0');
  }, 60_000);

  it("runs the guide's recipe as printed: it lists, and its POST is created (not refused as application/json)", async () => {
    const recipes = typeScriptBlocks(GUIDE).filter((block) => block.code.includes("from 'openapi-fetch'"));
    expect(recipes).toHaveLength(1);
    const { code, line } = recipes[0]!;
    // The one change: the demo's port is the test's, not 3000.
    const baseUrl = "baseUrl: 'http://127.0.0.1:3000',";
    expect(code.split(baseUrl)).toHaveLength(2);
    writeFileSync(join(dir, 'recipe.ts'), code.replace(baseUrl, `baseUrl: ${JSON.stringify(demo.url)},`) + REPORT);

    // Strictly compiled, its only errors are on the line the guide calls a compile error.
    const marked = code.split('\n').flatMap((text, i) => (text.includes('// compile error') ? [i] : []));
    expect(marked).toHaveLength(1);
    const diagnostics = compileStrictly(dir, 'recipe.ts');
    expect(
      diagnostics
        .filter((d) => d.file !== 'recipe.ts' || d.line !== marked[0])
        .map((d) => `${GUIDE}:${line + d.line}: ${d.text}`),
    ).toEqual([]);
    expect(diagnostics.length).toBeGreaterThan(0);

    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'out', 'recipe.js')], { cwd: dir });
    const result = JSON.parse(stdout) as {
      list: { status: number; titles: string[] };
      created: { status: number; id: string; title: string; location: string };
    };
    expect(result.list.status).toBe(200);
    expect(result.list.titles).toHaveLength(2);
    expect(result.created).toEqual({
      status: 201,
      id: expect.any(String),
      title: 'Typed',
      location: `${demo.url}/articles/${result.created.id}`,
    });
    const stored = await fetch(`${demo.url}/articles/${result.created.id}?include=author`);
    expect(stored.status).toBe(200);
    const document = (await stored.json()) as {
      data: { attributes: { title: string } };
      included: Array<{ type: string; id: string }>;
    };
    expect(document.data.attributes.title).toBe('Typed');
    expect(document.included.map((r) => `${r.type}:${r.id}`)).toEqual(['people:1']);
  }, 60_000);
});
