/**
 * Resources whose hooks, write policies, validation and meta getters are checked, at the line
 * they are declared, against the types generated for the resource they belong to.
 */
import type { Context } from './context.js';
import type { MaybePromise } from '../core/types.js';
import type { Create, Delete, Index, Show, Update } from './endpoints.js';
import type { CreateSavingHook, ModelCheck, Problem, ValuesHook } from './hooks.js';
import type { Meta } from './meta.js';
import { type AnyField, type DeclaredResource, type ResourceSpec, defineResource } from './resource.js';

/** The generated types of one resource a checked resource is held to (a generated `<Type>Types`). */
export interface CheckedTypes {
  model: unknown;
  createValues: unknown;
  updateValues: unknown;
}

/** What the hooks of a checked resource's endpoints may have been typed with. */
type HookRecord<T extends CheckedTypes> =
  | ['create', CreateSavingHook<T['createValues']>]
  | ['update', ValuesHook<T['updateValues']>]
  | ['model', ModelCheck<T['model']>];

/** An endpoint of a resource of types `T`. */
export type CheckedEndpoint<T extends CheckedTypes> =
  Show | Index | Create<HookRecord<T>> | Update<HookRecord<T>> | Delete<HookRecord<T>>;

/** A field of a resource of types `T`: its write policy reads that resource's model. */
export type CheckedField<T extends CheckedTypes> = AnyField & { readonly '~model'?: ModelCheck<T['model']> };

/**
 * What the typed `defineResource` takes: `ResourceSpec`, with `type` naming an entry of the
 * generated `Resources`, and what reads values or models checked against that entry.
 */
export interface CheckedSpec<T extends CheckedTypes, K extends string, M, F extends readonly AnyField[]> extends Omit<
  ResourceSpec<M, F>,
  'type' | 'endpoints' | 'meta' | 'validate'
> {
  type: K;
  endpoints?: readonly CheckedEndpoint<T>[];
  meta?: ReadonlyArray<Meta<unknown, T['model']>>;
  /** As `ResourceSpec.validate`, with the resource's write values and stored model. */
  validate?: (
    values: T['createValues'] | T['updateValues'],
    stored: T['model'] | undefined,
    context: Context,
  ) => MaybePromise<readonly Problem[] | undefined | void>;
}

/**
 * `defineResource`, checked against generated types: `R` is the generated `Resources` (each
 * type's `<Type>Types`), and each resource declared with the result is held to the entry its
 * `type` names. A `saving` hook typed with another resource's values, a hook, write policy or
 * meta getter typed with another resource's model, or a validator that does not take the
 * resource's values, is a compile error at its line. A callback may name more of the model than
 * the generated type holds (what the data layer's model gives beyond it).
 *
 * @example
 * import type { Resources, TagsSavingHook } from './generated/index.js';
 * const resource = typedResources<Resources>();
 * const trimmed: TagsSavingHook = (values) => ({ ...values, attributes: { ...values.attributes, name: values.attributes.name?.trim() } });
 * export const tags = resource({
 *   type: 'tags',
 *   fields: [Attribute.make('name').type('string').writable().required()],
 *   endpoints: [Show.make(), Create.make().saving(trimmed)],
 * });
 */
export function typedResources<R extends { [K in keyof R]: CheckedTypes }>() {
  return <const K extends keyof R & string, M = unknown, const F extends readonly AnyField[] = readonly AnyField[]>(
    // Each field held to the resource's model, element by element (so an error points at the field).
    spec: CheckedSpec<NoInfer<R[K]>, K, M, F> & {
      fields?: F & { readonly [I in keyof F]: CheckedField<NoInfer<R[K]>> };
    },
  ): DeclaredResource<M, F> => defineResource<M, F>(spec);
}
