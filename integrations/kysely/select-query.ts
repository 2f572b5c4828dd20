import type { AnySelectQuery } from './any-database.js';

/**
 * The query object of every Kysely-backed resource: a select query on the resource's table.
 * The custom filters and sorts of a mapping receive it. Kysely's own spelling of a builder over
 * any database (`any` is Kysely's convention for it): one store serves many tables.
 *
 * @example
 * const search = (query: SelectQuery, value: FilterValue) => query.where('articles.title', 'like', `%${[value].flat()[0]}%`);
 */
export type SelectQuery = AnySelectQuery;
