/**
 * Response types narrowed by the request (types only; nothing here runs): what a client gets
 * for `include` and `fields[type]`, computed from a registry of the API's resource objects and
 * relationships that the generator emits (`Document` and `CollectionDocument` in a generated
 * `index.ts` bind it). In JSON:API, `fields[type]` lists attributes and relationships alike.
 */

/** The parts of a request that shape its document. `include` paths as written (`'comments.author'`). */
export interface DocumentQuery {
  include?: readonly string[];
  fields?: { readonly [type: string]: readonly string[] };
}

/** What the generator emits for an API: each type's resource object, and each relationship's related type. */
export interface TypeRegistry {
  objects: {
    [type: string]: { type: string; id: string; attributes?: object; relationships?: object; links?: object };
  };
  relations: { [type: string]: { [relationship: string]: string } };
}

/** `O` with only the members `Names` lists in `attributes` and `relationships`. */
type Sparse<O, Names extends string> = {
  [K in keyof O]: K extends 'attributes' | 'relationships' ? Pick<O[K], Extract<keyof O[K], Names>> : O[K];
};

/** The resource object of type `T` under the request's fieldset for `T`. */
type ObjectOf<R extends TypeRegistry, T, Q extends DocumentQuery> = T extends keyof R['objects']
  ? Q['fields'] extends { readonly [K in T]: readonly (infer Names extends string)[] }
    ? Sparse<R['objects'][T], Names>
    : R['objects'][T]
  : never;

/** Every type an include path reaches from `T`: `'comments.author'` gives comments and people. */
type PathTypes<R extends TypeRegistry, T, P extends string> = T extends keyof R['relations']
  ? P extends `${infer Head}.${infer Rest}`
    ? Head extends keyof R['relations'][T]
      ? R['relations'][T][Head] | PathTypes<R, R['relations'][T][Head], Rest>
      : never
    : P extends keyof R['relations'][T]
      ? R['relations'][T][P]
      : never
  : never;

/** `included`, when the request includes anything: each reached type under its fieldset. */
type Included<R extends TypeRegistry, T, Q extends DocumentQuery> = Q['include'] extends readonly [string, ...string[]]
  ? { included: Array<ObjectOf<R, PathTypes<R, T, Q['include'][number]>, Q>> }
  : unknown;

/** The members every document may carry besides `data` and `included`. */
interface TopLevel {
  jsonapi?: { version: string; ext?: string[]; profile?: string[] };
  links?: { [name: string]: string | null };
  meta?: { [name: string]: unknown };
}

/**
 * The document of `GET /{T}/{id}` for the request `Q`.
 *
 * @example
 * import type { ApiTypes } from './generated/index.js';
 * type D = ResourceDocument<ApiTypes, 'articles', { include: ['author']; fields: { articles: ['title'] } }>;
 * // D['data']['attributes'] is { title: string }; D['included'] is people resource objects
 */
export type ResourceDocument<
  R extends TypeRegistry,
  T extends keyof R['objects'],
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{}`: the request with no query parameters
  Q extends DocumentQuery = {},
> = TopLevel & {
  data: ObjectOf<R, T, Q>;
} & Included<R, T, Q>;

/**
 * The document of `GET /{T}` for the request `Q`.
 *
 * @example
 * import type { ApiTypes } from './generated/index.js';
 * type D = ResourceCollectionDocument<ApiTypes, 'articles', { fields: { articles: ['title'] } }>;
 */
export type ResourceCollectionDocument<
  R extends TypeRegistry,
  T extends keyof R['objects'],
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{}`: the request with no query parameters
  Q extends DocumentQuery = {},
> = TopLevel & {
  data: Array<ObjectOf<R, T, Q>>;
} & Included<R, T, Q>;
