/**
 * The blog's Kysely mapping is checked against the generated `Resources` and the `Database`
 * type: each mistake below, made in examples/blog/store.ts, fails to compile with its first
 * error in store.ts, on the line of the mistake, naming what is wrong.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CompileBase, firstError as firstErrorOf, firstLine, repositoryOptions } from '../support/first-error.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const STORE = join(ROOT, 'examples/blog/store.ts');
const SOURCE = readFileSync(STORE, 'utf8');

/**
 * Each mistake: the text replaced in store.ts, its replacement, and what the first error says;
 * `at`: for a member left out, the enclosing member the error is reported at (the nearest line
 * above the mistake that holds it).
 */
const MISTAKES: Array<[string, { from: string; to: string; want: string; at?: string }]> = [
  [
    'a misspelt column',
    {
      from: "columns: { createdAt: 'created_at' },",
      to: "columns: { createdAt: 'created_on' },",
      want: '"created_on"',
    },
  ],
  ['a camelCase attribute left unmapped', { from: "updatedAt: 'updated_at', ", to: '', want: 'updatedAt' }],
  ['a wrong table', { from: "table: 'tags',\n", to: "table: 'tag',\n", want: '"tag"' }],
  [
    'a column of the wrong kind',
    {
      from: "columns: { createdAt: 'created_at', updatedAt",
      to: "columns: { createdAt: 'author_id', updatedAt",
      want: '"author_id"',
    },
  ],
  [
    'a relationship without its mapping',
    {
      from: "comments: { type: 'toMany', table: 'comments', foreignKey: 'article_id' },",
      to: '',
      want: 'comments',
      at: 'relationships: {',
    },
  ],
  [
    'a custom filter without its function',
    { from: 'filters: { search },', to: '', want: 'filters', at: 'articles: {' },
  ],
];

/** The first error of a program in which the store reads `text`. */
const firstError = (text: string, base: CompileBase) => firstErrorOf(STORE, text, base);

describe('mistakes in the Kysely mapping of the blog', () => {
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
        `^examples/blog/store\\.ts:${SOURCE.slice(0, SOURCE.lastIndexOf('articles: {', SOURCE.indexOf('filters: { search },'))).split('\n').length}: `,
      ),
    );
    expect(firstLine(error)).toMatch(/is not assignable to type .WithCustomFilters<"search", ArticlesTypes> &/);
  }, 60_000);

  it('a mapping without `sorts` names the custom sorts it lacks on the first line of its error', () => {
    // The blog declares no custom sort: a resource of its types with two, mapped without them.
    const mistake = [
      "type SortedArticles = Omit<import('./generated/index.js').ArticlesTypes, 'customSorts'> & { customSorts: 'popularity' | 'recent' };",
      "export const sortedArticles: import('@jsonapi-gen/kysely').ResourceMapping<Database, SortedArticles> = { table: 'articles', columns: { createdAt: 'created_at', updatedAt: 'updated_at', authorId: 'author_id' }, filters: { search }, relationships: { author: { type: 'toOne', foreignKey: 'author_id' }, comments: { type: 'toMany', table: 'comments', foreignKey: 'article_id' }, tags: { type: 'toMany', through: { table: 'article_tags', from: 'article_id', to: 'tag_id' } } }, policy: () => true };",
    ].join('\n');
    const { error } = firstError(`${SOURCE}\n${mistake}\n`, base);
    expect(error).toMatch(new RegExp(`^examples/blog/store\\.ts:${SOURCE.split('\n').length + 2}: `));
    expect(firstLine(error)).toMatch(
      /is not assignable to type .WithCustomFilters<"search", SortedArticles> & \(?WithCustomSorts<"popularity" \| "recent"> &/,
    );
    // With `sorts` given, the same mapping compiles.
    expect(
      firstError(
        `${SOURCE}\n${mistake.replace('policy: () => true', 'policy: () => true, sorts: { popularity: (q) => q, recent: (q) => q }')}\n`,
        base,
      ).error,
    ).toBeUndefined();
  }, 60_000);

  it.each(MISTAKES)(
    '%s fails at its line in store.ts',
    (_, { from, to, want, at }) => {
      expect(SOURCE).toContain(from);
      const text = SOURCE.replace(from, to);
      const index = at === undefined ? SOURCE.indexOf(from) : SOURCE.lastIndexOf(at, SOURCE.indexOf(from));
      const line = SOURCE.slice(0, index).split('\n').length;
      const { error } = firstError(text, base);
      expect(error).toMatch(new RegExp(`^examples/blog/store\\.ts:${line}: `));
      expect(error).toContain(want);
    },
    60_000,
  );
});
