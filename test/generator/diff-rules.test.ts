/**
 * `jsonapi-gen diff`'s rules, one schema change per row: the old and the new declaration of
 * `articles` (beside a fixed `people`, and a `tags` where a row needs it), the kinds of change
 * expected and the verdict. Each row runs twice: on the two schema files, and on the two
 * folders `build` writes from them (their `schema.json`), which must report the same.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../generator/cli.js';
import { diff } from '../../generator/diff/command.js';
import { type Io, styles } from '../../generator/output.js';
import { ROOT } from './fixtures.js';

const DIR = join(ROOT, '.tmp', 'generator', 'diff-rules');

/** The parts of `articles` a row changes; each part left out is the base's. */
interface Articles {
  fields?: string;
  endpoints?: string;
  filters?: string;
  sorts?: string;
  /** The meta members of articles. */
  meta?: string;
  /** Declarations after `articles` (another resource, `extensions`). */
  extra?: string;
}

const TITLE = "Attribute.make('title').type('string').writable().required()";
const BODY = "Attribute.make('body').type('string').nullable().writable()";
const STATUS = "Attribute.make('status').type('enum', ['draft', 'published']).writable()";
const AUTHOR = "ToOne.make('author').type('people').includable().writable()";
const TAGS = `export const tags = defineResource({ type: 'tags', fields: [Attribute.make('name').type('string').writable()], endpoints: [Show.make()] });`;

const BASE: Required<Articles> = {
  fields: `${TITLE}, ${BODY}, ${STATUS}, ${AUTHOR}`,
  endpoints: 'Show.make(), Index.make().paginate(20, 50), Create.make(), Update.make()',
  filters: "Where.make('title'), Where.make('status')",
  sorts: "SortBy.make('title')",
  meta: '',
  extra: '',
};

function schemaText(parts: Articles): string {
  const p = { ...BASE, ...parts };
  return `import { Attribute, Create, CustomFilter, Delete, Index, Meta, Show, SortBy, ToMany, ToOne, Update, Where, atomic, defineResource } from 'jsonapi-gen';

export const people = defineResource({
  type: 'people',
  fields: [Attribute.make('name').type('string').writable().required(), ToMany.make('articles').type('articles').includable().countable()],
  endpoints: [Show.make(), Index.make()],
});

export const articles = defineResource({
  type: 'articles',
  fields: [${p.fields}],
  endpoints: [${p.endpoints}],
  filters: [${p.filters}],
  sorts: [${p.sorts}],
  meta: [${p.meta}],
});
${p.extra}
`;
}

interface Row {
  name: string;
  old: Articles;
  new: Articles;
  kinds: string[];
  verdict: 'major' | 'minor' | 'patch' | 'none';
}

