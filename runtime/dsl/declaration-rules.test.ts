/**
 * A host without the generator learns of a wrong builder argument when it registers the
 * resource, in a message naming the resource, the field (or filter, sort, endpoint) and the
 * argument; before, most of these registered and failed requests with a 500 instead.
 */
import { describe, expect, test, vi } from 'vitest';
import { json } from '../../test/support/validate.js';
import {
  Attribute,
  Create,
  CustomFilter,
  CustomSort,
  Index,
  JsonApi,
  Show,
  SortBy,
  SortWithCount,
  ToMany,
  ToOne,
  Where,
  WhereCount,
  defineResource,
  type ResourceDefinition,
  type ResourceSpec,
} from 'jsonapi-gen';

const noop = () => undefined;
const dataLayer = {
  find: noop,
  query: noop,
  results: () => [],
  paginate: noop,
  create: noop,
  where: noop,
  loadRelated: () => [],
};

const register = (spec: Partial<ResourceSpec>) => () =>
  new JsonApi().resource({
    ...defineResource({ type: 'books', endpoints: [Show.make(), Index.make(), Create.make()], ...spec }),
    ...dataLayer,
  });

const attribute = (field: Attribute) => register({ fields: [field] });

describe('registration refuses a wrong builder argument, naming the resource, the field and the argument', () => {
  test.each([
    // Patterns
    [
      'a pattern given as a string',
      Attribute.make('isbn').pattern('^97' as never),
      'resource "books": attribute "isbn": pattern() takes a RegExp, such as /^97/, not the string "^97"',
    ],
    [
      'a pattern on an integer',
      Attribute.make('pages').type('integer').pattern(/\d/),
      'resource "books": attribute "pages": pattern() applies to string attributes, not integer ones',
    ],
    // Lengths
    [
      'a negative minLength',
      Attribute.make('title').minLength(-1),
      'resource "books": attribute "title": minLength() takes a whole number of characters, 0 or more, not -1',
    ],
    [
      'a fractional maxLength',
      Attribute.make('title').maxLength(2.5),
      'attribute "title": maxLength() takes a whole number of characters, 0 or more, not 2.5',
    ],
    [
      'a maxLength given as text',
      Attribute.make('title').maxLength('80' as never),
      'attribute "title": maxLength() takes a whole number of characters, 0 or more, not the string "80"',
    ],
    [
      'minLength above maxLength',
      Attribute.make('title').minLength(10).maxLength(3),
      'resource "books": attribute "title": minLength(10) is above maxLength(3)',
    ],
    [
      'a maxLength on a number',
      Attribute.make('price').type('number').maxLength(3),
      'attribute "price": maxLength() applies to string attributes, not number ones',
    ],
    // Bounds
    [
      'a min that is NaN',
      Attribute.make('pages').type('integer').min(Number.NaN),
      'resource "books": attribute "pages": min() takes a finite number, not NaN',
    ],
    [
      'a max that is Infinity',
      Attribute.make('pages').type('integer').max(Number.POSITIVE_INFINITY),
      'attribute "pages": max() takes a finite number, not Infinity',
    ],
    [
      'a min given as text',
      Attribute.make('price')
        .type('number')
        .min('0' as never),
      'attribute "price": min() takes a finite number, not the string "0"',
    ],
    [
      'min above max',
      Attribute.make('pages').type('integer').min(10).max(5),
      'resource "books": attribute "pages": min(10) is above max(5)',
    ],
    [
      'a min on a string',
      Attribute.make('title').min(1),
      'attribute "title": min() applies to integer and number attributes, not string ones',
    ],
    // Kinds and enum values
    [
      'an unknown kind',
      Attribute.make('title').type('text' as never),
      'resource "books": attribute "title": type() takes one of string, integer, number, boolean, date-time, date, enum, array, object, not the string "text"',
    ],
    [
      'an enum without values',
      Attribute.make('format').type('enum', []),
      `resource "books": attribute "format": type('enum', values) takes a non-empty list of strings, not []`,
    ],
    [
      'an enum value listed twice',
      Attribute.make('format').type('enum', ['hardcover', 'hardcover']),
      `attribute "format": type('enum', values) lists "hardcover" twice`,
    ],
    [
      'enum values that are not strings',
      Attribute.make('edition').type('enum', [1, 2] as never),
      `attribute "edition": type('enum', values) takes strings, not 1`,
    ],
    // Defaults
    [
      'a default of another kind',
      Attribute.make('pages').type('integer').default('300'),
      'resource "books": attribute "pages": default("300"): the value must be an integer',
    ],
    [
      'a default outside the enum',
      Attribute.make('format').type('enum', ['hardcover', 'paperback']).default('ebook'),
      'attribute "format": default("ebook"): the value must be one of "hardcover", "paperback"',
    ],
    [
      'a null default of an attribute that is not nullable',
      Attribute.make('title').default(null),
      'attribute "title": default(null): the value must not be null',
    ],
    [
      'a default beyond the bounds',
      Attribute.make('title').maxLength(3).default('Dune Messiah'),
      'attribute "title": default("Dune Messiah"): the value must be at most 3 characters long',
    ],
    [
      'an undefined default',
      Attribute.make('title').default(undefined),
      'attribute "title": default(undefined): the value must be a string',
    ],
    // Functions
    [
      'a validator that is not a function',
      Attribute.make('title').validate('required' as never),
      'attribute "title": validate() takes a function or a Standard Schema, not the string "required"',
    ],
    [
      'a getter that is not a function',
      Attribute.make('title').get('name' as never),
      'resource "books": field "title": get() takes a function, not the string "name"',
    ],
  ])('%s', (_, field, message) => {
    expect(attribute(field)).toThrow(message);
  });

  test.each([
    [
      'an operator that does not exist',
      [Where.make('title').operators('eq', 'like' as never)],
      'resource "books": filter "title": operators() takes one or more of eq, ne, in, nin, lt, lte, gt, gte, contains, startsWith, endsWith, null, not the string "like"',
    ],
    [
      'operators() given none',
      [Where.make('title').operators()],
      'resource "books": filter "title": operators() takes one or more of',
    ],
    [
      'a text operator on an integer',
      [Where.make('pages').operators('gte', 'contains')],
      'resource "books": filter "pages": "contains" does not apply to an integer attribute; it takes eq, ne, in, nin, lt, lte, gt, gte, null',
    ],
    [
      'an ordering operator on a boolean',
      [Where.make('inPrint').operators('lt', 'gt')],
      'filter "inPrint": "lt", "gt" do not apply to a boolean attribute',
    ],
    [
      'a text operator on a to-one relationship',
      [Where.make('author').operators('startsWith')],
      'filter "author": "startsWith" does not apply to a to-one relationship (its id)',
    ],
    [
      'a duplicate Where',
      [Where.make('title'), Where.make('title').caseInsensitive()],
      'resource "books": filter "title" is declared twice',
    ],
    [
      'a custom filter given no function',
      [CustomFilter.make('q', 'title' as never)],
      'resource "books": filter "q": make(name, apply) takes a function as apply, not the string "title"',
    ],
  ])('%s', (_, filters, message) => {
    const fields = [
      Attribute.make('title'),
      Attribute.make('pages').type('integer'),
      Attribute.make('inPrint').type('boolean'),
      ToOne.make('author').type('books'),
    ];
    expect(register({ fields, filters })).toThrow(message);
  });

  test.each([
    [
      'a filter named like a group',
      [Where.make('or')],
      'resource "books": filter "or": and, or, not and numbers name filter[...] groups, not filters',
    ],
    [
      'a count without relationship()',
      [WhereCount.make('reviewCount')],
      'resource "books": WhereCount.make(\'reviewCount\') needs relationship(name)',
    ],
    [
      'a count of a to-one relationship',
      [WhereCount.make('authorCount').relationship('author')],
      'WhereCount.make(\'authorCount\').relationship(the string "author") names no to-many relationship of books',
    ],
    [
      'a count named after a field',
      [WhereCount.make('reviews').relationship('reviews')],
      "WhereCount.make('reviews') is named after a field of books",
    ],
    [
      'a text operator on a count',
      [WhereCount.make('reviewCount').relationship('reviews').operators('gte', 'contains')],
      'filter "reviewCount": operators() takes one or more of eq, ne, lt, lte, gt, gte, not the string "contains"',
    ],
  ])('filter groups and counts: %s', (_, filters, message) => {
    const fields = [Attribute.make('title'), ToOne.make('author').type('books'), ToMany.make('reviews').type('books')];
    expect(register({ fields, filters })).toThrow(message);
  });

  test('a count sort of a relationship that is not to-many', () => {
    expect(
      register({
        fields: [ToOne.make('author').type('books')],
        sorts: [SortWithCount.make('authorCount').relationship('author')],
      }),
    ).toThrow(
      'SortWithCount.make(\'authorCount\').relationship(the string "author") names no to-many relationship of books',
    );
  });

  test('a custom sort given no function', () => {
    expect(register({ sorts: [CustomSort.make('popular', 42 as never)] })).toThrow(
      'resource "books": sort "popular": make(name, apply) takes a function as apply, not 42',
    );
  });

  test.each([
    [
      'the default above the maximum',
      Index.make().paginate(50, 10),
      'resource "books": the index endpoint: paginate(50, 10): the default limit is above the maximum',
    ],
    [
      'a limit of 0',
      Index.make().paginate(0, 10),
      'resource "books": the index endpoint: paginate(0, 10): the limits are whole numbers, 1 or more',
    ],
    [
      'a fractional limit',
      Index.make().paginate(1.5, 10),
      'paginate(1.5, 10): the limits are whole numbers, 1 or more',
    ],
    [
      'a limit given as text',
      Index.make().paginate(20, '50' as never),
      'paginate(20, the string "50"): the limits are whole numbers, 1 or more',
    ],
    [
      'a default sort that is not text',
      Index.make().defaultSort(42 as never),
      'resource "books": the index endpoint: defaultSort() takes sort terms, such as \'-createdAt\', not 42',
    ],
    // Rules the generator alone applied before: one implementation now, run by registration and build.
    [
      'countable() without paginate()',
      Index.make().countable(),
      'resource "books": the index endpoint: countable() needs paginate()',
    ],
  ])('Index: %s', (_, index, message) => {
    expect(register({ endpoints: [index] })).toThrow(message);
  });

  test('a type() that gives no string (the generator alone refused it before)', () => {
    const definition = {
      ...defineResource({ type: 'books', endpoints: [Show.make()] }),
      type: () => 42 as never,
      ...dataLayer,
    } as ResourceDefinition;
    expect(() => new JsonApi().resource(definition)).toThrow('resource "42": type() must return a string');
  });

  test('every mistake of a resource is told at once', () => {
    expect(
      register({
        fields: [
          Attribute.make('isbn').pattern('^97' as never),
          Attribute.make('pages').type('integer').min(10).max(5),
        ],
      }),
    ).toThrow(
      'resource "books": attribute "isbn": pattern() takes a RegExp, such as /^97/, not the string "^97"; attribute "pages": min(10) is above max(5): no value could be written',
    );
  });

  test('sound arguments register, a default given as a function included', () => {
    const fields = [
      Attribute.make('isbn')
        .pattern(/^97[89]\d{10}$/)
        .minLength(13)
        .maxLength(13),
      Attribute.make('pages').type('integer').min(1).max(5000).default(100),
      Attribute.make('price').type('number').min(0).nullable().default(null),
      Attribute.make('format').type('enum', ['hardcover', 'paperback']).default('paperback'),
      Attribute.make('addedAt')
        .type('date-time')
        .default(() => new Date().toISOString()),
      Attribute.make('tags').type('array').default([]),
    ];
    const filters = [
      Where.make('isbn').operators('eq', 'startsWith', 'gte'),
      Where.make('pages').operators('lt', 'null'),
      Where.make('format').operators('eq', 'nin'),
    ];
    expect(register({ fields, filters, endpoints: [Show.make(), Index.make().paginate(10, 10)] })).not.toThrow();
  });
});

