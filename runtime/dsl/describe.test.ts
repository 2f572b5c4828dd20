/**
 * `describeSchema` is the one contract between a schema and the generator: plain data, read by
 * property (so a schema built by another copy of the runtime reads the same), carrying the
 * runtime's own answers (whether a filter takes a comma list).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  Attribute,
  CustomFilter,
  Field,
  Index,
  Show,
  SortBy,
  SortWithCount,
  ToMany,
  ToOne,
  Where,
  WhereCount,
  defineResource,
  describeSchema,
  type ResourceSchema,
} from 'jsonapi-gen';
import { isResourceSchema } from 'jsonapi-gen/internal';
import { loadSchema } from '../../generator/load.js';
import { takesCommaList } from '../query/filter-lists.js';
import { RegisteredResource } from '../registry/registry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCHEMAS = [
  'fixtures/minimal/schema.ts',
  'fixtures/blog/schema.ts',
  'fixtures/kitchen-sink/schema.ts',
  'examples/blog/schema.ts',
];

const noop = () => undefined;

/** A data layer with every method a declaration may ask for, so that the real registration runs. */
function dataLayerOf(resource: ResourceSchema): object {
  const { filters, sorts } = describeSchema(resource);
  const own = (list: ReadonlyArray<{ name: string; kind: string; appliedBy: string }>) =>
    Object.fromEntries(
      list.filter((d) => d.kind === 'custom' && d.appliedBy === 'data layer').map((d) => [d.name, noop]),
    );
  const methods = [
    'find',
    'query',
    'results',
    'paginate',
    'paginateCursor',
    'count',
    'loadRelated',
    'addToRelationship',
    'removeFromRelationship',
    'create',
    'update',
    'delete',
    'versionOf',
    'can',
    'where',
    'orderBy',
    'countRelated',
  ];
  return { ...Object.fromEntries(methods.map((m) => [m, noop])), customFilters: own(filters), customSorts: own(sorts) };
}

async function resourcesOf(path: string): Promise<ResourceSchema[]> {
  return Object.values((await import(join(ROOT, path))) as Record<string, unknown>).filter(isResourceSchema);
}

