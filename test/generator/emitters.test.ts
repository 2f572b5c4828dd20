import { describe, expect, it } from 'vitest';
import type { AttributeModel, EndpointsModel, ResourceModel, RelationshipModel } from '../../generator/ir.js';
import { capabilities } from '../../generator/model.js';
import { camelCase, pascalCase, propertyAccess, propertyKey } from '../../generator/naming.js';
import { attributeSchema, includePaths } from '../../generator/emit/openapi.js';
import { attributeType, serializeExpression } from '../../generator/emit/resource.js';

const attribute = (over: Partial<AttributeModel>): AttributeModel => ({
  name: 'x',
  kind: 'string',
  enumValues: [],
  nullable: false,
  writable: false,
  required: false,
  hasGetter: false,
  hasWritePolicy: false,
  hasDefault: false,
  constraints: {},
  ...over,
});

describe('attribute types', () => {
  const cases: Array<
    [string, { given: Partial<AttributeModel>; want: { ts: string; schema: object; serialize: string } }]
  > = [
    ['string', { given: {}, want: { ts: 'string', schema: { type: 'string' }, serialize: 'model.x' } }],
    [
      'nullable string',
      {
        given: { nullable: true },
        want: { ts: 'string | null', schema: { type: ['string', 'null'] }, serialize: 'model.x' },
      },
    ],
    [
      'integer',
      { given: { kind: 'integer' }, want: { ts: 'number', schema: { type: 'integer' }, serialize: 'model.x' } },
    ],
    ['number', { given: { kind: 'number' }, want: { ts: 'number', schema: { type: 'number' }, serialize: 'model.x' } }],
    [
      'boolean',
      { given: { kind: 'boolean' }, want: { ts: 'boolean', schema: { type: 'boolean' }, serialize: 'model.x' } },
    ],
    [
      'date-time',
      {
        given: { kind: 'date-time' },
        want: { ts: 'string', schema: { type: 'string', format: 'date-time' }, serialize: 'dateTime(model.x)' },
      },
    ],
    [
      'date',
      {
        given: { kind: 'date' },
        want: { ts: 'string', schema: { type: 'string', format: 'date' }, serialize: 'dateOnly(model.x)' },
      },
    ],
    [
      'enum',
      {
        given: { kind: 'enum', enumValues: ['a', "b'c"] },
        want: { ts: `'a' | 'b\\'c'`, schema: { type: 'string', enum: ['a', "b'c"] }, serialize: 'model.x' },
      },
    ],
    [
      'nullable enum',
      {
        given: { kind: 'enum', enumValues: ['a'], nullable: true },
        want: { ts: `'a' | null`, schema: { type: ['string', 'null'], enum: ['a', null] }, serialize: 'model.x' },
      },
    ],
    [
      'array',
      {
        given: { kind: 'array' },
        want: { ts: 'unknown[]', schema: { type: 'array', items: {} }, serialize: 'model.x' },
      },
    ],
    [
      'object',
      {
        given: { kind: 'object' },
        want: { ts: 'Record<string, unknown>', schema: { type: 'object' }, serialize: 'model.x' },
      },
    ],
    [
      'dashed name',
      {
        given: { name: 'first-name' },
        want: { ts: 'string', schema: { type: 'string' }, serialize: "model['first-name']" },
      },
    ],
    [
      'custom getter',
      {
        given: { name: 'slug', hasGetter: true },
        want: { ts: 'string', schema: { type: 'string' }, serialize: 'toJson(getSlug(model, context))' },
      },
    ],
    [
      'constrained string',
      {
        given: { constraints: { minLength: 1, maxLength: 200, pattern: '^[a-z-]+$' } },
        want: {
          ts: 'string',
          schema: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[a-z-]+$' },
          serialize: 'model.x',
        },
      },
    ],
    [
      'bounded nullable integer',
      {
        given: { kind: 'integer', nullable: true, constraints: { minimum: 0, maximum: 10 } },
        want: {
          ts: 'number | null',
          schema: { type: ['integer', 'null'], minimum: 0, maximum: 10 },
          serialize: 'model.x',
        },
      },
    ],
    [
      'date getter',
      {
        given: { name: 'day', kind: 'date', hasGetter: true },
        want: {
          ts: 'string',
          schema: { type: 'string', format: 'date' },
          serialize: "toJson(getDay(model, context), 'date')",
        },
      },
    ],
  ];
  it.each(cases)('%s', (_, { given, want }) => {
    const a = attribute(given);
    expect(attributeType(a)).toBe(want.ts);
    expect(attributeSchema(a)).toEqual(want.schema);
    expect(serializeExpression(a)).toBe(want.serialize);
  });
});

