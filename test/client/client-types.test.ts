/**
 * The generated client's types (examples/blog/generated/client.ts): a program using it well
 * compiles, and each misuse below, one line of that program changed, fails to compile at that
 * line. All programs are checked in one compiler run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileHosts } from '../support/compile.js';

/** One statement or member per line, so that an error's line names the misuse. */
const GOOD = `import { createClient } from '../../examples/blog/generated/client.js';

/** True when A and B are the same union. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const client = createClient({ baseUrl: 'http://127.0.0.1:1' });

export async function run() {
  const page = await client.articles.list({
    include: ['author'],
    fields: { articles: ['title', 'author'] },
    filter: {
      createdAt: { gte: '2026-01-01T00:00:00Z' },
      status: 'draft',
      or: [{ title: { contains: 'a' } }, { 'author.name': 'Ada' }],
      not: { tagCount: { gt: 2 } },
    },
    sort: ['-createdAt'],
    page: { limit: 2 },
  });
  const article = page.data[0]!;
  const title: string = article.attributes.title;
  const onlyTitle: Same<keyof typeof article.attributes, 'title'> = true;
  const onlyAuthor: Same<keyof typeof article.relationships, 'author'> = true;
  const included: Same<(typeof page.included)[number]['type'], 'people'> = true;
  const name: string = page.included[0]!.attributes.name;
  const plain = await client.articles.get('1');
  const body: string | null = plain.data.attributes.body;
  const tags = await client.articles.relationship('1', 'tags');
  const tagId: string = tags.data[0]!.id;
  await client.articles.addTo('1', 'tags', ['2']);
  await client.articles.create({ attributes: { title: 'New' }, relationships: { author: { type: 'people', id: '1' } } });
  return [title, onlyTitle, onlyAuthor, included, name, body, tagId];
}
`;

/** Each misuse: the line of GOOD replaced, its replacement, and a word of the error. */
const MISUSES: Array<[string, { from: string; to: string; want: string }]> = [
  [
    'an include path the schema does not declare',
    { from: "include: ['author'],", to: "include: ['editor'],", want: '"editor"' },
  ],
  [
    'a field of another type',
    {
      from: "fields: { articles: ['title', 'author'] },",
      to: "fields: { articles: ['title', 'name'] },",
      want: '"name"',
    },
  ],
  [
    'an operator the filter does not take',
    { from: "createdAt: { gte: '2026-01-01T00:00:00Z' },", to: "createdAt: { contains: '2026' },", want: 'contains' },
  ],
  ['a value outside the enum', { from: "status: 'draft',", to: "status: 'archived',", want: '"archived"' }],
  ['a filter the schema does not declare', { from: "status: 'draft',", to: "body: 'x',", want: 'body' }],
  ['a sort the schema does not declare', { from: "sort: ['-createdAt'],", to: "sort: ['-body'],", want: '"-body"' }],
  [
    'reading included after asking no include',
    {
      from: 'const body: string | null = plain.data.attributes.body;',
      to: 'const body = plain.included;',
      want: 'included',
    },
  ],
  [
    'reading an attribute outside fields',
    {
      from: 'const title: string = article.attributes.title;',
      to: 'const title: string = article.attributes.body;',
      want: 'body',
    },
  ],
  [
    'a linkage write on a relationship that is not writable',
    {
      from: "await client.articles.addTo('1', 'tags', ['2']);",
      to: "await client.articles.addTo('1', 'comments', ['2']);",
      want: '"comments"',
    },
  ],
  [
    'a create without a required attribute',
    {
      from: "attributes: { title: 'New' }, relationships",
      to: "attributes: { body: 'New' }, relationships",
      want: 'title',
    },
  ],
];

describe('the generated client types', () => {
  let errors: Map<string, string[]>;
  beforeAll(() => {
    const files: Record<string, string> = { 'good.ts': GOOD };
    MISUSES.forEach(([, { from, to }], i) => {
      expect(GOOD.split(from), from).toHaveLength(2);
      files[`misuse-${i}.ts`] = GOOD.replace(from, to);
    });
    errors = compileHosts('.tmp/client-types', files);
  }, 120_000);

  it('a program using the client well compiles', () => {
    expect(errors.get('good.ts')).toBeUndefined();
  });

  it.each(MISUSES.map(([name, misuse], i) => [name, misuse, i] as const))(
    '%s is a compile error at its line',
    (_name, { from, want }, i) => {
      const line = GOOD.slice(0, GOOD.indexOf(from)).split('\n').length;
      const [first] = errors.get(`misuse-${i}.ts`) ?? [];
      expect(first).toMatch(new RegExp(`^${line}: `));
      expect(first).toContain(want);
    },
  );
});
