/**
 * `jsonapi-gen diff` and the generated client agree: a program written against the client of
 * the demo's schema compiles against the client of a changed schema exactly when `diff` calls
 * the change non-breaking. Each change below is made to a copy of examples/blog/schema.ts, built
 * with the generator, compared with `compareApis`, and the same program compiled against it.
 *
 * Some breaking changes alter only behaviour (the default order, a tighter constraint): no
 * compiler sees them, so the program still compiles. They are listed apart, as what types
 * cannot promise, and asserted as such.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { verdict } from '../../generator/diff/changes.js';
import { compareApis } from '../../generator/diff/compare.js';
import { describeInput } from '../../generator/diff/inputs.js';
import { writeFiles } from '../../generator/files.js';
import { generateFrom } from '../../generator/generate.js';
import { resourcesOf } from '../../generator/load.js';
import ts from 'typescript';
import { ROOT, repositoryOptions } from '../support/compile.js';

const DIR = '.tmp/client-evolution';
const SCHEMA = readFileSync(join(ROOT, 'examples/blog/schema.ts'), 'utf8');

/** A client program of the demo's API, as its authors would write it against the old client. */
const PROGRAM = `import { createClient } from './generated/client.js';

const client = createClient({ baseUrl: 'http://127.0.0.1:1', headers: { authorization: 'Bearer 1' } });

export async function run() {
  const page = await client.articles.list({
    include: ['author', 'tags'],
    fields: { articles: ['title', 'body', 'status', 'author', 'tags'], people: ['name'] },
    filter: {
      title: { contains: 'json' },
      createdAt: { gte: '2026-01-01T00:00:00Z' },
      status: ['draft'],
      or: [{ 'author.name': 'Ada' }, { commentCount: { gt: 1 } }],
    },
    sort: ['-createdAt', 'title'],
    page: { size: 10 },
    withCount: ['comments'],
  });
  const article = page.data[0]!;
  const title: string = article.attributes.title;
  const body: string | null = article.attributes.body;
  const status: 'draft' | 'published' = article.attributes.status;
  const names = page.included.flatMap((r) => (r.type === 'people' ? [r.attributes.name] : []));
  const created = await client.articles.create({
    attributes: { title: 'New' },
    relationships: { author: { type: 'people', id: '1' } },
  });
  await client.articles.update(created.data.id, { attributes: { status: 'published' } });
  await client.articles.addTo(created.data.id, 'tags', ['2']);
  await client.articles.delete(created.data.id);
  const people = await client.people.list({ filter: { name: 'Ada' }, sort: ['name'], page: { limit: 5 } });
  const comment = await client.comments.get('1', { include: ['author'] });
  return [title, body, status, names, people.data.length, comment.included.length];
}
`;

/** A change: the text of schema.ts replaced, and its replacement. */
type Change = { from: string; to: string };

const NON_BREAKING: Array<[string, Change]> = [
  [
    'an optional attribute added',
    {
      from: "Attribute.make('body').type('string').nullable().writable(),",
      to: "Attribute.make('body').type('string').nullable().writable(),\n    Attribute.make('subtitle').type('string').nullable().writable(),",
    },
  ],
  [
    'an operator added',
    {
      from: "Where.make('title').operators('eq', 'contains', 'startsWith', 'endsWith'),",
      to: "Where.make('title').operators('eq', 'ne', 'contains', 'startsWith', 'endsWith'),",
    },
  ],
  [
    'a filter added',
    {
      from: "filters: [Where.make('article'), Where.make('author')],",
      to: "filters: [Where.make('article'), Where.make('author'), Where.make('body')],",
    },
  ],
  [
    'a sort added',
    { from: "sorts: [SortBy.make('createdAt')],", to: "sorts: [SortBy.make('createdAt'), SortBy.make('body')]," },
  ],
  [
    'cursor pagination added',
    {
      from: "Index.make().paginate(20, 50).defaultSort('name'),\n    Create.make(),\n    Update.make(),\n    Delete.make(),\n  ],\n  filters: [Where.make('name'), WhereCount",
      to: "Index.make().paginate(20, 50).cursor().defaultSort('name'),\n    Create.make(),\n    Update.make(),\n    Delete.make(),\n  ],\n  filters: [Where.make('name'), WhereCount",
    },
  ],
  [
    'a relationship made writable',
    {
      from: "ToMany.make('comments').type('comments').includable().countable(),",
      to: "ToMany.make('comments').type('comments').includable().writable().countable(),",
    },
  ],
];

