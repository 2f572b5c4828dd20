/**
 * The OpenAPI document's filter parameters: each says what the filter keeps (a custom filter in
 * the schema author's words, from `.description(text)`) and how its value is read, and what it
 * says is what the server does: a filter the document describes as a comma list
 * (`style: form, explode: false`) receives `filter[x]=a,b` split, any other receives it verbatim,
 * and the list form `filter[x][]` is never split.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Attribute,
  CustomFilter,
  Index,
  JsonApi,
  ToMany,
  ToOne,
  Where,
  defineResource,
  type Condition,
  type FilterValue,
} from 'jsonapi-gen';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ParameterObject } from 'openapi3-ts/oas31';
import { describe, expect, it } from 'vitest';
import * as blogSchema from '../../examples/blog/schema.js';
import { emitOpenApi } from '../../generator/emit/openapi.js';
import { generateFrom } from '../../generator/generate.js';
import { resourcesOf } from '../../generator/load.js';
import { buildModel } from '../../generator/model.js';
import { request } from '../support/request.js';
import { ROOT, generated, inlineSchemas } from './fixtures.js';

/** A resource with a filter of every kind: on a string, an enum, a to-one, a to-many, `id`, free text. */
const posts = defineResource({
  type: 'posts',
  fields: [
    Attribute.make('title').type('string'),
    Attribute.make('kind').type('enum', ['note', 'essay', 'review']),
    ToOne.make('writer').type('posts'),
    ToMany.make('labels').type('posts'),
  ],
  endpoints: [Index.make()],
  filters: [
    Where.make('title'),
    Where.make('kind').description('Posts of this kind'),
    Where.make('writer'),
    CustomFilter.make('labels'),
    CustomFilter.make('id'),
    CustomFilter.make('text').description(
      'Posts whose text contains the value (a */ in a description stays a comment).',
    ),
  ],
});

type Parameters = Record<string, ParameterObject>;
/** The document of `posts`, its filters' value schemas inlined where they are referred to. */
const postsDocument = () => {
  const document = emitOpenApi(buildModel(resourcesOf(join(ROOT, 'test/generator/posts.ts'), { posts }), './posts.ts'));
  return {
    ...document,
    components: {
      ...document.components,
      parameters: inlineSchemas(document.components!.parameters!, document.components!.schemas!),
    },
  };
};
const filterParameter = (parameters: Parameters, name: string) =>
  Object.values(parameters).find((p) => p.name === name)!;

/** `posts` served by a data layer that records the value each filter receives, as an array. */
function recordingApi() {
  const received = new Map<string, readonly string[]>();
  const record = (name: string) => (query: unknown, value: FilterValue) => {
    received.set(name, [value].flat());
    return query;
  };
  const api = new JsonApi().resource({
    ...posts,
    query: () => [],
    results: (query: unknown[]) => query,
    where: (query: unknown, condition: Condition) =>
      record(condition.field)(query, [condition.value].flat().map(String)),
    customFilters: { labels: record('labels'), id: record('id'), text: record('text') },
    related: {
      writer: (models: readonly unknown[]) => models.map(() => null),
      labels: (models: readonly unknown[]) => models.map(() => []),
    },
  });
  return { api, received };
}

