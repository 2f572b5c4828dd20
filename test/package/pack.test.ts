import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// What a host does: install the packed tarball into a plain ESM project and use it.
describe('npm pack', () => {
  let dir: string;
  let files: string[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-pack-'));
    const out = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], root)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = out[0]!.files.map((f) => f.path);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, out[0]!.filename)], dir);
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ships compiled JavaScript with declarations, and no sources or tests', () => {
    expect(files).toContain('dist/runtime/index.js');
    expect(files).toContain('dist/runtime/index.d.ts');
    expect(files).toContain('dist/runtime/adapters/node.js');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => f.includes('.test.'))).toEqual([]);
  });

  it('imports in a plain Node ESM project and serves a request', () => {
    writeFileSync(
      join(dir, 'host.mjs'),
      `import { JsonApi, Attribute, Index, Show, defineResource } from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
const tags = [{ id: 1, name: 'news' }, { id: 2, name: 'tech' }];
const api = new JsonApi().resource({
  ...defineResource({ type: 'tags', fields: [Attribute.make('name')], endpoints: [Show.make(), Index.make()] }),
  find: (id) => tags.find((t) => String(t.id) === id),
  query: () => tags,
  results: (rows) => rows,
});
const response = await api.fetch(new Request('http://localhost/tags/2'));
console.log(JSON.stringify({ status: response.status, type: response.headers.get('content-type'), body: await response.json(), node: typeof toNodeHandler }));
`,
    );
    const result = JSON.parse(run('node', ['host.mjs'], dir));
    expect(result).toEqual({
      status: 200,
      type: 'application/vnd.api+json',
      node: 'function',
      body: {
        jsonapi: { version: '1.1' },
        links: { self: 'http://localhost/tags/2' },
        data: { type: 'tags', id: '2', attributes: { name: 'tech' }, links: { self: 'http://localhost/tags/2' } },
      },
    });
  });

  it('runs the jsonapi-gen command from the installed package on a host schema', () => {
    writeFileSync(
      join(dir, 'schema.ts'),
      `import { Attribute, Index, Show, defineResource } from 'jsonapi-gen';
export const tags = defineResource({ type: 'tags', fields: [Attribute.make('name').type('string')], endpoints: [Show.make(), Index.make()] });
`,
    );
    const out = run('npx', ['--no-install', 'jsonapi-gen', 'build', 'schema.ts', '--out', 'generated'], dir);
    expect(out).toMatch(/written/);
    expect(readdirSync(join(dir, 'generated')).sort()).toEqual(expect.arrayContaining(['index.ts', 'openapi.json']));
  });

  it('type-checks a TypeScript host against the shipped declarations', () => {
    writeFileSync(
      join(dir, 'host.ts'),
      `import { JsonApi, Attribute, Show, defineResource, type Findable } from 'jsonapi-gen';
const store: Findable<{ id: number; name: string }> = { find: (id) => ({ id: Number(id), name: 'x' }) };
new JsonApi().resource({ ...defineResource({ type: 'tags', fields: [Attribute.make('name')], endpoints: [Show.make()] }), ...store });
// @ts-expect-error: find must take a string id
const wrong: Findable<{ id: number }> = { find: (id: number) => ({ id }) };
void wrong;
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2023', 'DOM'], noEmit: true, skipLibCheck: false, types: [] }, files: ['host.ts'] }),
    );
    expect(readdirSync(join(dir, 'node_modules', 'jsonapi-gen', 'dist', 'runtime'))).toContain('index.d.ts');
    run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], dir);
  });
});
