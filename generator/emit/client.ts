/**
 * `client.ts`: `createClient`, a typed Fetch client of the API. One object per resource type
 * with the endpoints the schema declares and no others; each method's options take only what
 * the server accepts (include paths, each type's field names, the declared filters with their
 * operators and value types, sort terms, pages), and its result is the document narrowed by the
 * request (`Document`, `CollectionDocument` of `index.ts`). Only types are imported, so that a
 * browser bundle of the client holds no server code.
 */
import type { ApiModel, AttributeModel, FilterModel, RelationshipModel, ResourceModel } from '../ir.js';
import { propertyKey, quote } from '../naming.js';
import { CLIENT_CORE, CLIENT_HELPERS } from './client-core.js';
import { header } from './helpers.js';
import { filterOperators, includePaths, reachableTypes, withCountNames } from './openapi-parameters.js';

export const CLIENT_FILE = 'client.ts';

type ByType = ReadonlyMap<string, ResourceModel>;

/** `a | b`, or `never` for none. */
const union = (names: readonly string[]): string => (names.length === 0 ? 'never' : names.map(quote).join(' | '));

/** The text of `client.ts` (unformatted: the printer formats it). */
export function emitClient(model: ApiModel): string {
  const byType: ByType = new Map(model.resources.map((r) => [r.type, r]));
  const code = [
    CLIENT_CORE,
    registry(model, byType),
    ...model.resources.map((r) => resourceTypes(r, byType)),
    atomicTypes(model),
    createClient(model),
  ].join('\n');
  const helpers = helpersCalled(code);
  const body = code + helpers.map((name) => CLIENT_HELPERS[name]).join('');
  // Only the names the client uses: it compiles under `noUnusedLocals`. Specifiers through
  // `quote`: a literal one here would read as an import of this module (incremental.ts).
  const importOf = (specifier: string, names: readonly string[]) => {
    const used = names.filter((name) => new RegExp(`\\b${name}\\b`).test(body));
    return used.length === 0 ? [] : [`import type { ${used.join(', ')} } from ${quote(specifier)};`];
  };
  return [
    header(model.schemaPath),
    '',
    ...importOf('jsonapi-gen', ['DocumentQuery', 'ErrorObject']),
    ...importOf('./index.js', ['ApiTypes', 'CollectionDocument', 'Document']),
    ...model.resources.flatMap((r) => importOf(`./resources/${r.type}.js`, resourceImports(r))),
    body,
  ]
    .join('\n')
    .replace(/(?<!\*\/)\n(?=\/\*\*|export |function |const |async function)/g, '\n\n'); // a blank line before each top-level declaration and its comment
}

/** The helpers `code` calls, and those they call, in the order of `CLIENT_HELPERS`. */
function helpersCalled(code: string): string[] {
  const called = new Set<string>();
  let text = code;
  for (let grew = true; grew;) {
    grew = false;
    for (const name of Object.keys(CLIENT_HELPERS)) {
      if (!called.has(name) && new RegExp(`\\b${name}\\(`).test(text)) {
        called.add(name);
        text += CLIENT_HELPERS[name];
        grew = true;
      }
    }
  }
  return Object.keys(CLIENT_HELPERS).filter((name) => called.has(name));
}

/** What a resource module may give the client: identifiers, and the values and bodies of writes. */
function resourceImports(r: ResourceModel): string[] {
  const p = r.names.pascal;
  return [`${p}Identifier`, `${p}CreateValues`, `${p}CreatePayload`, `${p}UpdateValues`, `${p}UpdatePayload`];
}

/** What the read options of every type need: its include paths, fieldsets and countable names. */
function registry(model: ApiModel, byType: ByType): string {
  const members = model.resources.map((r) => {
    const fieldsets = reachableTypes(r, byType)
      .map((type) => `${propertyKey(type)}?: readonly ${byType.get(type)!.names.pascal}FieldName[];`)
      .join(' ');
    return `${propertyKey(r.type)}: { include: ${union(includePaths(r, byType))}; fieldsets: { ${fieldsets} }; withCount: ${union(withCountNames(r, byType))} };`;
  });
  return `
/** For each type: its include paths, the fieldsets a response of it may carry, and the relationships \`withCount\` may name. */
export interface ClientTypes { ${members.join('\n')} }

/** The query parameters of a read of type \`T\` (a GET of one resource, or of related ones): \`include\`, \`fields\`, \`withCount\`. */
export type ReadOptions<T extends keyof ClientTypes, I, F> = RequestOptions & {
  include?: I;
  fields?: OnlyKnown<F, ClientTypes[T]['fieldsets']>;
  withCount?: readonly ClientTypes[T]['withCount'][];
};

/** The parts of a request that shape its document: its include paths \`I\` and fieldsets \`F\`. */
export type Shape<I extends NonNullable<DocumentQuery['include']>, F extends NonNullable<DocumentQuery['fields']>> = {
  include: I;
  fields: F;
};

/** The document of a relationship's related resources: \`Rel\` names the related type and whether it is to-many. */
export type RelatedDocument<
  Rel extends { type: keyof ApiTypes['objects']; many: boolean },
  I extends NonNullable<DocumentQuery['include']>,
  F extends NonNullable<DocumentQuery['fields']>,
> = Rel['many'] extends true
  ? CollectionDocument<Rel['type'], Shape<I, F>>
  : NullableDocument<Document<Rel['type'], Shape<I, F>>>;
`;
}

