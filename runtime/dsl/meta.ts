/** Meta a resource object carries beside its attributes: declared values the server computes. */
import type { Context } from './context.js';
import type { ModelCheck } from './hooks.js';

/** The kinds of meta values. */
export type MetaKind = 'string' | 'integer' | 'number' | 'boolean' | 'date-time' | 'json';

/** The value a getter of each kind gives (a date-time as a `Date` or RFC 3339 text; `json` any JSON data). */
export interface MetaValues {
  string: string;
  integer: number;
  number: number;
  boolean: boolean;
  'date-time': Date | string;
  json: unknown;
}

/** Reads a meta value from a model (a method type, so a getter may name its model's type). */
export type MetaGetter = { bivariant(model: unknown, context: Context): unknown }['bivariant'];

/**
 * A meta member of every resource object of a type (`meta.wordCount`), computed by `get()` from
 * the model. `V` is what the getter must give (after `.type()` and `.nullable()`), `M` the model
 * type the getter reads. Served whatever sparse fieldsets ask: `fields[type]` names attributes
 * and relationships only.
 *
 * @example
 * Meta.make('wordCount').type('integer').get((article: { body: string | null }) => article.body?.split(/\s+/).filter(Boolean).length ?? 0);
 */
export class Meta<V = string, M = unknown> {
  readonly name: string;
  #kind: MetaKind = 'string';
  #nullable = false;
  #getter: MetaGetter | undefined;
  /** Type level only: the model the getter reads (what a checked resource compares with its model). */
  declare readonly '~model'?: ModelCheck<M>;

  protected constructor(name: string) {
    this.name = name;
  }

  /** A new meta member named `name`, a string until `.type()` says otherwise. */
  static make(name: string): Meta {
    return new Meta(name);
  }

  /** The kind of value the getter gives. */
  type<K extends MetaKind>(kind: K): Meta<MetaValues[K], M> {
    this.#kind = kind;
    return this as unknown as Meta<MetaValues[K], M>;
  }

  /** `null` is a value it may have. */
  nullable(): Meta<V | null, M> {
    this.#nullable = true;
    return this;
  }

  /** How the value is computed from the model; its `model` parameter names what the getter reads. */
  get<N>(getter: (model: N, context: Context) => V): Meta<V, N> {
    this.#getter = getter;
    return this as unknown as Meta<V, N>;
  }

  get kind(): MetaKind {
    return this.#kind;
  }

  get isNullable(): boolean {
    return this.#nullable;
  }

  /** The getter `get()` was given (a declared meta member without one is a declaration error). */
  get getter(): MetaGetter | undefined {
    return this.#getter;
  }
}

/** Any meta member, whatever its value and model types. */
export type AnyMeta = Meta<unknown, unknown>;

/**
 * Document meta of a Show (one model) or an Index (the page's models): computed per request and
 * merged into the document's `meta`, under the runtime's own members (`page`, `total`), which it
 * never replaces.
 */
export type DocumentMetaGetter<T> = {
  bivariant(models: T, context: Context): Record<string, unknown> | Promise<Record<string, unknown>>;
}['bivariant'];
