/**
 * The demo's hooks, write policy, validation and meta getter are typed with the generated types,
 * and its resources are declared with `typedResources<Resources>()`, which holds each callback to
 * the resource it is declared on: each mistake below, made in examples/blog/schema.ts, fails to
 * compile with its first error in schema.ts, on the line of the mistake.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CompileBase, firstError, repositoryOptions } from '../support/first-error.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SCHEMA = join(ROOT, 'examples/blog/schema.ts');
const SOURCE = readFileSync(SCHEMA, 'utf8');

/** Each mistake: the text replaced in schema.ts, its replacement, and a word of the first error. */
const MISTAKES: Array<[string, { from: string; to: string; want: string }]> = [
  [
    'a saving hook answering an author of the wrong type',
    {
      from: "author: { type: 'people', id: user } } };",
      to: "author: { type: 'tags', id: user } } };",
      want: '"tags"',
    },
  ],
  [
    'a saving hook answering a title of the wrong kind',
    {
      from: 'return { ...values, relationships:',
      to: 'return { ...values, attributes: { ...values.attributes, title: 7 }, relationships:',
      want: 'number',
    },
  ],
  [
    'a write policy reading a model member that does not exist',
    {
      from: 'String(comment.authorId) ===',
      to: 'String(comment.writerId) ===',
      want: 'writerId',
    },
  ],
  [
    'a validation reading a stored member that does not exist',
    { from: ': stored?.status;', to: ': stored?.state;', want: 'state' },
  ],
  [
    "a saving hook typed with another resource's values",
    {
      from: 'Create.make().saving(authorFromUser),',
      to: "Create.make().saving(authorFromUser).saving<import('./generated/index.js').PeopleCreateValues>((values) => values),",
      want: 'PeopleCreateValues',
    },
  ],
  [
    "a saved hook typed with another resource's model",
    {
      from: "Update.make().visible(can('update')),",
      to: "Update.make().visible(can('update')).saved((person: import('./generated/index.js').PeopleModel) => person.name),",
      want: 'PeopleModel',
    },
  ],
  [
    "a write policy typed with another resource's model",
    {
      from: "Attribute.make('body').type('string').writable(byCommentAuthor)",
      to: "Attribute.make('body').type('string').writable((article: import('./generated/index.js').ArticlesModel | undefined) => article?.title !== '')",
      want: 'ArticlesModel',
    },
  ],
  [
    "a validation typed with another resource's values",
    {
      from: 'validate: publishedNeedsBody,',
      to: "validate: (values: import('./generated/index.js').PeopleCreateValues) => (values.attributes.name ? [] : undefined),",
      want: 'PeopleCreateValues',
    },
  ],
  [
    'a meta getter of another resource',
    {
      from: "Meta.make('wordCount').type('integer').get(wordCount)",
      to: "Meta.make('wordCount').type('integer').get((person: import('./generated/index.js').PeopleModel) => person.name.length)",
      want: 'PeopleModel',
    },
  ],
  [
    'a meta getter giving a value of the wrong kind',
    {
      from: "Meta.make('wordCount').type('integer').get(wordCount)",
      to: "Meta.make('wordCount').type('boolean').get(wordCount)",
      want: 'boolean',
    },
  ],
];

describe('hook types in examples/blog/schema.ts', () => {
  let base: CompileBase;
  beforeAll(() => {
    base = { options: repositoryOptions() };
    const clean = firstError(SCHEMA, SOURCE, base);
    expect(clean.error).toBeUndefined();
    base.old = clean.program;
  }, 120_000);

  it.each(MISTAKES)('%s is a compile error at its line', (_name, { from, to, want }) => {
    expect(SOURCE.split(from)).toHaveLength(2);
    const text = SOURCE.replace(from, to);
    const line = text.slice(0, text.indexOf(to)).split('\n').length;
    const { error } = firstError(SCHEMA, text, base);
    expect(error).toMatch(new RegExp(`^examples/blog/schema\\.ts:${line}: `));
    expect(error).toContain(want);
  });
});