/** The types of one resource's client: field names, filters, options, and its methods. */
function resourceTypes(r: ResourceModel, byType: ByType): string {
  const p = r.names.pascal;
  const t = quote(r.type);
  const fieldNames = [...r.attributes.map((a) => a.name), ...r.relationships.map((rel) => rel.name)];
  const out: string[] = [
    `/** The field names of \`${r.type}\`, as \`fields[${r.type}]\` lists them. */`,
    `export type ${p}FieldName = ${union(fieldNames)};`,
  ];
  const methods: string[] = [];
  const generics = (type: string) =>
    `const I extends readonly ClientTypes[${quote(type)}]['include'][] = [], const F extends ClientTypes[${quote(type)}]['fieldsets'] = {}`;
  const index = r.endpoints.index;
  if (index) {
    out.push(...listTypes(r, byType));
    methods.push(
      `/** \`GET /${r.type}\`: a page of resources, narrowed by \`include\` and \`fields\`. */`,
      `list<${generics(r.type)}>(options?: ${p}ListOptions<I, F>): Promise<CollectionDocument<${t}, Shape<I, F>>>;`,
      `/** Every page of \`GET /${r.type}\`, in order, following each page's \`links.next\`${index.cursor ? ' (cursor pages)' : ''}. */`,
      `all<${generics(r.type)}>(options?: ${p}AllOptions<I, F>): AsyncGenerator<CollectionDocument<${t}, Shape<I, F>>, void, undefined>;`,
    );
  }
  if (r.endpoints.show) {
    methods.push(
      `/** \`GET /${r.type}/{id}\`: one resource, narrowed by \`include\` and \`fields\`. */`,
      `get<${generics(r.type)}>(id: string, options?: ReadOptions<${t}, I, F>): Promise<Document<${t}, Shape<I, F>>>;`,
    );
  }
  if (r.endpoints.create) {
    const defaulted = r.attributes.filter((a) => a.writable && a.hasDefault).map((a) => a.name);
    const attributes =
      defaulted.length > 0
        ? `WithDefaults<${p}CreateValues['attributes'], ${union(defaulted)}>`
        : `${p}CreateValues['attributes']`;
    const optional = (members: readonly { required: boolean; writable: boolean }[]) =>
      members.some((m) => m.writable && m.required) ? '' : '?';
    out.push(
      `/** What \`${r.type}.create\` takes: attributes (those with a default may be left out) and relationships as identifiers. */`,
      `export type ${p}CreateInput = {`,
      ...(r.clientIds ? ['/** A client-generated id. */', 'id?: string;'] : []),
      `attributes${optional(r.attributes)}: ${attributes};`,
      `relationships${optional(r.relationships)}: ${p}CreateValues['relationships'];`,
      '};',
    );
    methods.push(
      `/** \`POST /${r.type}\`: the created resource. */`,
      `create(values: ${p}CreateInput, options?: RequestOptions): Promise<Document<${t}>>;`,
    );
  }
  if (r.endpoints.update) {
    methods.push(
      `/** \`PATCH /${r.type}/{id}\` with the members to change; \`ifMatch\` sends \`If-Match\`${r.endpoints.requiresIfMatch ? ' (the server requires it)' : ''}. */`,
      `update(id: string, values: Partial<${p}UpdateValues>, options?: RequestOptions & { ifMatch?: string }): Promise<Document<${t}>>;`,
    );
  }
  if (r.endpoints.delete) {
    methods.push(
      `/** \`DELETE /${r.type}/{id}\`. */`,
      `delete(id: string, options?: RequestOptions${r.endpoints.requiresIfMatch ? ' & { ifMatch?: string }' : ''}): Promise<void>;`,
    );
  }
  methods.push(...relationshipMethods(r, byType, out));
  out.push(
    `/** The endpoints of \`${r.type}\` the schema declares. */`,
    `export interface ${p}Client {`,
    ...methods,
    '}',
  );
  return out.join('\n');
}

