/** What the application declares around writes: lifecycle hooks and cross-field validation. */
import type { Context } from './context.js';
import type { MaybePromise } from '../core/types.js';
import type { WriteValues } from '../core/vocabulary.js';

/**
 * One thing wrong with a write, as a hook or a resource's `validate` reports it: answered with
 * 422 at `pointer` (a JSON Pointer into the request document, such as `/data/attributes/body`;
 * default `/data`), `code` default `invalid_value`.
 *
 * @example
 * const problem: Problem = { detail: 'A published article needs a body', pointer: '/data/attributes/status' };
 */
export interface Problem {
  readonly detail: string;
  readonly pointer?: string;
  readonly code?: string;
}

/**
 * The values a create's `saving` hook receives: what the client sent, checked, with defaults
 * applied; a required member may still be missing (the hook may fill it in, else 422 follows).
 */
export type Draft<V> = V extends { attributes: infer A; relationships: infer R }
  ? { id?: string; attributes: Partial<A>; relationships: Partial<R> }
  : V;

/**
 * What a `saving` hook answers: new values to write, nothing (write them as they are), or the
 * problems that refuse the write (422). A thrown `JsonApiError` refuses it too.
 */
export type SavingResult<V> = V | Draft<V> | readonly Problem[] | undefined | void;

/**
 * A create's `saving` hook: runs inside the request's transaction, after the document was
 * checked and before the data layer writes.
 */
export type CreateSavingHook<V> = (values: Draft<V>, context: Context) => MaybePromise<SavingResult<V>>;

/** An update's `saving` hook: as a create's, with the stored model. */
export type UpdateSavingHook<V, M> = (values: V, model: M, context: Context) => MaybePromise<SavingResult<V>>;

/**
 * A hook that runs after the write committed (`saved`, `deleted`), with the model written (for
 * `deleted`, the model as it was). What it throws is reported to the API's `onError`; the
 * response stays the committed write's.
 */
export type AfterCommitHook<M> = (model: M, context: Context) => MaybePromise<unknown>;

/** A delete's `deleting` hook: inside the transaction, before the data layer deletes. */
export type DeletingHook<M> = (model: M, context: Context) => MaybePromise<readonly Problem[] | undefined | void>;

/**
 * A resource's cross-field validation: the values written (only the members sent, plus defaults
 * on create) and the stored model (undefined on create); answers what is wrong, if anything.
 */
export type ResourceValidator<V = WriteValues, M = unknown> = (
  values: V,
  stored: M | undefined,
  context: Context,
) => MaybePromise<readonly Problem[] | undefined | void>;

/**
 * What a callback was typed to read of a model, as the builders record it. A method type, so
 * that a record fits when the callback's model and the resource's generated model agree one way
 * or the other: the generated model or less (`unknown`, a few members), or more (members the data
 * layer's model holds beyond it, such as a foreign key). A model of another resource fits neither.
 */
export type ModelCheck<M> = { bivariant(model: M): void }['bivariant'];

/** What an Update's `saving` hook does with the values, as the builders record it. */
export type ValuesHook<V> = (values: V) => MaybePromise<SavingResult<V>>;
