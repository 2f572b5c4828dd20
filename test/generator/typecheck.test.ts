/**
 * The generated TypeScript of every fixture compiles under `--strict` (and stricter), a host
 * binding loosely typed (Kysely-like) data layers compiles, and wrong ones do not.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../../generator/files.js';
import { generateFixture, ROOT, TMP } from './fixtures.js';
import { writeStubs } from '../../generator/stubs.js';

const DIR = join(TMP, 'typecheck');

/** Host code next to the generated blog: each file either compiles or fails where `// error:` says. */
const HOSTS: Record<string, string> = {
  'good.ts': `
import type { Context, OffsetPagination, Relationship, ResourceIdentifier, WriteValues } from 'jsonapi-gen';
import { createApi, type ArticlesResource, type ArticlesCreatePayload, type ArticlesUpdatePayload } from './generated/index.js';

type Row = Record<string, unknown>;
interface Query { rows: Row[] }
/** What a Kysely-style integration hands out: plain rows, one generic loadRelated. */
function table(): {
  find(id: string, ctx: Context): Promise<Row | undefined>;
  query(ctx: Context): Query;
  results(query: Query, ctx: Context): Promise<Row[]>;
  paginate(query: Query, page: OffsetPagination, ctx: Context): Query;
  count(query: Query, ctx: Context): Promise<number>;
  delete(model: Row, ctx: Context): Promise<void>;
  loadRelated(relationship: Relationship, models: readonly Row[], ctx: Context): Promise<unknown[]>;
  create(values: WriteValues, ctx: Context): Promise<Row>;
  update(model: Row, values: WriteValues, ctx: Context): Promise<Row>;
  addToRelationship(model: Row, relationship: Relationship, identifiers: readonly ResourceIdentifier[], ctx: Context): Promise<void>;
  removeFromRelationship(model: Row, relationship: Relationship, identifiers: readonly ResourceIdentifier[], ctx: Context): Promise<void>;
} {
  return {
    find: async () => undefined,
    query: () => ({ rows: [] }),
    results: async (q) => q.rows,
    paginate: (q) => q,
    count: async (q) => q.rows.length,
    delete: async () => {},
    loadRelated: async (_r, models) => models.map(() => null),
    create: async (values) => ({ ...values.attributes }),
    update: async (model, values) => ({ ...model, ...values.attributes }),
    addToRelationship: async () => {},
    removeFromRelationship: async () => {},
  };
}
export const api = createApi({ articles: table(), comments: table(), people: table(), tags: table() }, { basePath: '/api' });

class ArticleStore {
  readonly rows = new Map<string, { id: string; title: string }>();
  find(id: string) { return this.rows.get(id) ?? null; }
  query() { return [...this.rows.values()]; }
  results(query: Array<{ id: string; title: string }>) { return query; }
  paginate(query: Array<{ id: string; title: string }>, { offset, limit }: OffsetPagination) { return query.slice(offset, offset + limit); }
  count(query: unknown[]) { return query.length; }
  delete(model: { id: string }) { this.rows.delete(model.id); }
  loadRelated(_relationship: Relationship, models: readonly unknown[]) { return models.map(() => []); }
  create(values: WriteValues) { const row = { id: String(this.rows.size + 1), title: String(values.attributes.title) }; this.rows.set(row.id, row); return row; }
  update(model: { id: string; title: string }) { return model; }
  addToRelationship() {}
  removeFromRelationship() {}
}
export const classApi = createApi({ articles: new ArticleStore(), comments: table(), people: table(), tags: table() });

export const article: ArticlesResource = {
  type: 'articles', id: '1',
  attributes: { title: 'T', body: null, status: 'draft', createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z' },
  relationships: { author: { links: { self: '', related: '' }, data: { type: 'people', id: '1' } }, comments: { links: { self: '', related: '' } }, tags: { links: { self: '', related: '' } } },
  links: { self: '' },
};
export const create: ArticlesCreatePayload = { data: { type: 'articles', attributes: { title: 'T' }, relationships: { author: { data: { type: 'people', id: '1' } } } } };
export const update: ArticlesUpdatePayload = { data: { type: 'articles', id: '1' } };
`,
  'missing-method.ts': `
import { articlesResource } from './generated/index.js';
articlesResource({
  find: () => null, query: () => [], results: () => [], paginate: (q) => q, delete: () => {}, loadRelated: () => [],
  create: () => ({}), update: (m) => m, addToRelationship: () => {}, removeFromRelationship: () => {},
}); // error: count
`,
  'wrong-signature.ts': `
import { articlesResource } from './generated/index.js';
articlesResource({
  find: (id: number) => ({ id }), query: () => [], results: () => [], paginate: (q) => q, count: () => 0, delete: () => {}, loadRelated: () => [],
  create: () => ({ id: 1 }), update: (m) => m, addToRelationship: () => {}, removeFromRelationship: () => {},
}); // error: find
`,
  'wrong-result.ts': `
import { tagsResource } from './generated/index.js';
tagsResource({
  find: () => null, query: () => [], results: () => 42, paginate: (q) => q, count: () => 0, delete: () => {}, loadRelated: () => [],
  create: () => ({}), update: (m) => m,
}); // error: results
`,
  'missing-resource.ts': `
import { createApi, type DataLayers } from './generated/index.js';
declare const layer: DataLayers['articles'];
createApi({ articles: layer, comments: layer, people: layer }); // error: tags
`,
  'bad-payload.ts': `
import type { ArticlesCreatePayload } from './generated/index.js';
export const p: ArticlesCreatePayload = { data: { type: 'articles', attributes: { body: 'no title' }, relationships: { author: { data: { type: 'people', id: '1' } } } } }; // error: title
`,
};

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  noUnusedLocals: true,
  noUnusedParameters: false,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  noEmit: true,
  baseUrl: ROOT,
  paths: { 'jsonapi-gen': ['./runtime/index.ts'] },
};