describe("an operator on a path is checked against the related resource's attribute", () => {
  test('at the first request, once every resource is registered, naming the resource and filter', async () => {
    const onError = vi.fn();
    const api = new JsonApi({ onError })
      .resource({
        ...defineResource({
          type: 'books',
          fields: [ToOne.make('author').type('people')],
          endpoints: [Index.make()],
          filters: [Where.make('author.living').operators('lt')],
        }),
        ...dataLayer,
      })
      .resource({
        ...defineResource({
          type: 'people',
          fields: [Attribute.make('living').type('boolean')],
          endpoints: [Show.make()],
        }),
        ...dataLayer,
      });
    const response = await api.fetch(new Request('http://localhost/books'));
    expect(response.status).toBe(500);
    expect((await json(response)).errors).toEqual([{ status: '500', title: 'Internal Server Error' }]);
    expect(onError.mock.calls[0]![0]).toEqual(
      new TypeError(
        'resource "books": filter "author.living": "lt" does not apply to a boolean attribute; it takes eq, ne, in, nin, null',
      ),
    );
  });
});

describe('a path through a relationship names an attribute of the related resource', () => {
  test.each([
    [
      'a Where',
      { filters: [Where.make('author.nickname')] },
      `resource "books": Where.make('author.nickname') names no relationship.attribute path of books: the related resource has no attribute "nickname"`,
    ],
    [
      'a SortBy',
      { sorts: [SortBy.make('author.nickname')] },
      `resource "books": SortBy.make('author.nickname') names no to-one relationship's attribute of books: the related resource has no attribute "nickname"`,
    ],
  ])('%s: checked at the first request, in the words jsonapi-gen build uses', async (_, spec, message) => {
    const onError = vi.fn();
    const api = new JsonApi({ onError })
      .resource({
        ...defineResource({
          type: 'books',
          fields: [ToOne.make('author').type('people')],
          endpoints: [Index.make()],
          ...spec,
        }),
        ...dataLayer,
        orderBy: noop,
      })
      .resource({
        ...defineResource({ type: 'people', fields: [Attribute.make('name')], endpoints: [Show.make()] }),
        ...dataLayer,
      });
    expect((await api.fetch(new Request('http://localhost/books'))).status).toBe(500);
    expect(onError.mock.calls[0]![0]).toEqual(new TypeError(message));
  });
});