describe('data-layer capabilities', () => {
  const none: EndpointsModel = {
    show: false,
    index: undefined,
    create: false,
    update: false,
    delete: false,
    requiresIfMatch: false,
  };
  const index = { pagination: undefined, defaultSort: undefined, countable: false, cursor: false };
  const toOne: RelationshipModel = {
    name: 'author',
    cardinality: 'one',
    relatedType: 'people',
    includable: true,
    hasWritePolicy: false,
    linkage: false,
    writable: true,
    required: false,
    countable: false,
  };
  const toMany: RelationshipModel = { ...toOne, name: 'tags', cardinality: 'many', relatedType: 'tags' };
  const cases: Array<
    [
      string,
      {
        given: { endpoints: Partial<EndpointsModel>; relationships: RelationshipModel[]; countSorts?: string[] };
        want: { capabilities: string[] };
      },
    ]
  > = [
    ['show', { given: { endpoints: { show: true }, relationships: [] }, want: { capabilities: ['Findable'] } }],
    ['index', { given: { endpoints: { index }, relationships: [] }, want: { capabilities: ['Listable'] } }],
    [
      'paginated, counted index',
      {
        given: {
          endpoints: { index: { ...index, pagination: { defaultLimit: 1, maxLimit: 2 }, countable: true } },
          relationships: [],
        },
        want: { capabilities: ['Listable', 'Paginatable', 'Countable'] },
      },
    ],
    [
      'delete',
      {
        given: { endpoints: { delete: true }, relationships: [] },
        want: { capabilities: ['Findable', 'Deletable', 'OptionallyVersioned'] },
      },
    ],
    [
      'show with relationships',
      {
        given: { endpoints: { show: true }, relationships: [toOne] },
        want: { capabilities: ['Findable', 'Relatable'] },
      },
    ],
    [
      'create and update with a to-one',
      {
        given: { endpoints: { create: true, update: true }, relationships: [toOne] },
        want: { capabilities: ['Findable', 'Creatable', 'Updatable', 'OptionallyVersioned'] },
      },
    ],
    [
      'update with a writable to-many',
      {
        given: { endpoints: { update: true }, relationships: [toMany] },
        want: { capabilities: ['Findable', 'Relatable', 'Updatable', 'ToManyMutable', 'OptionallyVersioned'] },
      },
    ],
    [
      'update with a read-only to-many',
      {
        given: { endpoints: { update: true }, relationships: [{ ...toMany, writable: false }] },
        want: { capabilities: ['Findable', 'Updatable', 'OptionallyVersioned'] },
      },
    ],
    [
      'a countable to-many relationship (withCount)',
      {
        given: { endpoints: { show: true }, relationships: [{ ...toMany, writable: false, countable: true }] },
        want: { capabilities: ['Findable', 'Relatable', 'RelationshipCounts'] },
      },
    ],
    [
      'a cursor index sorted by a count (its cursor values)',
      {
        given: { endpoints: { index: { ...index, cursor: true } }, relationships: [], countSorts: ['tagCount'] },
        want: { capabilities: ['Listable', 'CursorPaginatable', 'RelationshipCounts'] },
      },
    ],
    [
      'an offset-paged index sorted by a count',
      {
        given: { endpoints: { index }, relationships: [], countSorts: ['tagCount'] },
        want: { capabilities: ['Listable'] },
      },
    ],
    [
      'update that requires If-Match',
      {
        given: { endpoints: { update: true, requiresIfMatch: true }, relationships: [] },
        want: { capabilities: ['Findable', 'Updatable', 'Versioned'] },
      },
    ],
  ];
  it.each(cases)('%s', (_, { given, want }) => {
    const caps = capabilities({ ...none, ...given.endpoints }, given.relationships, given.countSorts);
    expect(caps).toEqual(want.capabilities);
  });
});

describe('include paths', () => {
  const resource = (type: string, relationships: Array<[string, string, boolean]>): ResourceModel =>
    ({
      type,
      relationships: relationships.map(([name, relatedType, includable]) => ({
        name,
        relatedType,
        includable,
        cardinality: 'one',
      })),
    }) as unknown as ResourceModel;
  const articles = resource('articles', [
    ['author', 'people', true],
    ['editor', 'people', false],
  ]);
  const people = resource('people', [['articles', 'articles', true]]);
  const byType = new Map([
    ['articles', articles],
    ['people', people],
  ]);
  it('follows includable relationships to depth 3 without taking a relationship twice', () => {
    expect(includePaths(articles, byType)).toEqual(['author', 'author.articles']);
    expect(includePaths(people, byType)).toEqual(['articles', 'articles.author']);
  });
});

describe('names', () => {
  const cases: Array<[string, { given: string; want: [string, string, string, string] }]> = [
    ['plain', { given: 'articles', want: ['Articles', 'articles', 'articles', 'row.articles'] }],
    ['dashed', { given: 'blog-posts', want: ['BlogPosts', 'blogPosts', "'blog-posts'", "row['blog-posts']"] }],
    ['underscored', { given: 'audit_log', want: ['AuditLog', 'auditLog', 'audit_log', 'row.audit_log'] }],
    ['leading digit', { given: '3d-models', want: ['_3dModels', '_3dModels', "'3d-models'", "row['3d-models']"] }],
  ];
  it.each(cases)('%s', (_, { given, want }) => {
    expect([pascalCase(given), camelCase(given), propertyKey(given), propertyAccess('row', given)]).toEqual(want);
  });
});
