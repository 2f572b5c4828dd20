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

/**
 * A typed in-memory data layer for every resource of the generated blog (the example's schema):
 * what a host writes by hand. `good.ts` binds it as it is; each other host changes one thing
 * and must fail to compile where `want` says, with that text.
 */
const LAYERS = `
import type { Context, CursorPage, FilterCondition, FilterValue, SortDirection } from 'jsonapi-gen';
import type { ArticlesDataLayer, ArticlesModel, CommentsDataLayer, CommentsModel, PeopleDataLayer, PeopleModel, TagsDataLayer, TagsModel } from './generated/index.js';

export type Person = PeopleModel & { id: number };
export type Article = ArticlesModel & { id: number; authorId: number };
export type Comment = CommentsModel & { id: number; authorId: number; articleId: number };
export type Tag = TagsModel & { id: number };

/** Whether \`row\` satisfies \`condition\`: a comparison (equality here), or an and/or/not group of them. */
function holds(row: Record<string, unknown>, condition: FilterCondition): boolean {
  switch (condition.op) {
    case 'and': return condition.conditions.every((c) => holds(row, c));
    case 'or': return condition.conditions.some((c) => holds(row, c));
    case 'not': return !condition.conditions.every((c) => holds(row, c));
    case 'custom': return String(row.title).includes(String(condition.value));
    default: return [condition.value].flat().map(String).includes(String(row[condition.field]));
  }
}

/** One table in memory: rows by id, and the query a list builds (the rows left, in order). */
export function table<M extends { id: number }>(rows: M[]) {
  const now = () => new Date().toISOString();
  return {
    rows,
    find: (id: string) => rows.find((row) => String(row.id) === id) ?? null,
    query: (): M[] => [...rows],
    results: (query: M[]) => query,
    paginate: (query: M[], { offset, limit }: { offset: number; limit: number }) => query.slice(offset, offset + limit),
    paginateCursor: (query: M[], { limit }: CursorPage) => query.slice(0, limit),
    count: (query: M[]) => query.length,
    delete: (model: M) => void rows.splice(rows.indexOf(model), 1),
    where: (query: M[], condition: FilterCondition) => query.filter((row) => holds(row as Record<string, unknown>, condition)),
    orderBy: (query: M[], field: string, direction: SortDirection) =>
      [...query].sort((a, b) => (String((a as Record<string, unknown>)[field]) < String((b as Record<string, unknown>)[field]) ? -1 : 1) * (direction === 'asc' ? 1 : -1)),
    addToRelationship: () => {},
    removeFromRelationship: () => {},
    now,
  };
}

export const people: Person[] = [{ id: 1, name: 'Ada', email: null, createdAt: new Date() }];
export const articles: Article[] = [];
export const comments: Comment[] = [];
export const tags: Tag[] = [{ id: 1, name: 'ts' }];

/** Each layer typed by the host's own model (with its foreign keys) and query: what loaders receive. */
export interface Layers {
  people: PeopleDataLayer<Person, Person[]>;
  articles: ArticlesDataLayer<Article, Article[]>;
  comments: CommentsDataLayer<Comment, Comment[]>;
  tags: TagsDataLayer<Tag, Tag[]>;
}

export function layers(): Layers {
  const p = table(people);
  const a = table(articles);
  const c = table(comments);
  const t = table(tags);
  return {
    people: {
      ...p,
      related: { articles: (models) => models.map((person) => articles.filter((x) => x.authorId === person.id)) },
      countRelated: (_relationship, models) => models.map((person) => articles.filter((x) => x.authorId === person.id).length),
      create: (values) => { const row: Person = { id: people.length + 1, name: values.attributes.name, email: values.attributes.email ?? null, createdAt: p.now() }; people.push(row); return row; },
      update: (model, values) => Object.assign(model, values.attributes),
    },
    articles: {
      ...a,
      related: {
        author: (models) => models.map((article) => people.find((x) => x.id === article.authorId) ?? null),
        comments: (models) => models.map((article) => comments.filter((x) => x.articleId === article.id)),
        tags: (models) => models.map(() => tags),
      },
      countRelated: (relationship, models) =>
        models.map((article) => (relationship.name === 'comments' ? comments.filter((x) => x.articleId === article.id).length : tags.length)),
      customFilters: { search: (query: Article[], value: FilterValue) => query.filter((x) => [value].flat().some((term) => x.title.includes(term))) },
      composableFilters: ['search'],
      can: (_ability, article, ctx: Context) => String(article.authorId) === ctx.getAttribute('user'),
      create: (values) => {
        const row: Article = { id: articles.length + 1, title: values.attributes.title, body: values.attributes.body ?? null, status: values.attributes.status,
          authorId: Number(values.relationships.author.id), createdAt: a.now(), updatedAt: a.now() };
        articles.push(row);
        return row;
      },
      update: (model, values) => Object.assign(model, values.attributes),
    },
    comments: {
      ...c,
      related: {
        author: (models) => models.map((comment) => people.find((x) => x.id === comment.authorId) ?? null),
        article: (models) => models.map((comment) => articles.find((x) => x.id === comment.articleId) ?? null),
      },
      create: (values) => {
        const row: Comment = { id: comments.length + 1, body: values.attributes.body, authorId: Number(values.relationships.author.id), articleId: Number(values.relationships.article.id), createdAt: c.now() };
        comments.push(row);
        return row;
      },
      update: (model, values) => Object.assign(model, values.attributes),
    },
    tags: {
      ...t,
      related: { articles: (models) => models.map(() => articles) },
      countRelated: (_relationship, models) => models.map(() => articles.length),
      create: (values) => { const row: Tag = { id: tags.length + 1, name: values.attributes.name }; tags.push(row); return row; },
      update: (model, values) => Object.assign(model, values.attributes),
    },
  };
}
`;