const BREAKING: Array<[string, Change]> = [
  ['an attribute removed', { from: "    Attribute.make('body').type('string').nullable().writable(),\n", to: '' }],
  [
    'an enum value added',
    {
      from: "Attribute.make('status').type('enum', ['draft', 'published'])",
      to: "Attribute.make('status').type('enum', ['draft', 'published', 'archived'])",
    },
  ],
  [
    'an operator removed',
    {
      from: "Where.make('createdAt').operators('eq', 'ne', 'lt', 'lte', 'gt', 'gte'),",
      to: "Where.make('createdAt').operators('eq', 'ne', 'lt', 'lte', 'gt'),",
    },
  ],
  [
    'an include path removed',
    {
      from: "ToMany.make('tags').type('tags').includable().writable().countable(),",
      to: "ToMany.make('tags').type('tags').writable().countable(),",
    },
  ],
  ['an endpoint removed', { from: "    Delete.make().visible(can('delete')),\n", to: '' }],
  [
    'an attribute made required',
    {
      from: "Attribute.make('body').type('string').nullable().writable(),",
      to: "Attribute.make('body').type('string').nullable().writable().required(),",
    },
  ],
  ['a sort removed', { from: "    SortBy.make('title'),\n", to: '' }],
  [
    'a relationship made read-only',
    {
      from: "ToMany.make('tags').type('tags').includable().writable().countable(),",
      to: "ToMany.make('tags').type('tags').includable().countable(),",
    },
  ],
];

/** A word of the first error each breaking change gives the program: where it uses what changed. */
const WANT: Record<string, string> = {
  'an attribute removed': '"body"',
  'an enum value added': '"archived"',
  'an operator removed': "'gte'",
  'an include path removed': '"tags"',
  'an endpoint removed': "'delete'",
  'an attribute made required': '{ title: string; }',
  'a sort removed': '"title"',
  'a relationship made read-only': "'addTo'",
};

/** Breaking changes of behaviour only: the program compiles, and diff still says major. */
const BREAKING_UNSEEN_BY_TYPES: Array<[string, Change]> = [
  ['the default sort changed', { from: ".cursor().defaultSort('-createdAt')", to: ".cursor().defaultSort('title')" }],
  [
    'a constraint tightened',
    {
      from: "Attribute.make('title').type('string').writable().required(),",
      to: "Attribute.make('title').type('string').maxLength(200).writable().required(),",
    },
  ],
];

const CASES = [...NON_BREAKING, ...BREAKING, ...BREAKING_UNSEEN_BY_TYPES];

/** Writes `schema` into `case`'s folder and builds it: the folder's generated/ and its API description. */
async function build(name: string, schema: string) {
  const dir = join(ROOT, DIR, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'schema.ts');
  writeFileSync(file, schema);
  const loaded = resourcesOf(file, (await import(file)) as Record<string, unknown>);
  writeFiles(join(dir, 'generated'), (await generateFrom(loaded, join(dir, 'generated'))).files);
  return describeInput(join(dir, 'generated'));
}

/** Writes each program (path under DIR → text) and compiles them in one program: each one's errors, as "line: message". */
function compile(programs: Record<string, string>): Map<string, string[]> {
  const root = join(ROOT, DIR);
  for (const [path, text] of Object.entries(programs)) writeFileSync(join(root, path), text);
  const program = ts.createProgram(
    Object.keys(programs).map((path) => join(root, path)),
    repositoryOptions(),
  );
  const errors = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (!d.file || d.start === undefined) continue;
    const path = d.file.fileName.slice(root.length + 1);
    if (!(path in programs)) continue;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    errors.set(path, [
      ...(errors.get(path) ?? []),
      `${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`,
    ]);
  }
  return errors;
}

describe('a client program written against the old client', () => {
  const verdicts = new Map<string, string>();
  let errors: Map<string, string[]>;

  beforeAll(async () => {
    rmSync(join(ROOT, DIR), { recursive: true, force: true });
    const before = await build('old', SCHEMA);
    const programs: Record<string, string> = { 'old/program.ts': PROGRAM };
    for (const [i, [, { from, to }]] of CASES.entries()) {
      expect(SCHEMA.split(from), from).toHaveLength(2);
      const after = await build(`case-${i}`, SCHEMA.replace(from, to));
      verdicts.set(`case-${i}`, verdict(compareApis(before, after)));
      programs[`case-${i}/program.ts`] = PROGRAM;
    }
    errors = compile(programs);
  }, 300_000);

  it('compiles against the client it was written for', () => {
    expect(errors.get('old/program.ts')).toBeUndefined();
  });

  const indexed = <T>(list: Array<[string, T]>, offset: number) =>
    list.map(([name, change], i) => [name, change, `case-${offset + i}`] as const);

  it.each(indexed(NON_BREAKING, 0))('%s: diff says minor, and the program still compiles', (_name, _change, key) => {
    expect(verdicts.get(key)).toBe('minor');
    expect(errors.get(`${key}/program.ts`)).toBeUndefined();
  });

  it.each(indexed(BREAKING, NON_BREAKING.length))(
    '%s: diff says major, and the program no longer compiles',
    (name, _change, key) => {
      expect(verdicts.get(key)).toBe('major');
      const [first] = errors.get(`${key}/program.ts`) ?? [];
      expect(first).toContain(WANT[name]!);
    },
  );

  it.each(indexed(BREAKING_UNSEEN_BY_TYPES, NON_BREAKING.length + BREAKING.length))(
    '%s: diff says major; types cannot see it, so the program compiles',
    (_name, _change, key) => {
      expect(verdicts.get(key)).toBe('major');
      expect(errors.get(`${key}/program.ts`)).toBeUndefined();
    },
  );
});