/** The filters, sort terms, pages and options of an Index. */
function listTypes(r: ResourceModel, byType: ByType): string[] {
  const p = r.names.pascal;
  const index = r.endpoints.index!;
  const out: string[] = [];
  const members: string[] = [];
  if (r.filterDetails.length > 0) {
    const filters = r.filterDetails.map((f) => `${propertyKey(f.name)}?: ${filterType(r, f, byType)};`);
    out.push(
      `/** The filters of \`GET /${r.type}\`, each with the operators it takes and the value it compares. */`,
      `export type ${p}Filters = { ${filters.join('\n')} };`,
    );
    members.push(`filter?: FilterClauses<${p}Filters>;`);
  }
  if (r.sorts.length > 0) {
    out.push(
      `/** A sort term of \`GET /${r.type}\`: a declared sort, descending with a leading \`-\`. */`,
      `export type ${p}SortTerm = ${union(r.sorts.flatMap((s) => [s, `-${s}`]))};`,
    );
    members.push(`sort?: readonly ${p}SortTerm[];`);
  }
  if (index.pagination) {
    const pages = ['{ offset?: number; limit?: number }'];
    if (index.cursor) pages.push('{ size?: number; after?: string; before?: string }');
    out.push(
      `/** A page of \`GET /${r.type}\`: by offset${index.cursor ? ', or by cursor' : ''} (at most ${index.pagination.maxLimit} resources). */`,
      `export type ${p}Page = ${pages.join(' | ')};`,
    );
    members.push(`page?: ${p}Page;`);
  }
  const rest = members.length > 0 ? ` & { ${members.join(' ')} }` : '';
  out.push(
    `/** The options of \`${r.type}.list\`. */`,
    `export type ${p}ListOptions<I, F> = ReadOptions<${quote(r.type)}, I, F>${rest};`,
    `/** The options of \`${r.type}.all\`: those of \`list\`, and how many resources each page holds. */`,
    `export type ${p}AllOptions<I, F> = Omit<${p}ListOptions<I, F>, 'page'> & { pageSize?: number };`,
  );
  return out;
}

/** A filter's value: shorthands for `eq` and a list (`in`) where it takes them, and its operators. */
function filterType(r: ResourceModel, filter: FilterModel, byType: ByType): string {
  if (filter.declares !== 'where' && filter.declares !== 'count') return 'string | readonly string[]';
  const operators = filterOperators(r, filter, byType);
  const value = filter.declares === 'count' ? 'number' : valueType(r, filter.name, byType);
  const forms: string[] = [];
  if (operators.includes('eq')) forms.push(value);
  if (operators.includes('in') && filter.declares === 'where') forms.push(`readonly (${value})[]`);
  forms.push(`FilterOperators<${value}, ${union(operators)}>`);
  return forms.join(' | ');
}

/** The TypeScript type of one value a `Where` filter compares: by its attribute's kind, or an id. */
function valueType(r: ResourceModel, name: string, byType: ByType): string {
  const [first, path] = name.split('.') as [string, string | undefined];
  const owner =
    path === undefined ? r : byType.get(r.relationships.find((rel) => rel.name === first)?.relatedType ?? '');
  const attribute = owner?.attributes.find((a) => a.name === (path ?? first));
  return attribute ? kindType(attribute) : 'string';
}

function kindType(attribute: AttributeModel): string {
  switch (attribute.kind) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return union(attribute.enumValues);
    default:
      return 'string';
  }
}