const HOSTS: Record<string, string> = {
  'layers.ts': LAYERS,
  'good.ts': `
import { createApi, type ArticlesCreatePayload, type ArticlesFilterCondition, type ArticlesResource, type ArticlesUpdatePayload } from './generated/index.js';
import { layers } from './layers.js';

export const api = createApi(layers(), { basePath: '/api' });
export const article: ArticlesResource = {
  type: 'articles', id: '1',
  attributes: { title: 'T', body: null, status: 'draft', createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z' },
  relationships: { author: { links: { self: '', related: '' }, data: { type: 'people', id: '1' } }, comments: { links: { self: '', related: '' } }, tags: { links: { self: '', related: '' } } },
  links: { self: '' },
  meta: { wordCount: 0 },
};
export const create: ArticlesCreatePayload = { data: { type: 'articles', attributes: { title: 'T' }, relationships: { author: { data: { type: 'people', id: '1' } } } } };
export const update: ArticlesUpdatePayload = { data: { type: 'articles', id: '1' } };
// What where() receives: a group of conditions, count conditions and a composable custom filter among them.
export const draftsOrBusy: ArticlesFilterCondition = {
  op: 'or',
  conditions: [
    { field: 'status', op: 'eq', value: 'draft' },
    { op: 'not', conditions: [{ field: 'commentCount', op: 'lt', value: 2, count: { relationship: 'comments', type: 'comments' } }] },
    { op: 'custom', field: 'search', value: 'ts' },
  ],
};
`,
  'missing-count.ts': `
import { layers } from './layers.js';
import type { DataLayers } from './generated/index.js';
const { countRelated: _, ...articles } = layers().articles;
export const broken: DataLayers['articles'] = articles; // error: countRelated
`,
  'unknown-condition-field.ts': `
import type { ArticlesFilterCondition } from './generated/index.js';
export const c: ArticlesFilterCondition = { op: 'or', conditions: [{ field: 'wordCount', op: 'gt', value: 2 }] }; // error: wordCount
`,
  'composable-not-custom.ts': `
import { layers } from './layers.js';
import type { DataLayers } from './generated/index.js';
export const broken: DataLayers['articles'] = { ...layers().articles, composableFilters: ['title'] }; // error: title
`,
  'model-missing-attribute.ts': `
import { createApi } from './generated/index.js';
import { layers } from './layers.js';
const all = layers();
createApi({ ...all, articles: { ...all.articles, find: () => ({ id: 1, title: 'no body' }) } }); // error: body
`,
  'model-wrong-kind.ts': `
import { tagsResource } from './generated/index.js';
import { layers } from './layers.js';
const all = layers();
tagsResource({ ...all.tags, find: () => ({ id: 1, name: 42 }) }); // error: name
`,
  'write-values.ts': `
import { layers } from './layers.js';
import type { DataLayers } from './generated/index.js';
const all = layers();
export const tags: DataLayers['tags'] = { ...all.tags, create: (values) => ({ id: 1, name: values.attributes.title }) }; // error: title
`,
  'wrong-related.ts': `
import { layers, tags } from './layers.js';
import type { DataLayers } from './generated/index.js';
const all = layers();
export const articles: DataLayers['articles'] = { ...all.articles, related: { ...all.articles.related, author: (models) => models.map(() => tags[0] ?? null) } }; // error: email
`,
  'missing-filter.ts': `
import { layers } from './layers.js';
import type { DataLayers } from './generated/index.js';
const { customFilters: _, ...articles } = layers().articles;
export const broken: DataLayers['articles'] = articles; // error: customFilters
`,
  'missing-policy.ts': `
import { layers } from './layers.js';
import type { DataLayers } from './generated/index.js';
const { can: _, ...articles } = layers().articles;
export const broken: DataLayers['articles'] = articles; // error: can
`,
  'context-attribute.ts': `
import type { Context } from 'jsonapi-gen';
export const user = (ctx: Context): number | undefined => ctx.getAttribute('user'); // error: string
`,
  'missing-resource.ts': `
import { createApi } from './generated/index.js';
import { layers } from './layers.js';
const { tags: _, ...rest } = layers();
createApi(rest); // error: tags
`,
  'bad-payload.ts': `
import type { ArticlesCreatePayload } from './generated/index.js';
export const p: ArticlesCreatePayload = { data: { type: 'articles', attributes: { body: 'no title' }, relationships: { author: { data: { type: 'people', id: '1' } } } } }; // error: title
`,
};