describe('OpenAPI filter parameters', () => {
  it('a custom filter gets the description its schema gives, a full stop added where it has none', () => {
    const parameters = postsDocument().components.parameters as Parameters;
    expect(filterParameter(parameters, 'filter[kind]').description).toMatch(
      /^Posts of this kind\. A comma-separated list matches any of its values/,
    );
    expect(filterParameter(parameters, 'filter[text]').description).toMatch(
      /^Posts whose text contains the value \(a \*\/ in a description stays a comment\)\. The value is taken verbatim/,
    );
    expect(filterParameter(parameters, 'filter[text][]').description).toMatch(
      /^Posts whose text contains the value .*\. Several values, `filter\[text\]\[\]=a&filter\[text\]\[\]=b`, match any of them/,
    );
    // Without a description: a sentence from the declaration, never the same generic one for all.
    expect(filterParameter(parameters, 'filter[title]').description).toMatch(
      /^Keeps the posts whose `title` equals the value\./,
    );
    expect(filterParameter(parameters, 'filter[writer]').description).toMatch(
      /^Keeps the posts whose `writer` is the posts resource with this id\./,
    );
    expect(filterParameter(parameters, 'filter[labels]').description).toMatch(
      /^Keeps the posts that the server's `labels` filter selects\./,
    );
  });

  it('describes id, relationship and enum filters as comma lists and every other as one verbatim value', () => {
    const parameters = postsDocument().components.parameters as Parameters;
    const commaLists = ['kind', 'writer', 'labels', 'id'];
    for (const name of ['title', 'kind', 'writer', 'labels', 'id', 'text']) {
      const single = filterParameter(parameters, `filter[${name}]`);
      if (name === 'kind') {
        expect(single, name).toMatchObject({
          style: 'form',
          explode: false,
          schema: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        });
      } else if (commaLists.includes(name)) {
        expect(single, name).toMatchObject({
          style: 'form',
          explode: false,
          schema: { type: 'array', items: { type: 'string' } },
        });
      }
      if (commaLists.includes(name)) {
        expect(single.description, name).toContain(
          `A comma-separated list matches any of its values: \`filter[${name}]=a,b\`.`,
        );
      } else {
        expect(single, name).toMatchObject({ schema: { type: 'string' } });
        expect(single.style, name).toBeUndefined();
        expect(single.description, name).toContain(
          `The value is taken verbatim, commas included (\`filter[${name}]=a,b\` is the one value \`a,b\`)`,
        );
      }
      const list = filterParameter(parameters, `filter[${name}][]`);
      expect(list, name).toMatchObject({
        style: 'form',
        explode: true,
        schema: { type: 'array', items: { type: 'string' }, maxItems: 100 },
      });
      expect(list.description, name).toContain('never split on commas');
    }
  });

  it('types the values of a Where filter on an enum attribute as its members: one, a comma list of them, or the list form; what the schema takes the server takes', async () => {
    const parameters = postsDocument().components.parameters as Parameters;
    const member = { type: 'string', enum: ['note', 'essay', 'review'] };
    const single = filterParameter(parameters, 'filter[kind]');
    expect(single.schema).toEqual({ anyOf: [member, { type: 'array', items: member, minItems: 1 }] });
    expect(filterParameter(parameters, 'filter[kind][]').schema).toEqual({
      type: 'array',
      items: member,
      maxItems: 100,
    });
    // Only the members of an enum a Where compares: a custom filter's value stays any text.
    expect(filterParameter(parameters, 'filter[labels]').schema).toEqual({ type: 'array', items: { type: 'string' } });
    const valid = new Ajv2020({ strict: true }).compile(single.schema as object);
    const { api } = recordingApi();
    // Each value as a client sends it (`style: form, explode: false`: an array is joined with commas).
    const cases: Array<[unknown, boolean]> = [
      ['note', true],
      [['note', 'essay'], true],
      [['review'], true],
      ['memo', false],
      [['note', 'memo'], false],
      ['', false],
      [[], false],
    ];
    for (const [value, accepted] of cases) {
      expect(valid(value), JSON.stringify(value)).toBe(accepted);
      const sent = Array.isArray(value) ? value.join(',') : (value as string);
      expect(
        (await api.fetch(request(`/posts?filter[kind]=${encodeURIComponent(sent)}`))).status,
        JSON.stringify(value),
      ).toBe(accepted ? 200 : 400);
    }
  });

  it('says what the server does: each filter receives `a,b` split exactly when the document says comma list, and a list item never split', async () => {
    const parameters = postsDocument().components.parameters as Parameters;
    const { api, received } = recordingApi();
    // The boolean groups (`filter[or]`, deep objects) hold filters; they are no filter of their own.
    const singles = Object.values(parameters).filter(
      (p) => /^filter\[[^\]]+\]$/.test(p.name) && p.style !== 'deepObject',
    );
    expect(singles.map((p) => p.name).sort()).toEqual([
      'filter[id]',
      'filter[kind]',
      'filter[labels]',
      'filter[text]',
      'filter[title]',
      'filter[writer]',
    ]);
    for (const parameter of singles) {
      const name = parameter.name.slice('filter['.length, -1);
      // An enum filter takes only its members (anything else is a 400), so it is sent two of them.
      const [a, b] = name === 'kind' ? ['note', 'essay'] : ['a', 'b'];
      received.clear();
      expect((await api.fetch(request(`/posts?${encodeURIComponent(parameter.name)}=${a},${b}`))).status).toBe(200);
      expect(received.get(name), name).toEqual(parameter.explode === false ? [a, b] : [`${a},${b}`]);
      if (name === 'kind') continue; // a member never holds a comma
      received.clear();
      expect((await api.fetch(request(`/posts?filter[${name}][]=a,b&filter[${name}][]=c`))).status).toBe(200);
      expect(received.get(name), name).toEqual(['a,b', 'c']);
    }
  });

  it('the blog: filter[search] opens with the schema’s description, in the committed document and a fresh one', async () => {
    const text = blogSchema.articles.filters!().find((f) => f.name === 'search')!.descriptionText!;
    expect(text).toMatch(/title contains the value/);
    const committed = JSON.parse(readFileSync(join(ROOT, 'examples/blog/generated/openapi.json'), 'utf8'));
    const fresh = JSON.parse((await generated('blog')).files.find((f) => f.path === 'openapi.json')!.content);
    for (const document of [committed, fresh]) {
      const parameters = inlineSchemas(document.components.parameters as Parameters, document.components.schemas);
      expect(filterParameter(parameters, 'filter[search]').description).toBe(
        `${text} The value is taken verbatim, commas included (\`filter[search]=a,b\` is the one value \`a,b\`); for any of several values use \`filter[search][]\`.`,
      );
      expect(filterParameter(parameters, 'filter[author]').description).toBe(
        'Keeps the articles whose `author` is the people resource with this id. A comma-separated list matches any of its values: `filter[author]=a,b`.',
      );
      // Its values are in the schema (one value schema the parameters refer to), not in the words.
      expect(filterParameter(parameters, 'filter[status]').description).toMatch(
        /^Keeps the articles whose `status` is the value\. A comma-separated list/,
      );
      expect(document.components.schemas.ArticlesStatusValue).toEqual({ type: 'string', enum: ['draft', 'published'] });
      expect(filterParameter(parameters, 'filter[status]').schema).toEqual({
        anyOf: [
          { type: 'string', enum: ['draft', 'published'] },
          { type: 'array', items: { type: 'string', enum: ['draft', 'published'] }, minItems: 1 },
        ],
      });
      // No parameter keeps the old generic sentence.
      expect(Object.values(parameters).some((p) => /^Filter by /.test(p.description ?? ''))).toBe(false);
    }
  });

  it('the description documents the data layer’s custom filter in the generated TypeScript, `*/` escaped', async () => {
    const blog = (await generated('blog')).files.find((f) => f.path === 'resources/articles.ts')!.content;
    expect(blog).toMatch(
      /export interface ArticlesCustomFilters \{\n {2}\/\*\* Articles whose title contains the value[^\n]*\*\/\n {2}search: FilterValue;/,
    );
    const file = join(ROOT, 'test/generator/posts.ts');
    const generation = await generateFrom(resourcesOf(file, { posts }), join(ROOT, '.tmp', 'generator', 'posts'));
    const source = generation.files.find((f) => f.path === 'resources/posts.ts')!.content;
    expect(source).toContain(
      '/** Posts whose text contains the value (a *\\/ in a description stays a comment). */\n  text: FilterValue;',
    );
  });

  it('description() refuses an empty text', () => {
    expect(() => CustomFilter.make('q').description('  ')).toThrow(TypeError);
    expect(CustomFilter.make('q').description(' Trimmed. ').descriptionText).toBe('Trimmed.');
  });
});
