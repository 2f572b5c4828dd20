import type { Context } from './context.js';
import type { MaybePromise } from '../core/types.js';
import { Visibility } from './visibility.js';
import type { WriteValues } from '../core/vocabulary.js';
import type { AfterCommitHook, CreateSavingHook, DeletingHook, UpdateSavingHook } from './hooks.js';
import type { DocumentMetaGetter } from './meta.js';
import type { ModelCheck, ValuesHook } from './hooks.js';

/** Hooks kept untyped, as the runtime calls them (the builders typed them where they were given). */
type Untyped = (...args: never[]) => unknown;

/** The abilities `can()` asks about; any string works, these are the ones endpoints use. */
export type Ability = 'view' | 'create' | 'update' | 'delete' | (string & {});

/** The five endpoint kinds a resource can enable. */
export type EndpointKind = 'show' | 'index' | 'create' | 'update' | 'delete';

/** Offset pagination settings of an Index. */
export interface PaginationOptions {
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/** An endpoint: its kind, and the callbacks that decide who may use it. */
export abstract class Endpoint<Args extends unknown[] = [Context]> extends Visibility<Args> {
  abstract readonly kind: EndpointKind;
}

/**
 * `GET /{type}/{id}`, and the related and relationship endpoints below it.
 *
 * @example
 * Show.make().visible((ctx) => ctx.getAttribute('user') !== undefined);
 */
export class Show extends Endpoint<[Context]> {
  readonly kind = 'show' as const;
  #meta: DocumentMetaGetter<never> | undefined;

  /**
   * Document meta of `GET /{type}/{id}`, computed from the model: merged into the document's
   * `meta` (the runtime's own members win a clash).
   *
   * @example
   * Show.make().meta((article: { updatedAt: string }) => ({ fresh: Date.parse(article.updatedAt) > Date.now() - 86_400_000 }));
   */
  meta<M = unknown>(getter: DocumentMetaGetter<M>): this {
    this.#meta = getter;
    return this;
  }

  /** The document meta getter `meta()` was given. */
  get documentMeta(): DocumentMetaGetter<unknown> | undefined {
    return this.#meta;
  }

  /** A new Show endpoint. */
  static make(): Show {
    return new Show();
  }
}

/**
 * `GET /{type}`: filtered, sorted, paginated collections.
 *
 * @example
 * Index.make().paginate(20, 50).defaultSort('-createdAt').countable();
 */
export class Index extends Endpoint<[Context]> {
  readonly kind = 'index' as const;
  #pagination: PaginationOptions | undefined;
  #defaultSort: string | undefined;
  #countable: boolean | undefined;
  #cursor = false;
  #meta: DocumentMetaGetter<never> | undefined;

  /**
   * Document meta of `GET /{type}`, computed from the page's models: merged into the document's
   * `meta` beside the runtime's own members (`total`, `page`), which win a clash.
   *
   * @example
   * Index.make().meta((articles: readonly { status: string }[]) => ({ drafts: articles.filter((a) => a.status === 'draft').length }));
   */
  meta<M = unknown>(getter: DocumentMetaGetter<readonly M[]>): this {
    this.#meta = getter;
    return this;
  }

  /** The document meta getter `meta()` was given. */
  get documentMeta(): DocumentMetaGetter<readonly unknown[]> | undefined {
    return this.#meta;
  }

  /** A new Index endpoint. */
  static make(): Index {
    return new Index();
  }

  /**
   * Offset pagination: `page[limit]` defaults to `defaultLimit` and is clamped to `maxLimit`;
   * both whole numbers, 1 or more, the default not above the maximum (checked at registration).
   */
  paginate(defaultLimit = 20, maxLimit = 50): this {
    this.#pagination = Object.freeze({ defaultLimit, maxLimit });
    return this;
  }

  /** The sort used when the client sends none, in `sort` syntax (`'title,-createdAt'`). */
  defaultSort(sort: string): this {
    this.#defaultSort = sort;
    return this;
  }

  /**
   * Whether paginated responses count the collection (a `last` link and the total in `meta`).
   * Undeclared, a resource that implements `Countable` is counted, as the specification says;
   * `countable()` requires `count` (checked at registration) and is what generated bindings and
   * the Kysely store count on; `countable(false)` opts a counting data layer out.
   *
   * @example
   * Index.make().paginate(20, 50).countable();      // always counted: `count` is required
   * Index.make().paginate(20, 50).countable(false); // never counted, even by a data layer that can
   */
  countable(counted = true): this {
    this.#countable = counted;
    return this;
  }

