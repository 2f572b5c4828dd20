import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';

/**
 * The database type of the store's internals: one store serves every table of a host's
 * database, whose table map it does not know. Kysely's builders are typed over that table map,
 * and `unknown` cannot stand for one (no table names, no columns), so this is Kysely's own
 * spelling of "any database". The public API stays generic over the host's `DB`; only the
 * store's internals see this type.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's own spelling of "any database": its builders are typed over table maps, which unknown cannot stand for
export type AnyDatabase = any;

/** A select query over any database, any of its tables, any row: Kysely's `SelectQueryBuilder<any, any, any>`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as AnyDatabase: Kysely's spelling of a select whose tables and row are unknown to the types
export type AnySelectQuery = SelectQueryBuilder<any, any, any>;

/** The expression builder of a `where` callback on an `AnySelectQuery`: Kysely's `ExpressionBuilder<any, any>`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as AnyDatabase: an expression builder over tables unknown to the types
export type AnyExpressionBuilder = ExpressionBuilder<any, any>;
