/**
 * A host wraps the Kysely store's data layers (to log, to filter) where it binds them: the
 * wrappers compile without a cast, contextually typed by the generated `DataLayers`, and a
 * wrapper that gives or takes the wrong models still fails on its line.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileHosts, markedLine } from '../support/compile.js';

/** The blog demo's generated code and store, as a host next to it has them. */
const PRELUDE = `import type { Kysely } from 'kysely';
import { createApi, type ArticlesDataLayer } from '../../examples/blog/generated/index.js';
import { createStore } from '../../examples/blog/store.js';
import type { Database } from '../../examples/blog/db.js';
declare const db: Kysely<Database>;
const store = createStore(db);
`;

const GOOD = `${PRELUDE}
export const api = createApi({
  ...store,
  articles: {
    ...store.articles,
    related: {
      ...store.articles.related,
      // Logged: the store's loader, called as the runtime calls it.
      author: async (models, ctx, relationship) => {
        console.log(\`authors of \${models.length} articles\`);
        return store.articles.related.author(models, ctx, relationship);
      },
      // Filtered: one entry per model still, each a list of tags.
      tags: async (models, ctx, relationship) =>
        (await store.articles.related.tags(models, ctx, relationship)).map((tags) => tags.filter((tag) => tag.name !== 'internal')),
    },
    can: (ability, model, ctx) => store.articles.can(ability, model, ctx),
    delete: (model, ctx) => store.articles.delete(model, ctx),
  },
});

/** The same, outside createApi: typed by the generated data layer. */
export const articles: ArticlesDataLayer = {
  ...store.articles,
  related: { ...store.articles.related, comments: (models, ctx, relationship) => store.articles.related.comments(models, ctx, relationship) },
};
`;

/** One wrong wrapper each, on the line marked `// error:`, and what its first error says. */
const MISTAKES: Array<[string, { code: string; want: string }]> = [
  [
    'a loader giving another relationship’s models',
    {
      code: 'related: { ...store.articles.related, author: (models, ctx, relationship) => store.articles.related.tags(models, ctx, relationship) }, // error:',
      want: "is not assignable to type 'MaybePromise<readonly (PeopleModelFields | null)[]>'",
    },
  ],
  [
    'a loader passing its models to another resource’s loader',
    {
      code: 'related: { ...store.articles.related, author: async (models, ctx, relationship) => (await store.people.related.articles(models, ctx, relationship), store.articles.related.author(models, ctx, relationship)) }, // error:',
      want: "Argument of type 'readonly ArticlesModelFields[]' is not assignable to parameter of type 'readonly StoreModel<PeopleTypes>[]'",
    },
  ],
  [
    'a loader whose relationship is not a Relationship',
    {
      code: 'related: { ...store.articles.related, author: (models, ctx, relationship: string) => store.articles.related.author(models, ctx, relationship) }, // error:',
      want: "is not assignable to type '(models: readonly ArticlesModelFields[], context: Context, relationship: Relationship) =>",
    },
  ],
];

const hostOf = (code: string) => `${PRELUDE}
export const articles: ArticlesDataLayer = {
  ...store.articles,
  ${code}
};
`;
const fileOf = (name: string) => `${name.replace(/\W+/g, '-')}.ts`;

describe('wrapping the Kysely store’s loaders', () => {
  let errors: Map<string, string[]>;
  beforeAll(() => {
    errors = compileHosts('.tmp/loader-types', {
      'good.ts': GOOD,
      ...Object.fromEntries(MISTAKES.map(([name, { code }]) => [fileOf(name), hostOf(code)])),
    });
  }, 120_000);

  it('compiles without a cast, in createApi and typed by the generated data layer', () => {
    const judged = new Set(MISTAKES.map(([name]) => fileOf(name)));
    expect(Object.fromEntries([...errors].filter(([file]) => !judged.has(file)))).toEqual({});
  });

  it.each(MISTAKES)('%s fails on its line', (name, { code, want }) => {
    const found = errors.get(fileOf(name)) ?? [];
    expect(found[0]).toMatch(new RegExp(`^${markedLine(hostOf(code))}: `));
    expect(found[0]).toContain(want);
  });
});