  /**
   * Cursor pagination besides offset (the JSON:API cursor pagination profile): `page[size]`,
   * `page[after]`, `page[before]`, chosen when the client sends one of them; the sizes are the
   * offset pagination's (default, max). Needs `paginate()` and the data layer's `paginateCursor`;
   * cursor pages are sorted by `SortBy` sorts on attributes that are never null, the id last.
   *
   * @example
   * Index.make().paginate(20, 50).cursor()
   */
  cursor(): this {
    this.#cursor = true;
    return this;
  }

  get pagination(): PaginationOptions | undefined {
    return this.#pagination;
  }

  /** Whether the Index takes cursor pagination too. */
  get acceptsCursor(): boolean {
    return this.#cursor;
  }

  get defaultSortValue(): string | undefined {
    return this.#defaultSort;
  }

  /** Whether `countable()` was declared (true), not whether a data layer counts by itself. */
  get isCountable(): boolean {
    return this.#countable === true;
  }

  /** `countable()`'s argument: undefined when undeclared, which lets a `Countable` data layer count. */
  get countableDeclaration(): boolean | undefined {
    return this.#countable;
  }
}

/**
 * `POST /{type}`.
 *
 * @example
 * Create.make().visible((ctx) => ctx.getAttribute('user') !== undefined);
 */
export class Create<H = unknown> extends Endpoint<[Context]> {
  readonly kind = 'create' as const;
  /** Type level only: what its hooks were typed with, for `typedResources` to check. */
  declare readonly '~hooks'?: H;
  #clientIds = false;
  #saving: Untyped[] = [];
  #saved: Untyped[] = [];

  /**
   * Runs inside the request's transaction, after the document was checked and before the data
   * layer writes: it may return new values (typed `V`: the generated `<Type>CreateValues`), a
   * list of problems (422, nothing written), or nothing. A required member the client left out
   * may still be missing here; it is checked after the hook.
   *
   * @example
   * type ArticleValues = { attributes: { title: string }; relationships: { author: { type: 'people'; id: string } } };
   * Create.make().saving<ArticleValues>((values, ctx) => {
   *   const user = ctx.getAttribute('user');
   *   if (values.relationships.author || typeof user !== 'string') return;
   *   return { ...values, relationships: { ...values.relationships, author: { type: 'people', id: user } } };
   * });
   */
  saving<V extends object = WriteValues>(hook: CreateSavingHook<V>): Create<H | ['create', CreateSavingHook<V>]> {
    this.#saving.push(hook);
    return this;
  }

  /**
   * Runs after the write committed (in Atomic Operations, after the whole batch), with the
   * created model; never for a write that was rolled back. What it throws goes to `onError`.
   *
   * @example
   * Create.make().saved((article: { id: number }) => console.log('created', article.id));
   */
  saved<M = unknown>(hook: AfterCommitHook<M>): Create<H | ['model', ModelCheck<M>]> {
    this.#saved.push(hook);
    return this;
  }

  /** The `saving` hooks, in the order given. */
  get savingHooks(): readonly Untyped[] {
    return this.#saving;
  }

  /** The `saved` hooks, in the order given. */
  get afterHooks(): readonly Untyped[] {
    return this.#saved;
  }

  /** Accept client-generated ids in `data.id` (403 otherwise); an id already taken is 409. */
  clientIds(): this {
    this.#clientIds = true;
    return this;
  }

  get acceptsClientIds(): boolean {
    return this.#clientIds;
  }

  /** A new Create endpoint. */
  static make(): Create<never> {
    return new Create<never>();
  }
}

/**
 * An endpoint that changes a resource: its callbacks see the model, and it may insist on
 * `If-Match` (optimistic concurrency; the data layer must be `Versioned`).
 */
export abstract class WriteEndpoint extends Endpoint<[unknown, Context, Policy]> {
  #ifMatch = false;

  /**
   * Refuse the write with 428 unless it names the version the client read (`If-Match` with the
   * `ETag` of a GET; in Atomic Operations, `meta.ifMatch`).
   *
   * @example
   * Update.make().requireIfMatch()
   */
  requireIfMatch(): this {
    this.#ifMatch = true;
    return this;
  }

  /** Whether `requireIfMatch()` was called. */
  get requiresIfMatch(): boolean {
    return this.#ifMatch;
  }
}

/**
 * `PATCH /{type}/{id}`; its callbacks see the model being updated.
 *
 * @example
 * Update.make().visible((article: { authorId: string }, ctx) => article.authorId === ctx.getAttribute('user'));
 */
export class Update<H = unknown> extends WriteEndpoint {
  readonly kind = 'update' as const;
  /** Type level only: what its hooks were typed with, for `typedResources` to check. */
  declare readonly '~hooks'?: H;
  #saving: Untyped[] = [];
  #saved: Untyped[] = [];

