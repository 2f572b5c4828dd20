/**
 * The three packages as a user receives them: `npm pack` of each workspace (its prepack builds
 * dist/), then the runtime tarball installed ALONE into an empty folder: nothing else comes
 * with it, its install size is reported, and a plain Node ESM host and a strict TypeScript host
 * use it. `npm publish --dry-run` accepts each tarball (nothing is published). The whole path
 * through `jsonapi-gen init` with all three tarballs is test/cli/init.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Packed, ROOT, WORKSPACES, npm, packWorkspaces } from './support.js';

/** Bytes of every file under `dir`. */
function sizeOf(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
}

describe('the packed packages', () => {
  let dir: string;
  let host: string;
  let packed: Record<string, Packed>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-pack-'));
    packed = packWorkspaces(dir);
    host = join(dir, 'host');
    execFileSync('mkdir', [host]);
    writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
    npm(['install', packed['jsonapi-gen']!.file], host);
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ship compiled JavaScript with declarations, and no TypeScript sources or tests', () => {
    expect(Object.keys(packed).sort()).toEqual(WORKSPACES.map((w) => w.name).sort());
    for (const { files } of Object.values(packed)) {
      expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
      expect(files.filter((f) => f.includes('.test.') && !f.endsWith('.tpl'))).toEqual([]);
      expect(files).toContain('README.md');
    }
    expect(packed['jsonapi-gen']!.files).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/adapters/node.js', 'dist/adapters/node.d.ts']),
    );
    expect(packed['@jsonapi-gen/kysely']!.files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts']));
    expect(packed['@jsonapi-gen/cli']!.files).toEqual(
      expect.arrayContaining([
        'bin/jsonapi-gen.js',
        'dist/cli.js',
        'templates/init/src/schema.ts.tpl',
        'templates/data-layer.ts.tpl',
      ]),
    );
  });

  it('the runtime installs alone: no dependency at all, and its install size is small', () => {
    const tree = JSON.parse(npm(['ls', '--all', '--json'], host)) as {
      dependencies: Record<string, { dependencies?: unknown }>;
    };
    expect(Object.keys(tree.dependencies)).toEqual(['jsonapi-gen']);
    expect(tree.dependencies['jsonapi-gen']!.dependencies).toBeUndefined();
    expect(readdirSync(join(host, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['jsonapi-gen']);
    const bytes = sizeOf(join(host, 'node_modules', 'jsonapi-gen'));
    console.log(
      `jsonapi-gen installs alone: ${(bytes / 1024).toFixed(0)} kB on disk (tarball ${(packed['jsonapi-gen']!.size / 1024).toFixed(0)} kB, ${packed['jsonapi-gen']!.files.length} files)`,
    );
    // Compiled sources and declarations only come to about 453 kB since the runtime gained declaration
    // rules, describeSchema, the request gate, the cost budget, the query language's groups and
    // counts, tracing (the instrument hook, Server-Timing), lifecycle hooks, meta, the outbox and
    // the SQL stores' shared rules: the bound catches what should not ship (tests, maps) and
    // sudden growth.
    expect(bytes).toBeLessThan(480 * 1024);
  });

  it('the runtime imports in a plain Node ESM project and serves a request', () => {
    writeFileSync(
      join(host, 'host.mjs'),
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
    expect(JSON.parse(execFileSync(process.execPath, ['host.mjs'], { cwd: host, encoding: 'utf8' }))).toEqual({
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

  it('a resource object written from the specification alone is counted because it implements count', () => {
    // Exactly the specification's tables: type(), fields(), endpoints(), find, query, results,
    // paginate, count, and nothing else (no defineResource, no countable()).
    writeFileSync(
      join(host, 'countable.mjs'),
      `import { JsonApi, Attribute, Index, Show } from 'jsonapi-gen';
const rows = Array.from({ length: 5 }, (_, i) => ({ id: String(i + 1), title: 'Book ' + (i + 1) }));
const resource = (type, index) => ({
  type: () => type,
  fields: () => [Attribute.make('title')],
  endpoints: () => [Show.make(), index],
  find: (id) => rows.find((row) => row.id === id) ?? null,
  query: () => ({ rows }),
  results: (query) => query.rows,
  paginate: (query, page) => ({ rows: query.rows.slice(page.offset, page.offset + page.limit) }),
  count: (query) => query.rows.length,
});
const api = new JsonApi()
  .resource(resource('books', Index.make().paginate(2, 10)))
  .resource(resource('quiet', Index.make().paginate(2, 10).countable(false)));
const get = async (url) => (await api.fetch(new Request('http://localhost' + url))).json();
const lastOfBooks = await get('/books?page[offset]=4&page[limit]=2');
console.log(JSON.stringify({
  books: await get('/books'),
  lastOfBooks: { links: lastOfBooks.links, meta: lastOfBooks.meta, ids: lastOfBooks.data.map((d) => d.id) },
  quiet: await get('/quiet'),
}));
`,
    );
    const out = JSON.parse(
      execFileSync(process.execPath, ['countable.mjs'], { cwd: host, encoding: 'utf8' }),
    ) as Record<string, { links: Record<string, string | null>; meta?: unknown; ids?: string[] }>;
    const books = out.books!;
    expect(books.meta).toEqual({ total: 5 });
    expect(decodeURIComponent(books.links.last!)).toBe('http://localhost/books?page[offset]=4&page[limit]=2');
    // On the last page the server knows there is no next one.
    expect(out.lastOfBooks!.ids).toEqual(['5']);
    expect(out.lastOfBooks!.links.next ?? null).toBeNull();
    expect(out.lastOfBooks!.meta).toEqual({ total: 5 });
    // countable(false) opts a counting data layer out: no total, no last link.
    const quiet = out.quiet!;
    expect(quiet.meta).toBeUndefined();
    expect(quiet.links.last).toBeUndefined();
    expect(quiet.links.next).toBeDefined();
  });

  it('type-checks a TypeScript host against the shipped declarations', () => {
    writeFileSync(
      join(host, 'host.ts'),
      `import { JsonApi, Attribute, Show, defineResource, type Findable } from 'jsonapi-gen';
const store: Findable<{ id: number; name: string }> = { find: (id) => ({ id: Number(id), name: 'x' }) };
new JsonApi().resource({ ...defineResource({ type: 'tags', fields: [Attribute.make('name')], endpoints: [Show.make()] }), ...store });
// @ts-expect-error: find must take a string id
const wrong: Findable<{ id: number }> = { find: (id: number) => ({ id }) };
void wrong;
`,
    );
    writeFileSync(
      join(host, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          lib: ['ES2023', 'DOM'],
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ['host.ts'],
      }),
    );
    // The Node adapter's declarations need @types/node, which this host does not have: the core's only.
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
      cwd: host,
      encoding: 'utf8',
    });
  });

  it('npm publish --dry-run accepts each package (nothing is published)', () => {
    for (const workspace of WORKSPACES) {
      const out = npm(['publish', '--dry-run', '--json', '--ignore-scripts', '--workspace', workspace.folder], ROOT);
      const report = JSON.parse(out.slice(out.indexOf('{'))) as Record<
        string,
        { name: string; version: string; files: unknown[] }
      >;
      const entry = report[workspace.name]!;
      expect(entry).toMatchObject({ name: workspace.name, version: packed[workspace.name]!.version });
      expect(entry.files.length).toBe(packed[workspace.name]!.files.length);
    }
  }, 120_000);
});