/** Hosts of the kitchen-sink fixture, whose attributes read through `.get()` getters. */
const GETTER_HOSTS: Record<string, string> = {
  'getter-model.ts': `
import type { WidgetsModel } from './generated/index.js';
export const widget: WidgetsModel = { id: 1, builtAt: new Date() } as Omit<WidgetsModel, 'name'> as WidgetsModel;
export const missing: WidgetsModel = { ...widget, name: undefined }; // error: name
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
    roots.push(join(out, 'index.ts'), join(out, 'client.ts'));
    await writeStubs(model, join(DIR, name, 'data'), out);
    roots.push(...model.resources.map((r) => join(DIR, name, 'data', `${r.type}.ts`)));
  }
  for (const [fixture, hosts] of [
    ['blog', HOSTS],
    ['kitchen-sink', GETTER_HOSTS],
  ] as const) {
    mkdirSync(join(DIR, fixture), { recursive: true });
    for (const [file, text] of Object.entries(hosts)) {
      writeFileSync(join(DIR, fixture, file), text);
      roots.push(join(DIR, fixture, file));
    }
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
  it('of every fixture, its stubs and a typed in-memory host of the blog compile under strict settings', () => {
    // Only what this test wrote is judged: the runtime's sources are compiled with their own settings.
    const expectedToFail = new Set([
      ...Object.keys(HOSTS)
        .filter((f) => f !== 'good.ts' && f !== 'layers.ts')
        .map((f) => `blog/${f}`),
      ...Object.keys(GETTER_HOSTS).map((f) => `kitchen-sink/${f}`),
    ]);
    const unexpected = [...diagnostics].filter(([file]) => !file.startsWith('..') && !expectedToFail.has(file));
    expect(Object.fromEntries(unexpected)).toEqual({});
  });

  it.each([
    [
      'a model missing an attribute',
      {
        given: 'blog/model-missing-attribute.ts',
        want: "is missing the following properties from type 'ArticlesModelFields': body",
      },
    ],
    [
      'a model with an attribute of the wrong kind',
      { given: 'blog/model-wrong-kind.ts', want: "Type 'number' is not assignable to type 'string'" },
    ],
    [
      'create reading an attribute the resource does not have',
      { given: 'blog/write-values.ts', want: "Property 'title' does not exist" },
    ],
    [
      'a to-one loader giving the wrong resource',
      {
        given: 'blog/wrong-related.ts',
        want: "is missing the following properties from type 'PeopleModelFields': email",
      },
    ],
    [
      'a data layer without a custom filter',
      { given: 'blog/missing-filter.ts', want: "Property 'customFilters' is missing" },
    ],
    [
      'a data layer without the policy can() asks',
      { given: 'blog/missing-policy.ts', want: "Property 'can' is missing" },
    ],
    [
      'a context attribute read as another type',
      {
        given: 'blog/context-attribute.ts',
        want: "Type 'string | undefined' is not assignable to type 'number | undefined'",
      },
    ],
    [
      'a data layer without countRelated for countable relationships',
      { given: 'blog/missing-count.ts', want: "Property 'countRelated' is missing" },
    ],
    [
      'a condition on a field where does not compare',
      { given: 'blog/unknown-condition-field.ts', want: `Type '"wordCount"' is not assignable` },
    ],
    [
      'composableFilters naming a filter that is not custom',
      { given: 'blog/composable-not-custom.ts', want: `Type '"title"' is not assignable to type '"search"'` },
    ],
    ['createApi without a resource', { given: 'blog/missing-resource.ts', want: "Property 'tags' is missing" }],
    [
      'a create payload without a required attribute',
      { given: 'blog/bad-payload.ts', want: "Property 'title' is missing" },
    ],
    [
      'a model without what a getter reads',
      { given: 'kitchen-sink/getter-model.ts', want: "Type 'undefined' is not assignable to type 'string'" },
    ],
  ])('rejects %s', (_, { given, want }) => {
    const errors = diagnostics.get(given) ?? [];
    expect(errors.join('\n')).toContain(want);
    // The first error is on the line the host got wrong.
    const line = HOSTS[given.replace('blog/', '')] ?? GETTER_HOSTS[given.replace('kitchen-sink/', '')] ?? '';
    const wrong = line.split('\n').findIndex((l) => l.includes('// error:')) + 1;
    expect(errors[0]?.split(':')[0]).toBe(String(wrong));
  });

  it('has no any in any generated file', async () => {
    for (const name of ['minimal', 'blog', 'kitchen-sink']) {
      for (const file of (await generateFixture(name, join(DIR, name, 'generated'))).files) {
        if (!file.path.endsWith('.ts')) continue;
        // Code only: string literals (the OpenAPI document's text, messages) may say "any".
        const code = file.content.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
        expect(code, `${name}/${file.path}`).not.toMatch(/\bany\b|as Record<string, unknown>/);
      }
    }
  });
});