  /**
   * Runs inside the request's transaction, before the data layer writes, with the values sent
   * (typed `V`: the generated `<Type>UpdateValues`) and the stored model: it may return new
   * values, a list of problems (422, nothing written), or nothing. Also runs for `PATCH` of a
   * relationship URL (values with that one relationship).
   *
   * @example
   * type Values = { attributes: { title?: string }; relationships: Record<never, never> };
   * Update.make().saving<Values, { title: string }>((values, article) =>
   *   values.attributes.title === article.title ? [{ detail: 'title unchanged', pointer: '/data/attributes/title' }] : undefined,
   * );
   */
  saving<V extends object = WriteValues, M = unknown>(
    hook: UpdateSavingHook<V, M>,
  ): Update<H | ['update', ValuesHook<V>] | ['model', ModelCheck<M>]> {
    this.#saving.push(hook);
    return this;
  }

  /**
   * Runs after the write committed, with the updated model (see `Create.saved`).
   *
   * @example
   * Update.make().saved((article: { id: number }) => console.log('updated', article.id));
   */
  saved<M = unknown>(hook: AfterCommitHook<M>): Update<H | ['model', ModelCheck<M>]> {
    this.#saved.push(hook);
    return this;
  }

  /** The `saving` hooks, in the order given. */
  get savingHooks(): readonly Untyped[] {
    return this.#saving;
  }

  /** The `saved` hooks, in the order given. */
  get afterHooks(): readonly Untyped[] {
    return this.#saved;
  }

  /** A new Update endpoint. */
  static make(): Update<never> {
    return new Update<never>();
  }
}

/**
 * `DELETE /{type}/{id}`; its callbacks see the model being deleted.
 *
 * @example
 * Delete.make().visible((article: { authorId: number }, ctx) => String(article.authorId) === ctx.getAttribute('user'));
 */
export class Delete<H = unknown> extends WriteEndpoint {
  readonly kind = 'delete' as const;
  /** Type level only: what its hooks were typed with, for `typedResources` to check. */
  declare readonly '~hooks'?: H;
  #deleting: Untyped[] = [];
  #deleted: Untyped[] = [];

  /**
   * Runs inside the request's transaction, before the data layer deletes, with the model: a
   * list of problems (422) or a thrown `JsonApiError` refuses the delete.
   *
   * @example
   * Delete.make().deleting((tag: { name: string }) => (tag.name === 'news' ? [{ detail: 'news stays' }] : undefined));
   */
  deleting<M = unknown>(hook: DeletingHook<M>): Delete<H | ['model', ModelCheck<M>]> {
    this.#deleting.push(hook);
    return this;
  }

  /**
   * Runs after the delete committed, with the model as it was (see `Create.saved`).
   *
   * @example
   * Delete.make().deleted((article: { id: number }) => console.log('deleted', article.id));
   */
  deleted<M = unknown>(hook: AfterCommitHook<M>): Delete<H | ['model', ModelCheck<M>]> {
    this.#deleted.push(hook);
    return this;
  }

  /** The `deleting` hooks, in the order given. */
  get savingHooks(): readonly Untyped[] {
    return this.#deleting;
  }

  /** The `deleted` hooks, in the order given. */
  get afterHooks(): readonly Untyped[] {
    return this.#deleted;
  }

  /** A new Delete endpoint. */
  static make(): Delete<never> {
    return new Delete<never>();
  }
}

/**
 * The data layer's policy as Update and Delete callbacks receive it (their third argument):
 * `can(ability, model, ctx)` of the resource's data layer, or undefined when it has none.
 */
export type Policy = ((ability: Ability, model: unknown, context: Context) => MaybePromise<boolean>) | undefined;

/**
 * An Update or Delete callback that asks the data layer's policy (`can(ability, model, ctx)`,
 * typed with the model in the generated data-layer interface). A data layer without `can` is
 * a configuration error: the request fails with a 500 that names it rather than permit anything.
 *
 * @example
 * Delete.make().visible(can('delete')); // in schema.ts
 * const policy: Authorizable<{ authorId: number }> = { // in the data layer
 *   can: (ability, article, ctx) => String(article.authorId) === ctx.getAttribute('user'),
 * };
 */
export function can(ability: Ability): PolicyCallback {
  const callback = (model: unknown, context: Context, policy: Policy): MaybePromise<boolean> => {
    if (!policy) throw new TypeError(`can('${ability}'): the resource's data layer has no can() method`);
    return policy(ability, model, context);
  };
  return Object.assign(callback, { ability });
}

/** What `can()` returns: a visibility callback that names the ability it asks about. */
export type PolicyCallback = ((model: unknown, context: Context, policy: Policy) => MaybePromise<boolean>) & {
  readonly ability: Ability;
};

/** Any endpoint. */
export type AnyEndpoint = Show | Index | Create | Update | Delete;