/** `related`, `relationship`, and the linkage writes: their lookup types go to `out`. */
function relationshipMethods(r: ResourceModel, byType: ByType, out: string[]): string[] {
  const p = r.names.pascal;
  const methods: string[] = [];
  if (r.relationships.length === 0) return methods;
  const identifier = (rel: RelationshipModel) => `${byType.get(rel.relatedType)!.names.pascal}Identifier`;
  if (r.endpoints.show) {
    out.push(
      `/** The relationships of \`${r.type}\`: each one's related type and whether it is to-many. */`,
      `export type ${p}Relations = { ${r.relationships
        .map(
          (rel) =>
            `${propertyKey(rel.name)}: { type: ${quote(rel.relatedType)}; many: ${rel.cardinality === 'many'} };`,
        )
        .join(' ')} };`,
      `/** The linkage of each relationship of \`${r.type}\`. */`,
      `export type ${p}Linkage = { ${r.relationships
        .map((rel) => `${propertyKey(rel.name)}: ${identifier(rel)}${rel.cardinality === 'many' ? '[]' : ' | null'};`)
        .join(' ')} };`,
    );
    const generics = `N extends keyof ${p}Relations, const I extends readonly ClientTypes[${p}Relations[N]['type']]['include'][] = [], const F extends ClientTypes[${p}Relations[N]['type']]['fieldsets'] = {}`;
    methods.push(
      `/** \`GET /${r.type}/{id}/{relationship}\`: the related resources, narrowed by \`include\` and \`fields\`. */`,
      `related<${generics}>(id: string, relationship: N, options?: ReadOptions<${p}Relations[N]['type'], I, F>): Promise<RelatedDocument<${p}Relations[N], I, F>>;`,
      `/** \`GET /${r.type}/{id}/relationships/{relationship}\`: the relationship's linkage. */`,
      `relationship<N extends keyof ${p}Linkage>(id: string, relationship: N, options?: RequestOptions): Promise<LinkageDocument<${p}Linkage[N]>>;`,
    );
  }
  const writable = r.endpoints.update ? r.relationships.filter((rel) => rel.writable) : [];
  if (writable.length === 0) return methods;
  out.push(
    `/** What \`${r.type}.replace\` takes for each writable relationship: the related ids${writable.some((rel) => rel.cardinality === 'one' && !rel.required) ? ', null to clear an optional to-one' : ''}. */`,
    `export type ${p}Replace = { ${writable
      .map(
        (rel) =>
          `${propertyKey(rel.name)}: ${rel.cardinality === 'many' ? 'readonly string[]' : rel.required ? 'string' : 'string | null'};`,
      )
      .join(' ')} };`,
  );
  methods.push(
    `/** \`PATCH /${r.type}/{id}/relationships/{relationship}\`: the relationship becomes exactly these ids. */`,
    `replace<N extends keyof ${p}Replace>(id: string, relationship: N, ids: ${p}Replace[N], options?: RequestOptions): Promise<void>;`,
  );
  const toMany = writable.filter((rel) => rel.cardinality === 'many').map((rel) => rel.name);
  if (toMany.length > 0) {
    methods.push(
      `/** \`POST /${r.type}/{id}/relationships/{relationship}\`: adds these ids (those present stay). */`,
      `addTo(id: string, relationship: ${union(toMany)}, ids: readonly string[], options?: RequestOptions): Promise<void>;`,
      `/** \`DELETE /${r.type}/{id}/relationships/{relationship}\`: removes these ids (those absent are ignored). */`,
      `removeFrom(id: string, relationship: ${union(toMany)}, ids: readonly string[], options?: RequestOptions): Promise<void>;`,
    );
  }
  return methods;
}

/** The operations and results of Atomic Operations, where the API serves them. */
function atomicTypes(model: ApiModel): string {
  if (!model.extensions.atomic) return '';
  const operations = model.resources.flatMap((r) => {
    const p = r.names.pascal;
    return [
      ...(r.endpoints.create ? [`{ op: 'add'; data: ${p}CreatePayload['data'] & { lid?: string } }`] : []),
      ...(r.endpoints.update ? [`{ op: 'update'; data: ${p}UpdatePayload['data'] }`] : []),
      ...(r.endpoints.delete ? [`{ op: 'remove'; ref: { type: ${quote(r.type)}; id: string } }`] : []),
    ];
  });
  return `
/** One operation of \`client.atomic\`: a resource added, updated or removed. */
export type AtomicOperation = ${operations.length > 0 ? operations.join(' | ') : 'never'};

/** The answer of Atomic Operations: one result per operation, in order (\`data\` for an add or an update). */
export interface AtomicResultsDocument {
  'atomic:results': Array<{ data?: ApiTypes['objects'][keyof ApiTypes['objects']] | null; meta?: { [name: string]: unknown } }>;
}
`;
}

