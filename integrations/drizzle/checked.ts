/**
 * Mapping types checked against the generated resource types and the host's Drizzle tables:
 * `defineStore<typeof schema, Resources>(db, schema, { ... })` reports a column that is no
 * column of the table, an attribute with no column of its name that `columns` does not map, a
 * column whose type does not fit its attribute, a foreign key that is no column of the table it
 * must be in, and a relationship (neither in `relationships` nor declared with `relations()`),
 * custom filter, sort or policy the schema needs and the mapping lacks, at the mapping's line.
 */
import type { Ability, Context, FilterValue, MaybePromise, ResourceTypes, SortDirection } from 'jsonapi-gen';
import type { ExtractTablesWithRelations, SQL, Table } from 'drizzle-orm';
import type { ColumnKey, TableKey, TableMapping, ThroughMapping, ToManyMapping, ToOneMapping } from './mapping.js';

/** Literal types widened to their kind: an enum attribute fits a text column. */
type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;

/** The column keys of table `T` whose selected values fit an attribute of type `A`. */
export type FittingColumn<T extends Table, A> = {
  [C in ColumnKey<T>]: [T['$inferSelect'][C]] extends [Widen<A>] ? C : never;
}[ColumnKey<T>];

/** The attributes a model of `R` holds (its id aside). */
type AttributeName<R extends ResourceTypes> = Exclude<keyof R['model'] & string, 'id'>;

type ValueOf<R extends ResourceTypes, A extends AttributeName<R>> = R['model'][A & keyof R['model']];

/** Attributes with no fitting column of their own key: `columns` must name one. */
type Unmapped<T extends Table, R extends ResourceTypes> = {
  [A in AttributeName<R>]: A extends FittingColumn<T, ValueOf<R, A>> ? never : A;
}[AttributeName<R>];

/** `columns`: every unmapped attribute to a fitting column; the others to a fitting column if given. */
type Columns<T extends Table, R extends ResourceTypes> = {
  readonly [A in Unmapped<T, R>]: FittingColumn<T, ValueOf<R, A>>;
} & {
  readonly [A in Exclude<AttributeName<R>, Unmapped<T, R>>]?: FittingColumn<T, ValueOf<R, A>>;
} & Readonly<Record<string, ColumnKey<T>>>;

/** The names of the relations the host declared with `relations()` on table `T` of schema `S`. */
export type DeclaredRelation<S, T extends Table> =
  S extends Record<string, unknown>
    ? {
        [K in keyof ExtractTablesWithRelations<S>]: ExtractTablesWithRelations<S>[K] extends {
          dbName: T['_']['name'];
          relations: infer Declared;
        }
          ? keyof Declared & string
          : never;
      }[keyof ExtractTablesWithRelations<S>]
    : never;

/** How relationship `N` of `R` may be stored: of its cardinality, or a declared relation's name. */
type RelationshipOf<S, T extends Table, R extends ResourceTypes, N extends keyof R['related']> =
  | (R['related'][N] extends readonly unknown[] ? ToManyMapping<S> | ThroughMapping<S> : ToOneMapping<T>)
  | DeclaredRelation<S, T>;

/** `relationships`: required for each relationship no `relations()` entry of its name stores. */
type Relationships<S, T extends Table, R extends ResourceTypes> = {
  readonly [N in Exclude<keyof R['related'], DeclaredRelation<S, T>>]: RelationshipOf<S, T, R, N>;
} & {
  readonly [N in Extract<keyof R['related'], DeclaredRelation<S, T>>]?: RelationshipOf<S, T, R, N>;
};

/** A member required when `needed` is true, optional otherwise. */
type Member<K extends string, Needed extends boolean, V> = Needed extends true
  ? { readonly [P in K]: V }
  : { readonly [P in K]?: V };

import type { StoreModel } from 'jsonapi-gen';

/** A model as the store gives it (the runtime's `StoreModel`). */
export type { StoreModel };

/**
 * What a resource whose schema declares the custom filters `N` needs of its mapping: `filters`,
 * the condition of each. Named, so that a mapping without it fails with the filters' names.
 *
 * @example
 * import { like } from 'drizzle-orm';
 * import { articles } from './drizzle/sqlite.js';
 * const needs: WithCustomFilters<'search', ArticlesTypes> = { filters: { search: (value) => like(articles.title, `%${String(value)}%`) } };
 */
export type WithCustomFilters<N extends keyof R['customFilters'] & string, R extends ResourceTypes> = {
  readonly filters: { readonly [F in N]: (value: R['customFilters'][F] & FilterValue, context: Context) => SQL };
};

/**
 * What a resource whose schema declares the custom sorts `N` needs of its mapping: `sorts`, the
 * `order by` terms of each.
 *
 * @example
 * import { asc, desc } from 'drizzle-orm';
 * import { people } from './drizzle/sqlite.js';
 * const needs: WithCustomSorts<'popularity'> = { sorts: { popularity: (d) => (d === 'asc' ? asc(people.name) : desc(people.name)) } };
 */
export type WithCustomSorts<N extends string> = {
  readonly sorts: { readonly [S in N]: (direction: SortDirection, context: Context) => SQL | readonly SQL[] };
};

/** The mapping of a resource of types `R` to table `T` (its custom filters and sorts optional). */
export type CheckedTableMapping<S, T extends Table, R extends ResourceTypes> = Omit<
  TableMapping<S, T>,
  'columns' | 'relationships' | 'policy'
> &
  Member<'columns', [Unmapped<T, R>] extends [never] ? false : true, Columns<T, R>> &
  Member<
    'relationships',
    [Exclude<keyof R['related'], DeclaredRelation<S, T>>] extends [never] ? false : true,
    Relationships<S, T, R>
  > &
  Member<'policy', R['policy'], (ability: Ability, model: StoreModel<R>, context: Context) => MaybePromise<boolean>>;

/** The mapping of a resource of types `R` to any one table of schema `S`. */
export type TableMappings<S, R extends ResourceTypes> = {
  [K in TableKey<S>]: S[K] extends Table ? CheckedTableMapping<S, S[K], R> : never;
}[TableKey<S>];

/** What `R`'s custom sorts need of its mapping: nothing when it declares none. */
type SortsNeeded<R extends ResourceTypes> = [R['customSorts']] extends [never]
  ? unknown
  : WithCustomSorts<R['customSorts']>;

/**
 * The mapping of a resource of types `R` to a table of schema `S`, with the implementation of
 * each custom filter and sort its schema declares (named first, so that an error's first line
 * says which it lacks: a long type printed in an error is cut short).
 *
 * @example
 * import * as schema from './drizzle/sqlite.js';
 * import type { TagsTypes } from './generated/index.js';
 * const tags: ResourceMapping<typeof schema, TagsTypes> = { table: schema.tags };
 */
export type ResourceMapping<S, R extends ResourceTypes> = [keyof R['customFilters']] extends [never]
  ? SortsNeeded<R> & TableMappings<S, R>
  : WithCustomFilters<keyof R['customFilters'] & string, R> & SortsNeeded<R> & TableMappings<S, R>;

/** A store's mapping: every resource of `R`, each to a table of schema `S`. */
export type StoreMapping<S, R extends { [K in keyof R]: ResourceTypes }> = {
  readonly [K in keyof R]: ResourceMapping<S, R[K]>;
};
