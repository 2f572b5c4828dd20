/** The generated code serves: createApi + an in-memory data layer answer JSON:API documents. */
import { join } from 'node:path';
import { JsonApi } from 'jsonapi-gen';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../../generator/files.js';
import { TMP, generateFixture } from './fixtures.js';

async function generateInto(name: string): Promise<string> {
  const out = join(TMP, 'serve', name);
  writeFiles(out, (await generateFixture(name, out)).files);
  return join(out, 'index.ts');
}

/** An in-memory data layer over `rows`, loading relationships from `related`. */
function memory(
  rows: Array<Record<string, unknown>>,
  related: Record<string, (row: Record<string, unknown>) => unknown> = {},
) {
  return {
    find: (id: string) => rows.find((r) => r.id === id) ?? null,
    query: () => [...rows],
    results: (query: Array<Record<string, unknown>>) => query,
    paginate: (query: Array<Record<string, unknown>>, { offset, limit }: { offset: number; limit: number }) =>
      query.slice(offset, offset + limit),
    count: (query: unknown[]) => query.length,
    delete: (model: Record<string, unknown>) => void rows.splice(rows.indexOf(model), 1),
    loadRelated: (relationship: { name: string }, models: readonly Record<string, unknown>[]) =>
      models.map((m) => related[relationship.name]?.(m) ?? null),
    create: (values: { attributes: Record<string, unknown> }) => {
      const row = { id: String(rows.length + 1), ...values.attributes };
      rows.push(row);
      return row;
    },
    update: (model: Record<string, unknown>, values: { attributes: Record<string, unknown> }) =>
      Object.assign(model, values.attributes),
    addToRelationship: () => {},
    removeFromRelationship: () => {},
  };
}

describe('the generated minimal API', () => {
  let createApi: (layers: unknown) => JsonApi;
  let openapi: Record<string, unknown>;
  beforeAll(async () => {
    ({ createApi, openapi } = await import(await generateInto('minimal')));
  });

  it('serves a resource and a collection from an in-memory data layer', async () => {
    const api = createApi({
      tags: memory([
        { id: '1', name: 'news' },
        { id: '2', name: 'tech', secret: 'x' },
      ]),
    });
    const show = await api.handle(new Request('http://localhost/tags/1'));
    expect(show.status).toBe(200);
    expect(show.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(await show.json()).toEqual({
      jsonapi: { version: '1.1' },
      links: { self: 'http://localhost/tags/1' },
      data: { type: 'tags', id: '1', attributes: { name: 'news' }, links: { self: 'http://localhost/tags/1' } },
    });
    const index = await api.handle(new Request('http://localhost/tags'));
    const body = await index.json();
    expect(body.data.map((r: { attributes: unknown }) => r.attributes)).toEqual([{ name: 'news' }, { name: 'tech' }]);
  });

  it('exports the OpenAPI document', () => {
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths as object)).toEqual(['/tags', '/tags/{id}']);
  });
});

describe('the generated kitchen-sink API', () => {
  it('serializes attributes exactly as the runtime does without generated code', async () => {
    const { createApi } = await import(await generateInto('kitchen-sink'));
    const schemas = await import('../../fixtures/kitchen-sink/schema.js');
    const widget = {
      id: '1',
      name: 'gear',
      nickname: null,
      count: 3,
      ratio: null,
      enabled: true,
      launchedAt: new Date('2024-05-06T07:08:09.000Z'),
      launchDay: new Date('2024-05-06T00:00:00.000Z'),
      color: 'red',
      size: 'm',
      labels: ['a'],
      settings: { deep: { x: 1 } },
      builtAt: new Date('2023-01-02T03:04:05.000Z'),
      makerId: '9',
    };
    const maker = { id: '9', name: 'ACME' };
    // Not countable(): the generated binding wires only what the schema declares, so no `count` here
    // (the runtime alone would count whenever the data layer happens to have one).
    const { count: _uncounted, ...audit } = memory([{ id: 'a', message: 'm', at: '2024-01-01T00:00:00Z' }]);
    const layers = {
      widgets: memory([widget], { maker: () => maker, parts: () => [], siblings: () => [], parent: () => null }),
      makers: memory([maker], { widgets: () => [widget] }),
      parts: { create: (values: { attributes: Record<string, unknown> }) => ({ id: 'p1', ...values.attributes }) },
      'audit-entries': audit,
    };
    const generated: JsonApi = createApi(layers);
    const generic = new JsonApi()
      .resource({ ...schemas.widgets, ...layers.widgets })
      .resource({ ...schemas.makers, ...layers.makers })
      .resource({ ...schemas.parts, ...layers.parts })
      .resource({ ...schemas.auditEntries, ...layers['audit-entries'] });
    for (const url of [
      '/widgets/1?include=maker',
      '/widgets?fields[widgets]=name,builtOn,launchedAt',
      '/makers/9/widgets',
      '/audit-entries',
    ]) {
      const request = () => new Request(`http://localhost${url}`);
      const [a, b] = await Promise.all([generated.handle(request()), generic.handle(request())]);
      expect(a.status, url).toBe(200);
      expect(await a.json(), url).toEqual(await b.json());
    }
    const shown = await (await generated.handle(new Request('http://localhost/widgets/1'))).json();
    expect(shown.data.attributes).toMatchObject({
      nickname: null,
      launchedAt: '2024-05-06T07:08:09.000Z',
      launchDay: '2024-05-06',
      'display-name': 'GEAR',
      builtOn: '2023-01-02',
    });
  });
});

describe('the generated blog API', () => {
  it('binds countRelated and composableFilters: withCount counts, a custom filter inside filter[or] reaches where', async () => {
    const { createApi } = await import(await generateInto('blog'));
    const article = {
      id: '1',
      title: 'ts tips',
      body: null,
      status: 'published',
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
    };
    const conditions: unknown[] = [];
    const layer = (rows: Array<Record<string, unknown>>) => ({
      ...memory(rows, { author: () => null, comments: () => [], tags: () => [], articles: () => [] }),
      paginateCursor: (query: unknown) => query,
      where: (query: unknown, condition: unknown) => (conditions.push(condition), query),
      orderBy: (query: unknown) => query,
      countRelated: (relationship: { name: string }, models: readonly unknown[]) =>
        models.map(() => (relationship.name === 'comments' ? 3 : 0)),
      can: () => true,
    });
    const api: JsonApi = createApi({
      people: layer([]),
      articles: {
        ...layer([article]),
        customFilters: { search: (query: unknown) => query },
        composableFilters: ['search'],
      },
      comments: layer([]),
      tags: layer([]),
    });
    const shown = await api.handle(new Request('http://localhost/articles/1?withCount=comments'));
    expect(shown.status).toBe(200);
    expect((await shown.json()).data.relationships.comments.meta).toEqual({ count: 3 });
    const listed = await api.handle(
      new Request('http://localhost/articles?filter[or][0][search]=ts&filter[or][1][title]=x'),
    );
    expect(listed.status).toBe(200);
    expect(conditions).toEqual([
      {
        op: 'or',
        conditions: [
          { op: 'custom', field: 'search', value: 'ts' },
          { field: 'title', op: 'eq', value: 'x' },
        ],
      },
    ]);
  });
});