let diagnostics: Map<string, string[]>;

beforeAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
  const roots: string[] = [];
  for (const name of ['minimal', 'blog', 'kitchen-sink']) {
    const out = join(DIR, name, 'generated');
    const { files, model } = await generateFixture(name, out);
    writeFiles(out, files);
    roots.push(join(out, 'index.ts'));
    await writeStubs(model, join(DIR, name, 'data'), out);
    roots.push(...model.resources.map((r) => join(DIR, name, 'data', `${r.type}.ts`)));
  }
  mkdirSync(join(DIR, 'blog'), { recursive: true });
  for (const [file, text] of Object.entries(HOSTS)) {
    writeFileSync(join(DIR, 'blog', file), text);
    roots.push(join(DIR, 'blog', file));
  }
  writeFileSync(join(DIR, 'package.json'), '{ "type": "module" }\n');
  const program = ts.createProgram(roots, OPTIONS);
  diagnostics = new Map();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(DIR, d.file.fileName) : '(global)';
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    const list = diagnostics.get(file) ?? [];
    list.push(`${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    diagnostics.set(file, list);
  }
}, 120_000);

describe('generated TypeScript', () => {
  it('of every fixture, its stubs and a host binding Kysely-like data layers compile under strict settings', () => {
    // Only what this test wrote is judged: the runtime's sources are compiled with their own settings.
    const expectedToFail = new Set(Object.keys(HOSTS).filter((f) => f !== 'good.ts').map((f) => `blog/${f}`));
    const unexpected = [...diagnostics].filter(([file]) => !file.startsWith('..') && !expectedToFail.has(file));
    expect(Object.fromEntries(unexpected)).toEqual({});
  });

  it.each([
    ['a data layer missing a method', { given: 'missing-method.ts', want: "Property 'count' is missing" }],
    ['a data layer method with a wrong parameter', { given: 'wrong-signature.ts', want: "Types of parameters 'id' and 'id' are incompatible" }],
    ['a data layer method with a wrong result', { given: 'wrong-result.ts', want: "Type 'number' is not assignable to type 'MaybePromise<readonly" }],
    ['createApi without a resource', { given: 'missing-resource.ts', want: "Property 'tags' is missing" }],
    ['a create payload without a required attribute', { given: 'bad-payload.ts', want: "Property 'title' is missing" }],
  ])('rejects %s', (_, { given, want }) => {
    const errors = diagnostics.get(`blog/${given}`) ?? [];
    expect(errors.join('\n')).toContain(want);
  });
});
