/**
 * The blog's Prisma mapping is checked against the generated `Resources` and the generated
 * Prisma Client: each mistake below, made in examples/blog/prisma-store.ts, fails to compile
 * with its first error in prisma-store.ts, on the line of the mistake, naming what is wrong.
 * The clients come from `npm run prisma:generate` (vitest's globalSetup makes them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CompileBase, firstError as firstErrorOf, firstLine, repositoryOptions } from '../support/first-error.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const STORE = join(ROOT, 'examples/blog/prisma-store.ts');
const SOURCE = readFileSync(STORE, 'utf8');

/**
 * Each mistake: the text replaced in prisma-store.ts, its replacement, and what the first error
 * says; `at`: for a member left out, the enclosing member the error is reported at (the nearest
 * line above the mistake that holds it).
 */
const MISTAKES: Array<[string, { from: string; to: string; want: string; at?: string }]> = [
  ['a misspelt model', { from: "model: 'tag',\n", to: "model: 'tags',\n", want: '"tags"' }],
  [
    'a misspelt relation field',
    {
      from: "article: { field: 'article', foreignKey: 'articleId' },",
      to: "article: { field: 'articel', foreignKey: 'articleId' },",
      want: '"articel"',
    },
  ],
  [
    'a to-many relation field for a to-one relationship',
    {
      from: "author: { field: 'author', foreignKey: 'authorId' },\n          comments:",
      to: "author: { field: 'comments', foreignKey: 'authorId' },\n          comments:",
      want: '"comments"',
    },
  ],
  [
    'a to-many relation to a model it does not lead to',
    {
      from: "comments: { field: 'comments', model: 'comment', foreignKey: 'articleId' },",
      to: "comments: { field: 'comments', model: 'person', foreignKey: 'articleId' },",
      want: '"person"',
    },
  ],
  [
    'a misspelt foreign key of the related model',
    {
      from: "articles: { field: 'articles', model: 'article', foreignKey: 'authorId' }",
      to: "articles: { field: 'articles', model: 'article', foreignKey: 'authorID' }",
      want: '"authorID"',
    },
  ],
  [
    "a join model's relation that is no to-one relation of it",
    { from: "to: 'tagId', relation: 'tag' }", to: "to: 'tagId', relation: 'tags' }", want: '"tags"' },
  ],
  [
    'an attribute mapped to a field of the wrong kind',
    {
      from: "model: 'person',\n",
      to: "model: 'person', fields: { createdAt: 'name' },\n",
      want: '"name"',
    },
  ],
  [
    'a nullable field for a non-null attribute',
    { from: "model: 'person',\n", to: "model: 'person', fields: { name: 'email' },\n", want: '"email"' },
  ],
  [
    'an Int field for a string attribute',
    { from: "model: 'person',\n", to: "model: 'person', fields: { name: 'id' },\n", want: '"id"' },
  ],
  [
    'a relationship without its relation',
    {
      from: "comments: { field: 'comments', model: 'comment', foreignKey: 'articleId' },\n",
      to: '',
      want: 'comments',
      at: 'relationships: {',
    },
  ],
  [
    'a policy the schema consults left out',
    { from: 'policy: (ability, article, ctx) =>', to: 'polcy: (ability, article, ctx) =>', want: 'polcy' },
  ],
];

/** The first error of a program in which the store reads `text`. */
const firstError = (text: string, base: CompileBase) => firstErrorOf(STORE, text, base);

