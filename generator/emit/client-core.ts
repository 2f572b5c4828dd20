/**
 * The part of the generated `client.ts` that is the same for every API: its options, its error,
 * the filter types, and how a request's query and body are written and sent. Kept as text (not
 * imported from the runtime) so that the client needs nothing at run time but Fetch: it imports
 * only types, and a browser bundle of it holds no server code. Written without template literals,
 * so that it can stand inside one here; its `@example` tag is interpolated, so that the test of
 * this repository's doc examples does not take it for one of this file's.
 */
export const CLIENT_CORE = `
/** What \`createClient\` takes. */
export interface ClientOptions {
  /** Where the API is served, such as \`https://api.example.com\` (each path is appended to it). */
  baseUrl: string;
  /** The Fetch function to send requests with (default: the global \`fetch\`). */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers every request carries (such as \`authorization\`). */
  headers?: HeadersInit;
}

/** What every method takes besides its query: headers for this request only, and a signal to abort it. */
export interface RequestOptions {
  headers?: HeadersInit;
  signal?: AbortSignal;
}

/**
 * A request the server answered with a status other than 2xx: the status, and the error objects
 * of its error document (empty when the answer was not one).
 *
 * ${'@example'}
 * try {
 *   await client.articles.get('999');
 * } catch (error) {
 *   if (error instanceof JsonApiClientError && error.status === 404) console.log(error.errors[0]?.detail);
 * }
 */
export class JsonApiClientError extends Error {
  readonly status: number;
  readonly errors: ErrorObject[];

  constructor(status: number, errors: ErrorObject[], request: string) {
    const first = errors[0];
    super(request + ': ' + status + (first ? ' ' + (first.detail ?? first.title) : ''));
    this.name = 'JsonApiClientError';
    this.status = status;
    this.errors = errors;
  }
}

/** A filter's operators \`Ops\`, each with the value it compares \`V\`: a list for \`in\` and \`nin\`, a boolean for \`null\`. */
export type FilterOperators<V, Ops extends string> = {
  [K in Ops]?: K extends 'in' | 'nin' ? readonly V[] : K extends 'null' ? boolean : V;
};

/** A clause set: the filters \`F\` (all of them hold), and \`and\`, \`or\` and \`not\` groups of clause sets. */
export type FilterClauses<F> = F & {
  and?: readonly FilterClauses<F>[];
  or?: readonly FilterClauses<F>[];
  not?: FilterClauses<F>;
};

/** \`T\` with its members \`K\` optional: the attributes a server gives a default. */
export type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** The document of a to-one relationship's related resource: \`data\` is null when there is none. */
export type NullableDocument<D extends { data: unknown }> = Omit<D, 'data'> & { data: D['data'] | null };

/** The document of a relationship's linkage (\`GET /{type}/{id}/relationships/{name}\`). */
export interface LinkageDocument<D> {
  data: D;
  links?: { [name: string]: string | null };
  meta?: { [name: string]: unknown };
}

/** \`F\`, refusing members outside \`Known\`: a fieldset of a type the response cannot hold. */
export type OnlyKnown<F, Known> = F & { [K in Exclude<keyof F, keyof Known>]: never };

const MEDIA_TYPE = 'application/vnd.api+json';

/** A request's query, as the methods give it (each method's signature types it). */
interface Query {
  include?: readonly string[];
  fields?: { readonly [type: string]: readonly string[] | undefined };
  filter?: object;
  sort?: readonly string[];
  page?: { readonly [name: string]: string | number | undefined };
  withCount?: readonly string[];
}

/** A write: its method, body and media type, and the \`If-Match\` it carries. */
interface Write {
  body?: unknown;
  media?: string;
  ifMatch?: string;
}

type Send = <R>(method: string, url: string, options: (RequestOptions & Write) | undefined) => Promise<R>;

/** How a client sends: a path's URL with its query, and requests answered with their document. */
interface Transport {
  url(path: string, query?: Query): string;
  send: Send;
}

function transport(options: ClientOptions): Transport {
  const base = options.baseUrl.replace(/\\/+$/, '');
  const fetchRequest = options.fetch ?? ((request: Request) => fetch(request));
  return {
    url(path, query) {
      const search = query ? searchOf(query).toString() : '';
      return base + path + (search ? '?' + search : '');
    },
    async send<R>(method: string, url: string, request: (RequestOptions & Write) | undefined): Promise<R> {
      const headers = new Headers(options.headers);
      new Headers(request?.headers).forEach((value, name) => headers.set(name, value));
      const media = request?.media ?? MEDIA_TYPE;
      headers.set('accept', media);
      if (request?.body !== undefined) headers.set('content-type', media);
      if (request?.ifMatch !== undefined) headers.set('if-match', request.ifMatch);
      const response = await fetchRequest(
        new Request(url, {
          method,
          headers,
          ...(request?.body !== undefined && { body: JSON.stringify(request.body) }),
          ...(request?.signal && { signal: request.signal }),
        }),
      );
      const text = await response.text();
      if (!response.ok) throw new JsonApiClientError(response.status, errorsOf(text), method + ' ' + url);
      return (text === '' ? undefined : JSON.parse(text)) as R;
    },
  };
}

/** The error objects of an error document, or none when the text is not one. */
function errorsOf(text: string): ErrorObject[] {
  try {
    const document: unknown = JSON.parse(text);
    if (typeof document === 'object' && document !== null && 'errors' in document && Array.isArray(document.errors))
      return document.errors as ErrorObject[];
  } catch {
    // Not JSON (a proxy's page): the status says what there is to say.
  }
  return [];
}

/** The query parameters of \`query\`, as the server reads them: lists comma-separated. */
function searchOf(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  if (query.include && query.include.length > 0) params.set('include', query.include.join(','));
  for (const [type, names] of Object.entries(query.fields ?? {})) {
    if (names) params.set('fields[' + type + ']', names.join(','));
  }
  if (query.filter) addClauses(params, 'filter', query.filter);
  if (query.sort && query.sort.length > 0) params.set('sort', query.sort.join(','));
  for (const [name, value] of Object.entries(query.page ?? {})) {
    if (value !== undefined) params.set('page[' + name + ']', String(value));
  }
  if (query.withCount && query.withCount.length > 0) params.set('withCount', query.withCount.join(','));
  return params;
}

/**
 * A clause set under \`prefix\`: \`[name]=v\`, a list as \`[name][]=v\` (each value as it is,
 * never split on commas), \`[name][op]=v\` (\`in\` and \`nin\` comma-separated), and groups:
 * \`[and][0][...]\`, \`[or][0][...]\`, \`[not][...]\`.
 */
function addClauses(params: URLSearchParams, prefix: string, clauses: object): void {
  for (const [name, value] of Object.entries(clauses) as Array<[string, unknown]>) {
    if (value === undefined) continue;
    const key = prefix + '[' + name + ']';
    if ((name === 'and' || name === 'or') && Array.isArray(value)) {
      (value as readonly object[]).forEach((item, i) => addClauses(params, key + '[' + i + ']', item));
    } else if (name === 'not' && typeof value === 'object' && value !== null) {
      addClauses(params, key, value);
    } else if (Array.isArray(value)) {
      for (const item of value as readonly unknown[]) params.append(key + '[]', String(item));
    } else if (typeof value === 'object' && value !== null) {
      for (const [op, operand] of Object.entries(value) as Array<[string, unknown]>) {
        if (operand === undefined) continue;
        const text = Array.isArray(operand) ? (operand as readonly unknown[]).map(String).join(',') : String(operand);
        params.set(key + '[' + op + ']', text);
      }
    } else {
      params.set(key, String(value));
    }
  }
}
`;

