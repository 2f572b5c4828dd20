import { describe, expect, it } from 'vitest';
import { SchemaError } from '../../generator/errors.js';
import { checkSchema } from '../../generator/generate.js';
import { loadSchema } from '../../generator/load.js';
import { fixtureFile, loadFixture } from './fixtures.js';

interface Want {
  line: number;
  column: number;
  message: string;
  /** The offending line, as quoted under the message. */
  quoted: string;
}

const cases: Array<[string, { given: string; want: Want }]> = [
  [
    'unknown related type',
    {
      given: 'unknown-related-type.ts',
      want: {
        line: 7,
        column: 26,
        message: 'relationship "author" relates to "persons"',
        quoted: "ToOne.make('author').type('persons')",
      },
    },
  ],
  [
    'illegal field name',
    {
      given: 'illegal-field-name.ts',
      want: {
        line: 5,
        column: 52,
        message: 'field "first name" is not a legal member name',
        quoted: "Attribute.make('first name')",
      },
    },
  ],
  [
    'illegal resource type',
    {
      given: 'illegal-type-name.ts',
      want: {
        line: 4,
        column: 9,
        message: 'resource type "blog posts" is not a legal member name',
        quoted: "type: 'blog posts'",
      },
    },
  ],
  [
    'field named id',
    {
      given: 'field-named-id.ts',
      want: { line: 6, column: 20, message: '"id" cannot be a field name', quoted: "Attribute.make('id')" },
    },
  ],
  [
    'filter without Index',
    {
      given: 'filter-without-index.ts',
      want: {
        line: 7,
        column: 31,
        message: 'filter "title" needs an Index endpoint',
        quoted: "CustomFilter.make('title'",
      },
    },
  ],
  [
    'sort without Index',
    {
      given: 'sort-without-index.ts',
      want: { line: 7, column: 27, message: 'sort "title" needs an Index endpoint', quoted: "CustomSort.make('title'" },
    },
  ],
  [
    'countable() without paginate()',
    {
      given: 'countable-without-paginate.ts',
      want: { line: 6, column: 28, message: 'countable() needs paginate()', quoted: 'Index.make().countable()' },
    },
  ],
  [
    'paginate() on a Show',
    {
      given: 'paginate-on-show.ts',
      want: {
        line: 9,
        column: 14,
        message: 'paginate() applies to the Index endpoint only',
        quoted: 'endpoints: [paginatedShow',
      },
    },
  ],
  [
    'duplicate field',
    {
      given: 'duplicate-field.ts',
      want: {
        line: 8,
        column: 20,
        message: 'field "title" is declared twice',
        quoted: "Attribute.make('title').nullable()",
      },
    },
  ],
  [
    'duplicate resource type',
    {
      given: 'duplicate-type.ts',
      want: { line: 10, column: 9, message: 'resource type "articles" is declared twice', quoted: "type: 'articles'" },
    },
  ],
  [
    'duplicate sort',
    {
      given: 'duplicate-sort.ts',
      want: {
        line: 7,
        column: 63,
        message: 'sort "title" is declared twice',
        quoted: "CustomSort.make('title', (q) => q)]",
      },
    },
  ],
  [
    'Where on a to-many',
    {
      given: 'where-on-to-many.ts',
      want: {
        line: 7,
        column: 24,
        message: "Where.make('tags') names no attribute or to-one relationship of articles",
        quoted: "Where.make('tags')",
      },
    },
  ],
  [
    'duplicate endpoint',
    {
      given: 'duplicate-endpoint.ts',
      want: { line: 6, column: 28, message: 'the show endpoint is declared twice', quoted: 'Show.make(), Show.make()' },
    },
  ],
  [
    'default sort naming no sort',
    {
      given: 'unknown-default-sort.ts',
      want: { line: 6, column: 28, message: 'the default sort names "createdAt"', quoted: "defaultSort('-createdAt')" },
    },
  ],
  // What the builders were given: the runtime's rules (runtime/dsl/declaration-rules.ts), at the builder call.
  [
    'a pattern that is not a RegExp',
    {
      given: 'pattern-not-regexp.ts',
      want: {
        line: 7,
        column: 28,
        message: 'attribute "isbn": pattern() takes a RegExp, such as /^97/, not the string "^97"',
        quoted: ".pattern('^97' as never)",
      },
    },
  ],
  [
    'a length that is not a whole number',
    {
      given: 'length-not-whole.ts',
      want: {
        line: 5,
        column: 49,
        message: 'attribute "title": maxLength() takes a whole number of characters, 0 or more, not 2.5',
        quoted: '.maxLength(2.5)',
      },
    },
  ],
  [
    'min above max',
    {
      given: 'min-above-max.ts',
      want: { line: 6, column: 53, message: 'attribute "pages": min(10) is above max(5)', quoted: '.min(10).max(5)' },
    },
  ],
  [
    'a bound that is not a number',
    {
      given: 'bound-not-number.ts',
      want: {
        line: 7,
        column: 52,
        message: 'attribute "pages": max() takes a finite number, not the string "500"',
        quoted: '.max(limits.pages as never)',
      },
    },
  ],
  [
    'an enum value listed twice',
    {
      given: 'enum-twice.ts',
      want: {
        line: 6,
        column: 30,
        message: `attribute "format": type('enum', values) lists "hardcover" twice`,
        quoted: ".type('enum', ['hardcover'",
      },
    },
  ],
  [
    'enum values that are not strings',
    {
      given: 'enum-not-strings.ts',
      want: {
        line: 5,
        column: 38,
        message: `attribute "edition": type('enum', values) takes strings, not 1`,
        quoted: ".type('enum', [1, 2, 3]",
      },
    },
  ],
  [
    'a default of the wrong kind',
    {
      given: 'default-of-wrong-kind.ts',
      want: {
        line: 7,
        column: 56,
        message: 'attribute "pages": default("300"): the value must be an integer',
        quoted: ".default('300')",
      },
    },
  ],
  [
    'an operator that does not apply to the kind',
    {
      given: 'operator-not-for-kind.ts',
      want: {
        line: 7,
        column: 33,
        message: 'filter "pages": "contains" does not apply to an integer attribute',
        quoted: ".operators('gte', 'contains')",
      },
    },
  ],
  [
    'an operator that does not exist',
    {
      given: 'unknown-operator.ts',
      want: {
        line: 7,
        column: 33,
        message: 'filter "title": operators() takes one or more of eq, ne, in,',
        quoted: ".operators('eq', 'like' as never)",
      },
    },
  ],
  [
    "an operator that does not apply to a path's attribute",
    {
      given: 'path-operator-not-for-kind.ts',
      want: {
        line: 7,
        column: 41,
        message: 'filter "author.living": "lt" does not apply to a boolean attribute',
        quoted: ".operators('lt')",
      },
    },
  ],
  [
    'paginate() with the default above the maximum',
    {
      given: 'paginate-default-above-max.ts',
      want: {
        line: 6,
        column: 28,
        message: 'the index endpoint: paginate(50, 10): the default limit is above the maximum',
        quoted: '.paginate(50, 10)',
      },
    },
  ],
  [
    'an attribute and a relationship of one name',
    {
      given: 'field-and-relationship.ts',
      want: { line: 7, column: 16, message: 'field "author" is declared twice', quoted: "ToOne.make('author')" },
    },
  ],
  // Rules registration had and build did not: the runtime's, now run by both.
  [
    'cursor() without paginate()',
    {
      given: 'cursor-without-paginate.ts',
      want: {
        line: 6,
        column: 28,
        message: 'the index endpoint: cursor() needs paginate()',
        quoted: 'Index.make().cursor()',
      },
    },
  ],
  [
    'a sort path naming no attribute of the related resource',
    {
      given: 'sort-path-to-missing-attribute.ts',
      want: {
        line: 7,
        column: 23,
        message: `SortBy.make('author.nickname') names no to-one relationship's attribute of articles: the related resource has no attribute "nickname"`,
        quoted: "SortBy.make('author.nickname')",
      },
    },
  ],
  [
    'duplicate filter',
    {
      given: 'duplicate-filter.ts',
      want: {
        line: 7,
        column: 45,
        message: 'filter "title" is declared twice',
        quoted: "Where.make('title').caseInsensitive()",
      },
    },
  ],
];

