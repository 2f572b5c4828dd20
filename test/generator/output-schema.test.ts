/**
 * What the server sends agrees with what the generated OpenAPI document says it sends: for every
 * fixture, a model with every attribute set and one with only what the model type requires
 * (optional attributes absent, nullable ones null) are served by the generated API and by the
 * runtime alone, and each response is valid against the document's own `XDocument` /
 * `XCollectionDocument` schema, with no attribute the schema does not list.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { Attribute, CustomFilter, CustomSort, JsonApi, ToMany, ToOne, type ResourceSchema } from 'jsonapi-gen';
import { describe, expect, it } from 'vitest';
import { writeFiles } from '../../generator/files.js';
import { FIXTURES, TMP, generateFixture } from './fixtures.js';

type Json = Record<string, unknown>;
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const formats = ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } };
const addFormats: FormatsPlugin = typeof formats.default === 'function' ? formats.default : formats.default.default;

/** A value of the attribute's JSON Schema (`schema`), as a host's model would hold it. */
function valueFor(schema: Json): unknown {
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null);
  const types = [schema.type].flat();
  if (schema.format === 'date-time') return new Date('2024-05-06T07:08:09.000Z');
  if (schema.format === 'date') return '2024-05-06';
  if (types.includes('string')) return 'text';
  if (types.includes('integer')) return 3;
  if (types.includes('number')) return 1.5;
  if (types.includes('boolean')) return true;
  if (types.includes('array')) return ['a'];
  return { deep: { x: 1 } };
}

/** Two models of `resource`: everything set, and only what its model type requires. */
function modelsOf(resource: ResourceSchema, attributes: Record<string, Json>): Json[] {
  const full: Json = { id: '1', builtAt: new Date('2023-01-02T03:04:05.000Z') };
  const bare: Json = { id: '2' };
  for (const field of resource.fields()) {
    if (!(field instanceof Attribute) || field.getter) continue;
    const schema = attributes[field.name];
    if (!schema) throw new Error(`${resource.type()}.${field.name} is not in the document's attributes`);
    full[field.name] = valueFor(schema);
    if (!field.isOptional) bare[field.name] = field.isNullable ? null : valueFor(schema);
  }
  // What `.get()` getters of the fixtures read (kitchen-sink's display-name reads name).
  bare.name ??= 'text';
  return [full, bare];
}

/** An untyped in-memory data layer over `rows` that has every member a declaration may ask for. */
function layerOf(resource: ResourceSchema, rows: Json[]): Json {
  const relationships = resource.fields().filter((f) => f instanceof ToOne || f instanceof ToMany);
  const keep = (query: unknown) => query;
  return {
    find: (id: string) => rows.find((row) => row.id === id) ?? null,
    query: () => rows,
    results: (query: Json[]) => query,
    paginate: keep,
    paginateCursor: keep,
    count: (query: Json[]) => query.length,
    countRelated: (_relationship: unknown, models: Json[]) => models.map(() => 2),
    where: keep,
    orderBy: keep,
    // Only for the custom filters and sorts the schema declares without a function.
    customFilters: Object.fromEntries(
      (resource.filters?.() ?? [])
        .filter((f) => f instanceof CustomFilter && !f.implementation)
        .map((f) => [f.name, keep]),
    ),
    customSorts: Object.fromEntries(
      (resource.sorts?.() ?? []).filter((s) => s instanceof CustomSort && !s.implementation).map((s) => [s.name, keep]),
    ),
    can: () => true,
    create: () => rows[0],
    update: (model: Json) => model,
    delete: () => {},
    addToRelationship: () => {},
    removeFromRelationship: () => {},
    related: Object.fromEntries(
      relationships.map((r) => [r.name, (models: Json[]) => models.map(() => (r instanceof ToMany ? [] : null))]),
    ),
  };
}

describe.each(['minimal', 'blog', 'kitchen-sink'])(
  'the %s fixture: responses match the generated OpenAPI document',
  (name) => {
    it('with every attribute set and with only the required ones, generated and runtime alone', async () => {
      const out = join(TMP, 'output-schema', name);
      const { files } = await generateFixture(name, out);
      writeFiles(out, files);
      const generated = (await import(pathToFileURL(join(out, 'index.ts')).href)) as {
        createApi: (layers: Json) => JsonApi;
        openapi: Json;
      };
      const schemas = (await import(pathToFileURL(join(FIXTURES, name, 'schema.ts')).href)) as Record<string, unknown>;
      const resources = Object.values(schemas).filter(
        (v): v is ResourceSchema => typeof (v as ResourceSchema).type === 'function',
      );

      const document: Json = { ...generated.openapi, $id: 'openapi' };
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema(document);
      const components = (document.components as { schemas: Record<string, Json> }).schemas;

      const layers: Record<string, Json> = {};
      const rows: Record<string, Json[]> = {};
      for (const resource of resources) {
        const title = resource.type().replace(/(^|-)([a-z])/g, (_, _dash, c: string) => c.toUpperCase());
        const attributes = (components[`${title}Attributes`]?.properties ?? {}) as Record<string, Json>;
        rows[resource.type()] = modelsOf(resource, attributes);
        layers[resource.type()] = layerOf(resource, rows[resource.type()]!);
      }
      const alone = new JsonApi();
      for (const resource of resources) alone.resource({ ...resource, ...layers[resource.type()] });

      let checked = 0;
      for (const resource of resources) {
        const type = resource.type();
        const title = type.replace(/(^|-)([a-z])/g, (_, _dash, c: string) => c.toUpperCase());
        const listed = new Set(Object.keys(components[`${title}Attributes`]?.properties ?? {}));
        const endpoints = resource.endpoints().map((e) => e.constructor.name);
        // With the counts of its countable relationships too (`relationships.<name>.meta.count`).
        const counted = resource
          .fields()
          .filter((f) => f instanceof ToMany && f.isCountable)
          .map((f) => f.name);
        const queries = ['', ...(counted.length > 0 ? [`?withCount=${counted.join(',')}`] : [])];
        const urls = queries.flatMap((query) => [
          ...(endpoints.includes('Show')
            ? rows[type]!.map((row) => [`/${type}/${String(row.id)}${query}`, `${title}Document`] as const)
            : []),
          ...(endpoints.includes('Index') ? [[`/${type}${query}`, `${title}CollectionDocument`] as const] : []),
        ]);
        for (const [url, schema] of urls) {
          for (const [server, api] of [
            ['generated', generated.createApi(layers)],
            ['runtime alone', alone],
          ] as const) {
            const response = await api.handle(new Request(`http://localhost${url}`));
            expect(response.status, `${server} ${url}`).toBe(200);
            const body = (await response.json()) as { data: Json | Json[] };
            const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`)!;
            expect(validate(body) ? [] : validate.errors, `${server} ${url}: ${JSON.stringify(body)}`).toEqual([]);
            for (const data of [body.data].flat()) {
              for (const key of Object.keys(data.attributes ?? {}))
                expect(listed, `${server} ${url}: ${key}`).toContain(key);
            }
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  },
);
