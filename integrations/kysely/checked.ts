/**
 * Mapping types checked against the generated resource types and the Kysely `Database` type:
 * `defineStore<Database, Resources>(db, { ... })` reports a misspelt table or column, an
 * attribute whose name is no column and that is not mapped, a column whose type does not fit
 * the attribute, and a relationship, custom filter, sort or policy the schema needs and the
 * mapping lacks, at the mapping's own line.
 */
import type { Selectable } from 'kysely';
import type { Ability, Context, FilterValue, MaybePromise, ResourceTypes, SortDirection } from 'jsonapi-gen';
import type { Expression, SqlBool } from 'kysely';
import type { AnyExpressionBuilder } from './any-database.js';
import type { SelectQuery } from './select-query.js';
import type { ColumnName, TableMapping, TableName, ThroughMapping, ToManyMapping, ToOneMapping } from './mapping.js';

/** Literal types widened to their kind: an enum attribute fits a `string` column. */
type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;

/** The columns of table `T` whose values fit an attribute of type `A`. */
export type FittingColumn<DB, T extends TableName<DB>, A> = {
  [C in ColumnName<DB, T>]: C extends keyof Selectable<DB[T]>
    ? [Selectable<DB[T]>[C]] extends [Widen<A>]
      ? C
      : never
    : never;
}[ColumnName<DB, T>];

/** The attributes a model of `R` holds (its id aside). */
type AttributeName<R extends ResourceTypes> = Exclude<keyof R['model'] & string, 'id'>;

type ValueOf<R extends ResourceTypes, A extends AttributeName<R>> = R['model'][A & keyof R['model']];

/** Attributes with no fitting column of their own name: the mapping's `columns` must name one. */
type Unmapped<DB, T extends TableName<DB>, R extends ResourceTypes> = {
  [A in AttributeName<R>]: A extends FittingColumn<DB, T, ValueOf<R, A>> ? never : A;
}[AttributeName<R>];

/** `columns`: every unmapped attribute to a fitting column; other model properties to any column. */
type Columns<DB, T extends TableName<DB>, R extends ResourceTypes> = {
  [A in Unmapped<DB, T, R>]: FittingColumn<DB, T, ValueOf<R, A>>;
} & {
  [A in Exclude<AttributeName<R>, Unmapped<DB, T, R>>]?: FittingColumn<DB, T, ValueOf<R, A>>;
} & Record<string, ColumnName<DB, T>>;

/** `relationships`: one mapping per relationship of the schema, of its cardinality. */
type Relationships<DB, T extends TableName<DB>, R extends ResourceTypes> = {
  [N in keyof R['related']]: R['related'][N] extends readonly unknown[]
    ? ToManyMapping<DB> | ThroughMapping<DB>
    : ToOneMapping<DB, T>;
};

/** A member that is required when `needed` is true, optional otherwise. */
type Member<K extends string, Needed extends boolean, V> = Needed extends true ? { [P in K]: V } : { [P in K]?: V };

import type { StoreModel } from 'jsonapi-gen';

/** A model as the store gives it (the runtime's `StoreModel`). */
export type { StoreModel };

/**
 * The implementations of `R`'s custom filters named `N`, by name: a function of the whole query,
 * or `{ where }`, one condition that may also stand inside `filter[or]` and `filter[not]`.
 */
type FilterImplementations<R extends ResourceTypes, N extends keyof R['customFilters']> = {
  [F in N]:
    | ((query: SelectQuery, value: R['customFilters'][F] & FilterValue, context: Context) => SelectQuery)
    | {
        where: (
          eb: AnyExpressionBuilder,
          value: R['customFilters'][F] & FilterValue,
          context: Context,
        ) => Expression<SqlBool>;
      };
};

/** The implementations of `R`'s custom sorts named `N`, by name. */
type SortImplementations<N extends string> = {
  [S in N]: (query: SelectQuery, direction: SortDirection, context: Context) => SelectQuery;
};

/**
 * What a resource whose schema declares the custom filters `N` (`CustomFilter.make(name)`)
 * needs of its mapping: `filters` implementing each. A named type, so that a mapping without
 * `filters` fails with the filters' names on its error's first line.
 *
 * @example
 * import type { Database } from './db.js';
 * import type { ArticlesTypes } from './generated/index.js';
 * // Type '{ table: "articles"; }' is not assignable to type
 * //   'WithCustomFilters<"search", ArticlesTypes> & TableMappings<Database, ArticlesTypes>'.
 * const articles: ResourceMapping<Database, ArticlesTypes> = { table: 'articles' }; // compile error
 */
export type WithCustomFilters<N extends keyof R['customFilters'] & string, R extends ResourceTypes> = {
  filters: FilterImplementations<R, N>;
};

/**
 * What a resource whose schema declares the custom sorts `N` (`CustomSort.make(name)`) needs of
 * its mapping: `sorts` implementing each (named for the same reason as `WithCustomFilters`).
 *
 * @example
 * import type { Database } from './db.js';
 * type Ranked = { model: { name: string }; related: {}; customFilters: {}; customSorts: 'popularity'; policy: false };
 * declare function popularity(query: SelectQuery, direction: SortDirection): SelectQuery;
 * const people: ResourceMapping<Database, Ranked> = { table: 'people', sorts: { popularity } };
 */
export type WithCustomSorts<N extends string> = { sorts: SortImplementations<N> };

/** The mapping of a resource of types `R` to table `T` (its custom filters and sorts optional: `ResourceMapping` requires them). */
export type CheckedTableMapping<DB, T extends TableName<DB>, R extends ResourceTypes> = Omit<
  TableMapping<DB, T>,
  'columns' | 'relationships' | 'filters' | 'sorts' | 'policy'
> &
  Member<'columns', [Unmapped<DB, T, R>] extends [never] ? false : true, Columns<DB, T, R>> &
  Member<'relationships', [keyof R['related']] extends [never] ? false : true, Relationships<DB, T, R>> &
  Member<'filters', false, FilterImplementations<R, keyof R['customFilters']>> &
  Member<'sorts', false, SortImplementations<R['customSorts']>> &
  Member<'policy', R['policy'], (ability: Ability, model: StoreModel<R>, context: Context) => MaybePromise<boolean>>;

/** The mapping of a resource of types `R` to any one table of `DB`, its custom filters and sorts aside. */
export type TableMappings<DB, R extends ResourceTypes> = {
  [T in TableName<DB>]: CheckedTableMapping<DB, T, R>;
}[TableName<DB>];

/**
 * The mapping of a resource of types `R` to any one table of `DB`, with the implementation of
 * each custom filter and sort its schema declares (required apart, in `WithCustomFilters` and
 * `WithCustomSorts`, so that an error names the ones it lacks: they come first, where a long
 * type printed in an error is not cut short).
 */
export type ResourceMapping<DB, R extends ResourceTypes> = [keyof R['customFilters']] extends [never]
  ? [R['customSorts']] extends [never]
    ? TableMappings<DB, R>
    : WithCustomSorts<R['customSorts']> & TableMappings<DB, R>
  : [R['customSorts']] extends [never]
    ? WithCustomFilters<keyof R['customFilters'] & string, R> & TableMappings<DB, R>
    : WithCustomFilters<keyof R['customFilters'] & string, R> &
        WithCustomSorts<R['customSorts']> &
        TableMappings<DB, R>;

/** A store's mapping: every resource of `R`, each to its table. */
export type StoreMapping<DB, R extends { [K in keyof R]: ResourceTypes }> = {
  [K in keyof R]: ResourceMapping<DB, R[K]>;
};