function caught(run: () => unknown): SchemaError {
  try {
    run();
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error('no SchemaError');
}

describe('schema mistakes', () => {
  it.each(cases)('%s is reported at file:line:col with the line quoted', async (_, { given, want }) => {
    const loaded = await loadFixture(`errors/${given}`);
    const error = caught(() => checkSchema(loaded));
    expect(error.problems).toHaveLength(1);
    const [problem] = error.problems;
    expect(problem).toMatchObject({ file: fixtureFile(`errors/${given}`), line: want.line, column: want.column });
    expect(problem!.message).toContain(want.message);
    const text = error.format(fixtureFile('..'));
    const [head, , quoted, caret] = text.split('\n');
    expect(head).toBe(`fixtures/errors/${given}:${want.line}:${want.column} - error: ${problem!.message}`);
    expect(quoted).toContain(want.quoted);
    expect(quoted).toMatch(new RegExp(`^  ${want.line} \\| `));
    expect(caret!.indexOf('^') - caret!.indexOf('|') - 2).toBe(want.column - 1);
  });

  it('reports a file exporting no resource', async () => {
    await expect(loadSchema(fixtureFile('errors/no-resources.ts'))).rejects.toThrow('the schema exports no resource');
  });

  it('reports every fixture of the happy path as valid', async () => {
    for (const name of ['minimal', 'blog', 'kitchen-sink']) checkSchema(await loadFixture(`${name}/schema.ts`));
  });
});