/**
 * The helpers some APIs' clients need and others do not, by name: each is written only when the
 * rest of the client calls it (the generated file compiles under `noUnusedLocals`).
 */
export const CLIENT_HELPERS: Readonly<Record<string, string>> = {
  pathOf: `
/** The path of a resource, or of a member under it. */
function pathOf(type: string, id: string, ...rest: string[]): string {
  return ['', type, encodeURIComponent(id), ...rest].join('/');
}
`,
  linkageOf: `
/** A write's relationships as the document carries them: each identifier (or list of them) as \`data\`. */
function linkageOf(relationships: object | undefined): { [name: string]: { data: unknown } } | undefined {
  if (relationships === undefined) return undefined;
  return Object.fromEntries(Object.entries(relationships).map(([name, data]) => [name, { data }]));
}
`,
  identifiers: `
/** The ids of \`type\` as identifiers. */
function identifiers(type: string, ids: readonly string[]): Array<{ type: string; id: string }> {
  return ids.map((id) => ({ type, id }));
}
`,
  resourceObject: `
/** A write's values (attributes, relationships as identifiers, a client id) as a resource object. */
function resourceObject(type: string, id: string | undefined, values: { id?: string; attributes?: object; relationships?: object }) {
  const relationships = linkageOf(values.relationships);
  return {
    data: {
      type,
      ...((id ?? values.id) !== undefined && { id: id ?? values.id }),
      ...(values.attributes && { attributes: values.attributes }),
      ...(relationships && { relationships }),
    },
  };
}
`,
  pagesOf: `
/**
 * Every page of a collection, following each page's \`links.next\` (an offset or a cursor, as the
 * server pages) until there is none.
 */
async function* pagesOf<D extends { links?: { [name: string]: string | null } }>(
  t: Transport,
  url: string,
  options: RequestOptions | undefined,
): AsyncGenerator<D, void, undefined> {
  let next: string | null | undefined = url;
  while (next) {
    const page: D = await t.send<D>('GET', next, options);
    yield page;
    next = page.links?.['next'];
  }
}
`,
};
