/**
 * The blog's Drizzle mapping is checked against the generated `Resources` and the Drizzle
 * tables: each mistake below, made in examples/blog/drizzle-store.ts, fails to compile with its
 * first error in drizzle-store.ts, on the line of the mistake, naming what is wrong.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CompileBase, firstError as firstErrorOf, firstLine, repositoryOptions } from '../support/first-error.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const STORE = join(ROOT, 'examples/blog/drizzle-store.ts');
const SOURCE = readFileSync(STORE, 'utf8');

/**
 * Each mistake: the text replaced in drizzle-store.ts, its replacement, and what the first
 * error's first line says; `at`: where the error is reported when not at the mistake's line.
 */
const MISTAKES: Array<[string, { from: string; to: string; want: RegExp; at?: string }]> = [
  ['a misspelt version column', { from: "version: 'version',", to: "version: 'versoin',", want: /"versoin"/ }],
  [
    'a misspelt id column',
    {
      from: 'people: { table: tables.people, serverColumns: createdAt },',
      to: "people: { table: tables.people, serverColumns: createdAt, id: 'ID' },",
      want: /"ID"/,
    },
  ],
  [
    'an attribute mapped to a column of the wrong kind',
    {
      from: 'people: { table: tables.people, serverColumns: createdAt },',
      to: "people: { table: tables.people, serverColumns: createdAt, columns: { name: 'id' } },",
      want: /^Type '"id"' is not assignable to type '"body" \| "name"/,
    },
  ],
  [
    'a table without a column for an attribute',
    { from: 'tags: { table: tables.tags },', to: 'tags: { table: tables.articleTags },', want: /columns/ },
  ],
  [
    "a to-one foreign key that is another table's column",
    {
      from: 'table: comments,\n',
      to: 'table: comments, relationships: { author: { foreignKey: articles.authorId } },\n',
      want: /authorId|articles/,
    },
  ],
  [
    'a to-many foreign key that is no column of the related table',
    {
      from: 'table: articles,\n',
      to: 'table: articles, relationships: { comments: { table: comments, foreignKey: articles.authorId } },\n',
      want: /comments|articles/,
    },
  ],
  [
    'a to-one relationship mapped as a to-many one',
    {
      from: 'table: comments,\n',
      to: 'table: comments, relationships: { article: { table: articles, foreignKey: comments.articleId } },\n',
      want: /article/,
    },
  ],
  [
    'a relationship neither mapped nor declared with relations()',
    {
      from: 'people: { table: tables.people, serverColumns: createdAt },',
      to: "people: { table: tables.people, serverColumns: createdAt, relationships: { articles: 'posts' } },",
      want: /is not assignable to type 'TableMappings<.*PeopleTypes>'/,
    },
  ],
  [
    'a policy the schema consults left out',
    { from: 'policy: (ability, article, ctx) =>', to: 'polcy: (ability, article, ctx) =>', want: /polcy/ },
  ],
];

/** The first error of a program in which the store reads `text`. */
const firstError = (text: string, base: CompileBase) => firstErrorOf(STORE, text, base);

describe('mistakes in the Drizzle mapping of the blog', () => {
  const base: CompileBase = { options: {} };
  beforeAll(() => {
    base.options = repositoryOptions();
    const { error, program } = firstError(SOURCE, base);
    expect(error).toBeUndefined();
    base.old = program;
  }, 120_000);

  it('a mapping without `filters` names the custom filter it lacks on the first line of its error', () => {
    const from = 'filters: { search: (value) => sql`(${search(value)})` },';
    expect(SOURCE).toContain(from);
    const { error } = firstError(SOURCE.replace(from, ''), base);
    const line = SOURCE.slice(0, SOURCE.lastIndexOf('articles: {', SOURCE.indexOf(from))).split('\n').length;
    expect(error).toMatch(new RegExp(`^examples/blog/drizzle-store\\.ts:${line}: `));
    expect(firstLine(error)).toMatch(/WithCustomFilters<"search", ArticlesTypes>/);
  }, 60_000);

  it.each(MISTAKES)(
    '%s fails at its line in drizzle-store.ts',
    (_, { from, to, want, at }) => {
      expect(SOURCE).toContain(from);
      const text = SOURCE.replace(from, to);
      const index = at === undefined ? SOURCE.indexOf(from) : SOURCE.lastIndexOf(at, SOURCE.indexOf(from));
      const line = SOURCE.slice(0, index).split('\n').length;
      const { error } = firstError(text, base);
      expect(error).toMatch(new RegExp(`^examples/blog/drizzle-store\\.ts:${line}: `));
      expect(firstLine(error)).toMatch(want);
    },
    60_000,
  );
});
