/**
 * Mapping types checked against the generated resource types and the Kysely `Database` type:
 * `defineStore<Database, Resources>(db, { ... })` reports a misspelt table or column, an
 * attribute whose name is no column and that is not mapped, a column whose type does not fit
 * the attribute, and a relationship, custom filter, sort or policy the schema needs and the
 * mapping lacks, at the mapping's own line.
 */
import type { Selectable } from 'kysely';
import type { Ability, Context, FilterValue, MaybePromise, ResourceTypes, SortDirection } from 'jsonapi-gen';
import type { SelectQuery } from './select-query.js';
import type { ColumnName, TableMapping, TableName, ThroughMapping, ToManyMapping, ToOneMapping } from './mapping.js';

/** Literal types widened to their kind: an enum attribute fits a `string` column. */
type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;

/** The columns of table `T` whose values fit an attribute of type `A`. */
export type FittingColumn<DB, T extends TableName<DB>, A> = {
  [C in ColumnName<DB, T>]: C extends keyof Selectable<DB[T]> ? ([Selectable<DB[T]>[C]] extends [Widen<A>] ? C : never) : never;
}[ColumnName<DB, T>];

/** The attributes a model of `R` holds (its id aside). */
type AttributeName<R extends ResourceTypes> = Exclude<keyof R['model'] & string, 'id'>;

type ValueOf<R extends ResourceTypes, A extends AttributeName<R>> = R['model'][A & keyof R['model']];

/** Attributes with no fitting column of their own name: the mapping's `columns` must name one. */
type Unmapped<DB, T extends TableName<DB>, R extends ResourceTypes> = {
  [A in AttributeName<R>]: A extends FittingColumn<DB, T, ValueOf<R, A>> ? never : A;
}[AttributeName<R>];

/** `columns`: every unmapped attribute to a fitting column; other model properties to any column. */
type Columns<DB, T extends TableName<DB>, R extends ResourceTypes> = { [A in Unmapped<DB, T, R>]: FittingColumn<DB, T, ValueOf<R, A>> } & {
  [A in Exclude<AttributeName<R>, Unmapped<DB, T, R>>]?: FittingColumn<DB, T, ValueOf<R, A>>;
} & Record<string, ColumnName<DB, T>>;

/** `relationships`: one mapping per relationship of the schema, of its cardinality. */
type Relationships<DB, T extends TableName<DB>, R extends ResourceTypes> = {
  [N in keyof R['related']]: R['related'][N] extends readonly unknown[] ? ToManyMapping<DB> | ThroughMapping<DB> : ToOneMapping<DB, T>;
};

/** A member that is required when `needed` is true, optional otherwise. */
type Member<K extends string, Needed extends boolean, V> = Needed extends true ? { [P in K]: V } : { [P in K]?: V };

/** A model of `R` as the store reads it: the generated model, plus every other column it maps. */
export type StoreModel<R extends ResourceTypes> = R['model'] & Record<string, unknown>;

/** The mapping of a resource of types `R` to table `T`. */
export type CheckedTableMapping<DB, T extends TableName<DB>, R extends ResourceTypes> = Omit<
  TableMapping<DB, T>,
  'columns' | 'relationships' | 'filters' | 'sorts' | 'policy'
> &
  Member<'columns', [Unmapped<DB, T, R>] extends [never] ? false : true, Columns<DB, T, R>> &
  Member<'relationships', [keyof R['related']] extends [never] ? false : true, Relationships<DB, T, R>> &
  Member<
    'filters',
    [keyof R['customFilters']] extends [never] ? false : true,
    { [F in keyof R['customFilters']]: (query: SelectQuery, value: R['customFilters'][F] & FilterValue, context: Context) => SelectQuery }
  > &
  Member<'sorts', [R['customSorts']] extends [never] ? false : true, { [S in R['customSorts']]: (query: SelectQuery, direction: SortDirection, context: Context) => SelectQuery }> &
  Member<'policy', R['policy'], (ability: Ability, model: StoreModel<R>, context: Context) => MaybePromise<boolean>>;

/** The mapping of a resource of types `R` to any one table of `DB`. */
export type ResourceMapping<DB, R extends ResourceTypes> = { [T in TableName<DB>]: CheckedTableMapping<DB, T, R> }[TableName<DB>];

/** A store's mapping: every resource of `R`, each to its table. */
export type StoreMapping<DB, R extends { [K in keyof R]: ResourceTypes }> = { [K in keyof R]: ResourceMapping<DB, R[K]> };
