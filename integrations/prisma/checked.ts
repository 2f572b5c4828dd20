/**
 * Mapping types checked against the generated resource types and the generated Prisma Client:
 * `defineStore<PrismaClient, Resources>(prisma, { ... })` reports a misspelt model or field, an
 * attribute with no field of its name that `fields` does not map, a field whose kind does not
 * fit its attribute or that may be null (`String?`) where the attribute may not, a relation field of the wrong cardinality or to the wrong model, and a
 * relationship, custom filter, sort or policy the schema needs and the mapping lacks, at the
 * mapping's own line.
 */
import type { Ability, Context, FilterValue, MaybePromise, ResourceTypes, SortDirection } from 'jsonapi-gen';
import type { PrismaWhere } from './conditions.js';
import type {
  FieldTypeName,
  ModelMapping,
  NullableField,
  ModelName,
  ScalarField,
  ThroughRelation,
  ToManyRelation,
  ToOneRelation,
} from './mapping.js';

/** The numeric field types of Prisma. */
type NumericField = 'Int' | 'BigInt' | 'Float' | 'Decimal';

/** Prisma's own scalar types (any other type name is one of the schema's enums). */
type BuiltIn = 'String' | NumericField | 'Boolean' | 'DateTime' | 'Json' | 'Bytes';

/**
 * Whether a field of Prisma type `T` holds an attribute whose model value is `A` (null aside):
 * a string or enum in a `String`, a number in a numeric field, a boolean in a `Boolean`, a
 * date-time (`Date | string`) in a `DateTime`, an enum in one of the schema's enums.
 */
type Fits<T, A> = T extends 'String'
  ? [A] extends [string]
    ? true
    : false
  : T extends NumericField
    ? [A] extends [number]
      ? true
      : false
    : T extends 'Boolean'
      ? [A] extends [boolean]
        ? true
        : false
      : T extends 'DateTime'
        ? [Date] extends [A]
          ? true
          : false
        : T extends BuiltIn | `${string}[]`
          ? false
          : [A] extends [string]
            ? string extends A
              ? false
              : true
            : false;

/**
 * The scalar fields of model `M` that hold an attribute whose model value is `A`: of a fitting
 * kind, and not nullable (`String?`) unless the attribute is.
 */
export type FittingField<C, M extends ModelName<C>, A> = {
  [F in ScalarField<C, M>]: Fits<FieldTypeName<C, M, F>, NonNullable<A>> extends true
    ? NullableField<C, M, F> extends true
      ? null extends A
        ? F
        : never
      : F
    : never;
}[ScalarField<C, M>];

/** The attributes a model of `R` holds (its id aside). */
type AttributeName<R extends ResourceTypes> = Exclude<keyof R['model'] & string, 'id'>;

type ValueOf<R extends ResourceTypes, A extends AttributeName<R>> = R['model'][A & keyof R['model']];

/** Attributes with no fitting field of their own name: the mapping's `fields` must name one. */
type Unmapped<C, M extends ModelName<C>, R extends ResourceTypes> = {
  [A in AttributeName<R>]: A extends FittingField<C, M, ValueOf<R, A>> ? never : A;
}[AttributeName<R>];

/**
 * `fields`: each attribute `U` (those with no fitting field of their name) to a fitting field;
 * the other attributes to a fitting field if given. Named by `U`, so that an error says which
 * attributes are unmapped.
 */
type FieldsMapping<U extends string, C, M extends ModelName<C>, R extends ResourceTypes> = {
  readonly [A in U & AttributeName<R>]: FittingField<C, M, ValueOf<R, A>>;
} & {
  readonly [A in Exclude<AttributeName<R>, U>]?: FittingField<C, M, ValueOf<R, A>>;
} & Readonly<Record<string, ScalarField<C, M>>>;

/** `relationships`: one relation per relationship of the schema, of its cardinality. */
type Relationships<C, M extends ModelName<C>, R extends ResourceTypes> = {
  readonly [N in keyof R['related']]: R['related'][N] extends readonly unknown[]
    ? ToManyRelation<C, M> | ThroughRelation<C, M>
    : ToOneRelation<C, M>;
};

/** A member that is required when `needed` is true, optional otherwise. */
type Member<K extends string, Needed extends boolean, V> = Needed extends true
  ? { readonly [P in K]: V }
  : { readonly [P in K]?: V };

import type { StoreModel } from 'jsonapi-gen';

/** A model as the store gives it (the runtime's `StoreModel`). */
export type { StoreModel };