describe('mistakes in the Prisma mapping of the blog', () => {
  const base: CompileBase = { options: {} };
  beforeAll(() => {
    base.options = repositoryOptions();
    const { error, program } = firstError(SOURCE, base);
    expect(error).toBeUndefined();
    base.old = program;
  }, 120_000);

  it('a mapping without `filters` names the custom filter it lacks on the first line of its error', () => {
    const { error } = firstError(SOURCE.replace('filters: { search },', ''), base);
    expect(error).toMatch(
      new RegExp(
        `^examples/blog/prisma-store\\.ts:${SOURCE.slice(0, SOURCE.lastIndexOf('articles: {', SOURCE.indexOf('filters: { search },'))).split('\n').length}: `,
      ),
    );
    expect(firstLine(error)).toMatch(/is not assignable to type .WithCustomFilters<"search", ArticlesTypes> &/);
  }, 60_000);

  it('a mapping without `sorts` names the custom sorts it lacks on the first line of its error', () => {
    // The blog declares no custom sort: a resource of its types with two, mapped without them.
    const mistake = [
      "type SortedTags = Omit<import('./generated/index.js').TagsTypes, 'customSorts'> & { customSorts: 'popularity' | 'recent' };",
      "export const sortedTags: import('@jsonapi-gen/prisma').ResourceMapping<BlogPrisma, SortedTags> = { model: 'tag', relationships: { articles: { field: 'articles', through: { model: 'articleTag', from: 'tagId', to: 'articleId', relation: 'article' } } } };",
    ].join('\n');
    const { error } = firstError(`${SOURCE}\n${mistake}\n`, base);
    expect(error).toMatch(new RegExp(`^examples/blog/prisma-store\\.ts:${SOURCE.split('\n').length + 2}: `));
    expect(firstLine(error)).toMatch(/is not assignable to type .WithCustomSorts<"popularity" \| "recent"> &/);
    // With `sorts` given, the same mapping compiles.
    const sorted = mistake.replace(
      "model: 'tag',",
      "model: 'tag', sorts: { popularity: (d) => [{ name: d }], recent: (d) => [{ id: d }] },",
    );
    expect(firstError(`${SOURCE}\n${sorted}\n`, base).error).toBeUndefined();
  }, 60_000);

  it('an attribute with no field of its name must be mapped by `fields` to a field of its kind', () => {
    // The blog's attributes all have a field of their name: people with one more, `joined`.
    const types =
      "type Joined = Omit<import('./generated/index.js').PeopleTypes, 'model'> & { model: import('./generated/index.js').PeopleModel & { joined: Date | string } };";
    const mapping = (fields: string) =>
      `export const joined: import('@jsonapi-gen/prisma').ResourceMapping<BlogPrisma, Joined> = { model: 'person', ${fields}relationships: { articles: { field: 'articles', model: 'article', foreignKey: 'authorId' } } };`;
    const line = SOURCE.split('\n').length + 2;
    const unmapped = firstError(`${SOURCE}\n${types}\n${mapping('')}\n`, base).error;
    expect(unmapped).toMatch(new RegExp(`^examples/blog/prisma-store\\.ts:${line}: `));
    expect(unmapped).toContain("Property 'fields' is missing");
    expect(unmapped).toContain('FieldsMapping<"joined",');
    const wrongKind = firstError(`${SOURCE}\n${types}\n${mapping("fields: { joined: 'name' }, ")}\n`, base).error;
    expect(wrongKind).toMatch(new RegExp(`^examples/blog/prisma-store\\.ts:${line}: `));
    // The first line names the field and the kind of field it should be.
    // (TypeScript may print the fitting fields of another model with a DateTime field beside it.)
    expect(firstLine(wrongKind)).toMatch(/^Type '"name"' is not assignable to type '.*FittingField<BlogPrisma, .*Date/);
    expect(
      firstError(`${SOURCE}\n${types}\n${mapping("fields: { joined: 'createdAt' }, ")}\n`, base).error,
    ).toBeUndefined();
  }, 60_000);

  it.each(MISTAKES)(
    '%s fails at its line in prisma-store.ts',
    (_, { from, to, want, at }) => {
      expect(SOURCE).toContain(from);
      const text = SOURCE.replace(from, to);
      const index = at === undefined ? SOURCE.indexOf(from) : SOURCE.lastIndexOf(at, SOURCE.indexOf(from));
      const line = SOURCE.slice(0, index).split('\n').length;
      const { error } = firstError(text, base);
      expect(error).toMatch(new RegExp(`^examples/blog/prisma-store\\.ts:${line}: `));
      expect(error).toContain(want);
    },
    60_000,
  );
});