describe('describeSchema', () => {
  test.each(SCHEMAS)(
    'describes every resource of %s as plain data: it round-trips through JSON unchanged',
    async (path) => {
      const resources = await resourcesOf(path);
      expect(resources.length).toBeGreaterThan(0);
      for (const resource of resources) {
        const description = describeSchema(resource);
        expect(JSON.parse(JSON.stringify(description))).toStrictEqual(description);
      }
    },
  );

  test.each(SCHEMAS.slice(1))(
    "says of each filter of %s whether it takes a comma list, as the registered resource's takesCommaList does",
    async (path) => {
      const resources = await resourcesOf(path);
      const all = resources.flatMap((r) => describeSchema(r).filters);
      expect(all.length).toBeGreaterThan(0);
      for (const resource of resources) {
        const registered = new RegisteredResource({ ...resource, ...dataLayerOf(resource) });
        for (const filter of describeSchema(resource).filters)
          expect(filter.takesCommaList, `${resource.type()} ${filter.name}`).toBe(
            takesCommaList(registered, filter.name),
          );
      }
    },
  );

  test('describes what the builders were given', () => {
    const articles = defineResource({
      type: 'articles',
      fields: [
        Attribute.make('title').writable().required().minLength(1).pattern(/^\S/u),
        Attribute.make('status').type('enum', ['draft', 'published']).writable().default('draft'),
        Attribute.make('createdAt')
          .type('date-time')
          .default(() => new Date().toISOString()),
        ToOne.make('author').type('people').includable().withLinkage(),
        ToMany.make('comments').type('comments').countable(),
      ],
      endpoints: [Show.make(), Index.make().paginate(10, 20).countable(false).defaultSort('-createdAt')],
      filters: [
        Where.make('title').caseInsensitive().operators('contains'),
        Where.make('author.name'),
        CustomFilter.make('status').description('By status.'),
        WhereCount.make('commentCount').relationship('comments').operators('gte'),
      ],
      sorts: [
        SortBy.make('createdAt'),
        SortBy.make('author.name'),
        SortWithCount.make('commentCount').relationship('comments'),
      ],
    });
    const description = describeSchema(articles);
    expect(description.attributes[0]).toStrictEqual({
      name: 'title',
      writable: true,
      required: true,
      getter: false,
      writePolicy: false,
      conditional: false,
      kind: 'string',
      enumValues: [],
      nullable: false,
      constraints: { minLength: 1, pattern: { source: '^\\S', flags: 'u' } },
      validated: false,
    });
    expect(description.attributes[1]!.default).toStrictEqual({ value: 'draft' });
    expect(description.attributes[2]!.default).toStrictEqual({});
    expect(description.relationships).toStrictEqual([
      {
        name: 'author',
        writable: false,
        required: false,
        getter: false,
        writePolicy: false,
        conditional: false,
        cardinality: 'one',
        relatedType: 'people',
        includable: true,
        linkage: true,
        countable: false,
      },
      {
        name: 'comments',
        writable: false,
        required: false,
        getter: false,
        writePolicy: false,
        conditional: false,
        cardinality: 'many',
        relatedType: 'comments',
        includable: false,
        linkage: false,
        countable: true,
      },
    ]);
    expect(description.endpoints[1]).toStrictEqual({
      kind: 'index',
      abilities: [],
      pagination: { defaultLimit: 10, maxLimit: 20 },
      countable: false,
      cursor: false,
      defaultSort: '-createdAt',
      documentMeta: false,
    });
    expect(description.filters).toStrictEqual([
      {
        name: 'title',
        kind: 'where',
        appliedBy: 'data layer',
        field: 'title',
        operators: ['contains'],
        caseInsensitive: true,
        takesCommaList: false,
      },
      {
        name: 'author.name',
        kind: 'where',
        appliedBy: 'data layer',
        field: 'author',
        path: { relationship: 'author', attribute: 'name' },
        caseInsensitive: false,
        takesCommaList: false,
      },
      {
        name: 'status',
        kind: 'custom',
        appliedBy: 'data layer',
        caseInsensitive: false,
        takesCommaList: true,
        description: 'By status.',
      },
      {
        name: 'commentCount',
        kind: 'count',
        appliedBy: 'data layer',
        counts: { relationship: 'comments', relatedType: 'comments' },
        operators: ['gte'],
        caseInsensitive: false,
        takesCommaList: false,
      },
    ]);
    expect(description.sorts[2]).toStrictEqual({
      name: 'commentCount',
      kind: 'count',
      appliedBy: 'data layer',
      counts: { relationship: 'comments', relatedType: 'comments' },
    });
    expect(description.sorts[1]).toStrictEqual({
      name: 'author.name',
      kind: 'field',
      appliedBy: 'data layer',
      field: 'author',
      path: { relationship: 'author', attribute: 'name' },
    });
  });

  test('refuses a declaration registration would refuse, naming its mistakes', () => {
    const broken = defineResource({
      type: 'articles',
      fields: [ToOne.make('author')],
      endpoints: [Index.make().countable()],
    });
    expect(() => describeSchema(broken)).toThrow(
      'resource "articles": relationship "author" has no .type(...); the index endpoint: countable() needs paginate()',
    );
  });

  test('reads a schema built by another copy of the runtime (the generator loads the schema through tsx) as it reads its own', async () => {
    const file = join(ROOT, 'fixtures/blog/schema.ts');
    const loaded = await loadSchema(file);
    const own = await resourcesOf('fixtures/blog/schema.ts');
    const [first] = loaded.resources;
    expect(first!.schema.fields()[0]).not.toBeInstanceOf(Field);
    for (const { schema } of loaded.resources) {
      const twin = own.find((r) => r.type() === schema.type())!;
      expect(describeSchema(schema)).toStrictEqual(describeSchema(twin));
    }
  });
});