/** The implementations of `R`'s custom filters named `N`, by name: the `where` of the rows each keeps. */
type FilterImplementations<R extends ResourceTypes, N extends keyof R['customFilters']> = {
  readonly [F in N]: (value: R['customFilters'][F] & FilterValue, context: Context) => MaybePromise<PrismaWhere>;
};

/** The implementations of `R`'s custom sorts named `N`, by name: the `orderBy` entries of each. */
type SortImplementations<N extends string> = {
  readonly [S in N]: (direction: SortDirection, context: Context) => readonly PrismaWhere[];
};

/**
 * What a resource whose schema declares the custom filters `N` (`CustomFilter.make(name)`)
 * needs of its mapping: `filters` implementing each. A named type, so that a mapping without
 * `filters` fails with the filters' names on its error's first line.
 *
 * @example
 * import type { PrismaClient } from './prisma/generated/sqlite/client.js';
 * import type { ArticlesTypes } from './generated/index.js';
 * declare const relationships: ResourceMapping<PrismaClient, ArticlesTypes>['relationships'];
 * // Type '{ model: "article"; ... }' is not assignable to type
 * //   'WithCustomFilters<"search", ArticlesTypes> & ModelMappings<PrismaClient, ArticlesTypes>'.
 * const articles: ResourceMapping<PrismaClient, ArticlesTypes> = { model: 'article', relationships, policy: () => true }; // compile error
 */
export type WithCustomFilters<N extends keyof R['customFilters'] & string, R extends ResourceTypes> = {
  readonly filters: FilterImplementations<R, N>;
};

/**
 * What a resource whose schema declares the custom sorts `N` (`CustomSort.make(name)`) needs of
 * its mapping: `sorts` implementing each (named for the same reason as `WithCustomFilters`).
 *
 * @example
 * const sorts: WithCustomSorts<'popularity'> = { sorts: { popularity: (direction) => [{ views: direction }] } };
 */
export type WithCustomSorts<N extends string> = { readonly sorts: SortImplementations<N> };

/** The mapping of a resource of types `R` to model `M` (its custom filters and sorts optional: `ResourceMapping` requires them). */
export type CheckedModelMapping<C, M extends ModelName<C>, R extends ResourceTypes> = Omit<
  ModelMapping<C, M>,
  'fields' | 'relationships' | 'filters' | 'sorts' | 'policy'
> &
  Member<'fields', [Unmapped<C, M, R>] extends [never] ? false : true, FieldsMapping<Unmapped<C, M, R>, C, M, R>> &
  Member<'relationships', [keyof R['related']] extends [never] ? false : true, Relationships<C, M, R>> &
  Member<'filters', false, FilterImplementations<R, keyof R['customFilters']>> &
  Member<'sorts', false, SortImplementations<R['customSorts']>> &
  Member<'policy', R['policy'], (ability: Ability, model: StoreModel<R>, context: Context) => MaybePromise<boolean>>;

/** The mapping of a resource of types `R` to any one model of client `C`, its custom filters and sorts aside. */
export type ModelMappings<C, R extends ResourceTypes> = {
  [M in ModelName<C>]: CheckedModelMapping<C, M, R>;
}[ModelName<C>];

/**
 * The mapping of a resource of types `R` to any one model of client `C`, with the
 * implementation of each custom filter and sort its schema declares (required apart, in
 * `WithCustomFilters` and `WithCustomSorts`, so that an error names the ones it lacks: they come
 * first, where a long type printed in an error is not cut short).
 *
 * @example
 * import type { PrismaClient } from './prisma/generated/sqlite/client.js';
 * import type { TagsTypes } from './generated/index.js';
 * const tags: ResourceMapping<PrismaClient, TagsTypes> = {
 *   model: 'tag',
 *   relationships: {
 *     articles: { field: 'articles', through: { model: 'articleTag', from: 'tagId', to: 'articleId', relation: 'article' } },
 *   },
 * };
 */
export type ResourceMapping<C, R extends ResourceTypes> = [keyof R['customFilters']] extends [never]
  ? [R['customSorts']] extends [never]
    ? ModelMappings<C, R>
    : WithCustomSorts<R['customSorts']> & ModelMappings<C, R>
  : [R['customSorts']] extends [never]
    ? WithCustomFilters<keyof R['customFilters'] & string, R> & ModelMappings<C, R>
    : WithCustomFilters<keyof R['customFilters'] & string, R> & WithCustomSorts<R['customSorts']> & ModelMappings<C, R>;

/** A store's mapping: every resource of `R`, each to a model of client `C`. */
export type StoreMapping<C, R extends { [K in keyof R]: ResourceTypes }> = {
  readonly [K in keyof R]: ResourceMapping<C, R[K]>;
};