/** `createClient` and the implementation of each resource's methods. */
function createClient(model: ApiModel): string {
  const atomic = model.extensions.atomic;
  const members = model.resources.map((r) => `${propertyKey(r.type)}: ${r.names.pascal}Client;`);
  if (atomic)
    members.push(
      `/** \`POST ${atomic.path}\`: the operations, in one transaction. */`,
      'atomic(operations: readonly AtomicOperation[], options?: RequestOptions): Promise<AtomicResultsDocument>;',
    );
  const [first] = model.resources;
  const example = first
    ? `\n * const page = await client.${first.type.includes('-') ? `[${quote(first.type)}]` : first.type}.list();`
    : '';
  const implementations = model.resources.map((r) => `${propertyKey(r.type)}: ${r.names.camel}Client(t),`);
  if (atomic)
    implementations.push(
      `atomic: (operations, options) => t.send('POST', t.url(${quote(atomic.path)}), { ...options, body: { 'atomic:operations': operations }, media: ${quote(`application/vnd.api+json; ext="${atomic.uri}"`)} }),`,
    );
  return [
    `/** The API's client: one object per resource type${atomic ? ', and Atomic Operations' : ''}. */`,
    `export interface Client { ${members.join('\n')} }`,
    '',
    '/**',
    ' * A typed client of the API over Fetch.',
    ' *',
    ' * @example',
    ` * const client = createClient({ baseUrl: 'https://api.example.com' });${example}`,
    ' */',
    'export function createClient(options: ClientOptions): Client {',
    '  const t = transport(options);',
    `  return { ${implementations.join('\n')} };`,
    '}',
    ...model.resources.map(resourceClient),
  ].join('\n');
}

/** The methods of one resource's client, as declared. */
function resourceClient(r: ResourceModel): string {
  const p = r.names.pascal;
  const t = quote(r.type);
  const collection = quote(`/${r.type}`);
  const methods: string[] = [];
  const index = r.endpoints.index;
  if (index) {
    methods.push(`list: (options) => t.send('GET', t.url(${collection}, options), options),`);
    const page = index.cursor
      ? `pageSize === undefined ? { size: ${index.pagination?.defaultLimit ?? 'undefined'} } : { size: pageSize }`
      : '{ limit: pageSize }';
    methods.push(
      index.pagination
        ? `all: (options) => { const { pageSize, ...rest } = options ?? {}; return pagesOf(t, t.url(${collection}, { ...rest, page: ${page} }), options); },`
        : `all: (options) => pagesOf(t, t.url(${collection}, options), options),`,
    );
  }
  if (r.endpoints.show) methods.push(`get: (id, options) => t.send('GET', t.url(pathOf(${t}, id), options), options),`);
  if (r.endpoints.create)
    methods.push(
      `create: (values, options) => t.send('POST', t.url(${collection}), { ...options, body: resourceObject(${t}, undefined, values) }),`,
    );
  if (r.endpoints.update)
    methods.push(
      `update: (id, values, options) => t.send('PATCH', t.url(pathOf(${t}, id)), { ...options, body: resourceObject(${t}, id, values) }),`,
    );
  if (r.endpoints.delete) methods.push(`delete: (id, options) => t.send('DELETE', t.url(pathOf(${t}, id)), options),`);
  if (r.relationships.length > 0 && r.endpoints.show) {
    methods.push(
      `related: (id, relationship, options) => t.send('GET', t.url(pathOf(${t}, id, relationship), options), options),`,
      `relationship: (id, relationship, options) => t.send('GET', t.url(pathOf(${t}, id, 'relationships', relationship)), options),`,
    );
  }
  const writable = r.endpoints.update ? r.relationships.filter((rel) => rel.writable) : [];
  if (writable.length > 0) {
    const related = `{ ${writable.map((rel) => `${propertyKey(rel.name)}: ${quote(rel.relatedType)}`).join(', ')} }`;
    const linkage = (ids: string, name: string) =>
      `${ids} === null ? null : typeof ${ids} === 'string' ? { type: RELATED[${name}], id: ${ids} } : identifiers(RELATED[${name}], ${ids})`;
    methods.push(
      `replace: (id, relationship, ids, options) => t.send('PATCH', t.url(pathOf(${t}, id, 'relationships', relationship)), { ...options, body: { data: ${linkage('ids', 'relationship')} } }),`,
    );
    if (writable.some((rel) => rel.cardinality === 'many')) {
      for (const [name, method] of [
        ['addTo', 'POST'],
        ['removeFrom', 'DELETE'],
      ] as const) {
        methods.push(
          `${name}: (id, relationship, ids, options) => t.send('${method}', t.url(pathOf(${t}, id, 'relationships', relationship)), { ...options, body: { data: identifiers(RELATED[relationship], ids) } }),`,
        );
      }
    }
    return [
      `function ${r.names.camel}Client(t: Transport): ${p}Client {`,
      `  /** The related type of each writable relationship. */`,
      `  const RELATED = ${related} as const;`,
      `  return { ${methods.join('\n')} };`,
      '}',
    ].join('\n');
  }
  return [
    `function ${r.names.camel}Client(t: Transport): ${p}Client {`,
    `  return { ${methods.join('\n')} };`,
    '}',
  ].join('\n');
}