const ROWS: Row[] = [
  { name: 'nothing changed', old: {}, new: {}, kinds: [], verdict: 'none' },
  { name: 'a resource type removed', old: { extra: TAGS }, new: {}, kinds: ['resource-removed'], verdict: 'major' },
  { name: 'a resource type added', old: {}, new: { extra: TAGS }, kinds: ['resource-added'], verdict: 'minor' },
  {
    name: 'a resource type renamed',
    old: { extra: TAGS },
    new: { extra: TAGS.replace("'tags'", "'labels'").replace('const tags', 'const labels') },
    kinds: ['resource-added', 'resource-removed'],
    verdict: 'major',
  },
  {
    name: 'an attribute removed',
    old: {},
    new: { fields: `${TITLE}, ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-removed'],
    verdict: 'major',
  },
  {
    name: 'an attribute renamed',
    old: {},
    new: { fields: `${TITLE}, ${BODY.replace("'body'", "'text'")}, ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-added', 'attribute-removed'],
    verdict: 'major',
  },
  {
    name: 'an optional attribute added',
    old: {},
    new: { fields: `${BASE.fields}, Attribute.make('subtitle').type('string').writable()` },
    kinds: ['attribute-added'],
    verdict: 'minor',
  },
  {
    name: 'a required attribute added (the resource has Create)',
    old: {},
    new: { fields: `${BASE.fields}, Attribute.make('subtitle').type('string').writable().required()` },
    kinds: ['required-attribute-added'],
    verdict: 'major',
  },
  {
    name: "an attribute's kind changed",
    old: {},
    new: { fields: `${TITLE}, ${BODY.replace("'string'", "'integer'")}, ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-kind-changed'],
    verdict: 'major',
  },
  {
    name: "a filtered attribute's kind changed: its default operators change too",
    old: {},
    new: { fields: `${TITLE.replace("'string'", "'integer'")}, ${BODY}, ${STATUS}, ${AUTHOR}` },
    // string → integer: contains, startsWith, endsWith go; lt, lte, gt, gte come.
    kinds: [
      'attribute-kind-changed',
      ...['operator-removed', 'operator-removed', 'operator-removed'],
      ...['operator-added', 'operator-added', 'operator-added', 'operator-added'],
    ],
    verdict: 'major',
  },
  {
    name: 'a nullable attribute made non-nullable',
    old: {},
    new: { fields: `${TITLE}, ${BODY.replace('.nullable()', '')}, ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-made-non-nullable'],
    verdict: 'major',
  },
  {
    name: 'a filtered attribute made nullable: responses may hold null, its filter takes `null`',
    old: {},
    new: { fields: `${TITLE}.nullable(), ${BODY}, ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-made-nullable', 'operator-added'],
    verdict: 'major',
  },
  {
    name: 'an optional attribute made required on create',
    old: {},
    new: { fields: `${TITLE}, ${BODY}.required(), ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-made-required'],
    verdict: 'major',
  },
  {
    name: 'a required attribute made optional',
    old: {},
    new: { fields: `${TITLE.replace('.required()', '')}, ${BODY}, ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-made-optional'],
    verdict: 'minor',
  },
  {
    name: 'a writable attribute made read-only',
    old: {},
    new: { fields: `${TITLE}, ${BODY.replace('.writable()', '')}, ${STATUS}, ${AUTHOR}` },
    kinds: ['attribute-made-read-only'],
    verdict: 'major',
  },
  {
    name: 'a read-only attribute made writable',
    old: { fields: `${BASE.fields}, Attribute.make('slug').type('string')` },
    new: { fields: `${BASE.fields}, Attribute.make('slug').type('string').writable()` },
    kinds: ['attribute-made-writable'],
    verdict: 'minor',
  },
  {
    name: 'an enum value removed',
    old: {},
    new: { fields: `${TITLE}, ${BODY}, ${STATUS.replace(", 'published'", '')}, ${AUTHOR}` },
    kinds: ['enum-value-removed'],
    verdict: 'major',
  },
  {
    name: 'an enum value added to an attribute responses carry',
    old: {},
    new: { fields: `${TITLE}, ${BODY}, ${STATUS.replace("'published'", "'published', 'archived'")}, ${AUTHOR}` },
    kinds: ['enum-value-added'],
    verdict: 'major',
  },
  {
    name: 'maxLength lowered',
    old: { fields: `${TITLE}.maxLength(200), ${BODY}, ${STATUS}, ${AUTHOR}` },
    new: { fields: `${TITLE}.maxLength(100), ${BODY}, ${STATUS}, ${AUTHOR}` },
    kinds: ['constraint-tightened'],
    verdict: 'major',
  },
  {
    name: 'maxLength raised',
    old: { fields: `${TITLE}.maxLength(100), ${BODY}, ${STATUS}, ${AUTHOR}` },
    new: { fields: `${TITLE}.maxLength(200), ${BODY}, ${STATUS}, ${AUTHOR}` },
    kinds: ['constraint-loosened'],
    verdict: 'minor',
  },
  {
    name: 'maxLength added',
    old: {},
    new: { fields: `${TITLE}.maxLength(200), ${BODY}, ${STATUS}, ${AUTHOR}` },
    kinds: ['constraint-tightened'],
    verdict: 'major',
  },
  {
    name: 'minLength lowered',
    old: { fields: `${TITLE}.minLength(3), ${BODY}, ${STATUS}, ${AUTHOR}` },
    new: { fields: `${TITLE}.minLength(1), ${BODY}, ${STATUS}, ${AUTHOR}` },
    kinds: ['constraint-loosened'],
    verdict: 'minor',
  },
  {
    name: 'a pattern changed',
    old: { fields: `${TITLE}.pattern(/^[a-z]+$/), ${BODY}, ${STATUS}, ${AUTHOR}` },
    new: { fields: `${TITLE}.pattern(/^[a-z0-9]+$/), ${BODY}, ${STATUS}, ${AUTHOR}` },
    kinds: ['constraint-tightened'],
    verdict: 'major',
  },
  {
    name: 'a pattern removed',
    old: { fields: `${TITLE}.pattern(/^[a-z]+$/), ${BODY}, ${STATUS}, ${AUTHOR}` },
    new: {},
    kinds: ['constraint-loosened'],
    verdict: 'minor',
  },
  {
    name: 'min raised',
    old: { fields: `${BASE.fields}, Attribute.make('rating').type('integer').writable().min(0)` },
    new: { fields: `${BASE.fields}, Attribute.make('rating').type('integer').writable().min(1)` },
    kinds: ['constraint-tightened'],
    verdict: 'major',
  },
  {
    name: 'max removed',
    old: { fields: `${BASE.fields}, Attribute.make('rating').type('integer').writable().max(5)` },
    new: { fields: `${BASE.fields}, Attribute.make('rating').type('integer').writable()` },
    kinds: ['constraint-loosened'],
    verdict: 'minor',
  },
  {
    name: 'a relationship removed',
    old: {},
    new: { fields: `${TITLE}, ${BODY}, ${STATUS}` },
    kinds: ['relationship-removed'],
    verdict: 'major',
  },
  {
    name: 'a relationship renamed',
    old: {},
    new: { fields: `${TITLE}, ${BODY}, ${STATUS}, ${AUTHOR.replace("'author'", "'writer'")}` },
    kinds: ['relationship-added', 'relationship-removed'],
    verdict: 'major',
  },
  {
    name: 'an optional relationship added',
    old: {},
    new: { fields: `${BASE.fields}, ToMany.make('editors').type('people')` },
    kinds: ['relationship-added'],
    verdict: 'minor',
  },
  {
    name: 'a to-one changed to to-many',
    old: {},
    new: { fields: `${TITLE}, ${BODY}, ${STATUS}, ${AUTHOR.replace('ToOne', 'ToMany')}` },
    kinds: ['relationship-cardinality-changed'],
    verdict: 'major',
  },
  {
    name: "a relationship's related type changed",
    old: { extra: TAGS },
    new: { fields: `${TITLE}, ${BODY}, ${STATUS}, ${AUTHOR.replace("'people'", "'tags'")}`, extra: TAGS },
    kinds: ['relationship-type-changed'],
    verdict: 'major',
  },
  {
    name: 'includable removed',
    old: {},
    new: { fields: `${TITLE}, ${BODY}, ${STATUS}, ${AUTHOR.replace('.includable()', '')}` },
    kinds: ['include-removed'],
    verdict: 'major',
  },
  {
    name: 'includable made true',
    old: { fields: `${TITLE}, ${BODY}, ${STATUS}, ${AUTHOR.replace('.includable()', '')}` },
    new: {},
    kinds: ['include-added'],
    verdict: 'minor',
  },
  {
    name: 'an endpoint removed',
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(20, 50), Create.make()' },
    kinds: ['endpoint-removed'],
    verdict: 'major',
  },
  {
    name: 'an endpoint added',
    old: {},
    new: { endpoints: `${BASE.endpoints}, Delete.make()` },
    kinds: ['endpoint-added'],
    verdict: 'minor',
  },
  {
    name: 'a filter removed',
    old: {},
    new: { filters: "Where.make('title')" },
    kinds: ['filter-removed'],
    verdict: 'major',
  },
  {
    name: 'a filter renamed',
    old: {},
    new: { filters: "Where.make('title'), Where.make('body')" },
    kinds: ['filter-added', 'filter-removed'],
    verdict: 'major',
  },
  {
    name: 'a filter added',
    old: {},
    new: { filters: `${BASE.filters}, Where.make('author')` },
    kinds: ['filter-added'],
    verdict: 'minor',
  },
  {
    name: 'a custom filter added',
    old: {},
    new: { filters: `${BASE.filters}, CustomFilter.make('search')` },
    kinds: ['filter-added'],
    verdict: 'minor',
  },
  {
    name: 'an operator removed',
    old: { filters: "Where.make('title').operators('eq', 'contains'), Where.make('status')" },
    new: { filters: "Where.make('title').operators('eq'), Where.make('status')" },
    kinds: ['operator-removed'],
    verdict: 'major',
  },
  {
    name: 'an operator added',
    old: { filters: "Where.make('title').operators('eq'), Where.make('status')" },
    new: { filters: "Where.make('title').operators('eq', 'startsWith'), Where.make('status')" },
    kinds: ['operator-added'],
    verdict: 'minor',
  },
  {
    name: 'operators declared as the defaults were: nothing changes',
    old: {},
    new: { filters: "Where.make('title'), Where.make('status').operators('eq', 'in')" },
    kinds: [],
    verdict: 'none',
  },
  { name: 'a sort removed', old: {}, new: { sorts: '' }, kinds: ['sort-removed'], verdict: 'major' },
  {
    name: 'a sort added',
    old: {},
    new: { sorts: "SortBy.make('title'), SortBy.make('status')" },
    kinds: ['sort-added'],
    verdict: 'minor',
  },
  {
    name: 'cursor pagination removed',
    old: { endpoints: 'Show.make(), Index.make().paginate(20, 50).cursor(), Create.make(), Update.make()' },
    new: {},
    kinds: ['cursor-pagination-removed'],
    verdict: 'major',
  },
  {
    name: 'cursor pagination added',
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(20, 50).cursor(), Create.make(), Update.make()' },
    kinds: ['cursor-pagination-added'],
    verdict: 'minor',
  },
  {
    name: "paginate's max limit lowered",
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(20, 40), Create.make(), Update.make()' },
    kinds: ['max-page-size-lowered'],
    verdict: 'major',
  },
  {
    name: "paginate's max limit raised",
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(20, 100), Create.make(), Update.make()' },
    kinds: ['max-page-size-raised'],
    verdict: 'minor',
  },
  {
    name: 'the default page size changed',
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(10, 50), Create.make(), Update.make()' },
    kinds: ['default-page-size-changed'],
    verdict: 'major',
  },
  {
    name: 'pagination added to a collection served whole',
    old: { endpoints: 'Show.make(), Index.make(), Create.make(), Update.make()' },
    new: {},
    kinds: ['pagination-added'],
    verdict: 'major',
  },
  {
    name: 'the default sort changed',
    old: { endpoints: "Show.make(), Index.make().paginate(20, 50).defaultSort('title'), Create.make(), Update.make()" },
    new: {
      endpoints: "Show.make(), Index.make().paginate(20, 50).defaultSort('-title'), Create.make(), Update.make()",
    },
    kinds: ['default-sort-changed'],
    verdict: 'major',
  },
  {
    name: 'visibility added to an unconditional endpoint',
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(20, 50), Create.make().visible(() => true), Update.make()' },
    kinds: ['endpoint-visibility-added'],
    verdict: 'major',
  },
  {
    name: "an endpoint's visibility removed",
    old: { endpoints: 'Show.make(), Index.make().paginate(20, 50), Create.make().hidden(() => false), Update.make()' },
    new: {},
    kinds: ['endpoint-visibility-removed'],
    verdict: 'minor',
  },
  {
    name: 'a meta member added',
    old: {},
    new: { meta: "Meta.make('wordCount').type('integer').get(() => 0)" },
    kinds: ['meta-added'],
    verdict: 'minor',
  },
  {
    name: 'a meta member removed',
    old: { meta: "Meta.make('wordCount').type('integer').get(() => 0)" },
    new: {},
    kinds: ['meta-removed'],
    verdict: 'major',
  },
  {
    name: "a meta member's kind changed",
    old: { meta: "Meta.make('wordCount').type('integer').get(() => 0)" },
    new: { meta: "Meta.make('wordCount').type('string').get(() => '0')" },
    kinds: ['meta-kind-changed'],
    verdict: 'major',
  },
  {
    name: 'a write policy added to a writable attribute',
    old: {},
    new: {
      fields: `${TITLE}, Attribute.make('body').type('string').nullable().writable(() => true), ${STATUS}, ${AUTHOR}`,
    },
    kinds: ['write-policy-added'],
    verdict: 'major',
  },
  {
    name: "an attribute's write policy removed",
    old: {
      fields: `${TITLE}, Attribute.make('body').type('string').nullable().writable(() => true), ${STATUS}, ${AUTHOR}`,
    },
    new: {},
    kinds: ['write-policy-removed'],
    verdict: 'minor',
  },
  {
    name: 'visibility added to an unconditional filter',
    old: {},
    new: { filters: "Where.make('title'), Where.make('status').visible(() => true)" },
    kinds: ['filter-visibility-added'],
    verdict: 'major',
  },
  {
    name: 'visibility added to an unconditional sort',
    old: {},
    new: { sorts: "SortBy.make('title').visible(() => true)" },
    kinds: ['sort-visibility-added'],
    verdict: 'major',
  },
  {
    name: "a filter's description added: descriptions only",
    old: {},
    new: { filters: "Where.make('title').description('Titles.'), Where.make('status')" },
    kinds: ['filter-description-changed'],
    verdict: 'patch',
  },
  {
    name: 'a description changed and a sort added: minor',
    old: { filters: "Where.make('title').description('Titles.'), Where.make('status')" },
    new: {
      filters: "Where.make('title').description('The titles.'), Where.make('status')",
      sorts: "SortBy.make('title'), SortBy.make('status')",
    },
    kinds: ['filter-description-changed', 'sort-added'],
    verdict: 'minor',
  },
  {
    name: 'If-Match required on Update',
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(20, 50), Create.make(), Update.make().requireIfMatch()' },
    kinds: ['if-match-required'],
    verdict: 'major',
  },
  {
    name: 'client-generated ids accepted',
    old: {},
    new: { endpoints: 'Show.make(), Index.make().paginate(20, 50), Create.make().clientIds(), Update.make()' },
    kinds: ['client-ids-added'],
    verdict: 'minor',
  },
  {
    name: 'an extension added',
    old: {},
    new: { extra: 'export const extensions = [atomic()];' },
    kinds: ['extension-added'],
    verdict: 'minor',
  },
  {
    name: 'an extension removed',
    old: { extra: 'export const extensions = [atomic()];' },
    new: {},
    kinds: ['extension-removed'],
    verdict: 'major',
  },
];

/** An `Io` that keeps what is written. */
function memoryIo(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (line) => void stdout.push(line),
    err: (line) => void stderr.push(line),
    outStyle: styles(false),
    errStyle: styles(false),
  };
}

/** `diff --json` in-process: its exit code and report. */
async function diffJson(old: string, now: string): Promise<{ code: number; verdict: string; kinds: string[] }> {
  const io = memoryIo();
  const code = await diff([old, now], { json: true }, io);
  expect(io.stderr).toEqual([]);
  const report = JSON.parse(io.stdout.join('\n')) as { verdict: string; changes: Array<{ kind: string }> };
  return { code, verdict: report.verdict, kinds: report.changes.map((c) => c.kind).sort() };
}

describe('jsonapi-gen diff: one change per row', { timeout: 120_000 }, () => {
  beforeAll(() => {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
  });

  it('has at least 40 rows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(ROWS.map((row, i) => ({ ...row, i })))('$name', async (row) => {
    const dir = join(DIR, String(row.i));
    mkdirSync(dir, { recursive: true });
    const old = join(dir, 'old.ts');
    const now = join(dir, 'new.ts');
    writeFileSync(old, schemaText(row.old));
    writeFileSync(now, schemaText(row.new));
    const expected = { code: row.verdict === 'major' ? 1 : 0, verdict: row.verdict, kinds: [...row.kinds].sort() };

    expect(await diffJson(old, now), 'schema files').toEqual(expected);

    const io = memoryIo();
    expect(await build(old, { out: join(dir, 'old'), quiet: true }, io), io.stderr.join('\n')).toBe(0);
    expect(await build(now, { out: join(dir, 'new'), quiet: true }, io), io.stderr.join('\n')).toBe(0);
    expect(await diffJson(join(dir, 'old'), join(dir, 'new')), 'generated folders').toEqual(expected);
  });
});
