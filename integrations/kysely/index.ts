/**
 * Kysely integration: back JSON:API resources by tables of a Kysely database.
 *
 * @example
 * import { defineStore, Where, SortColumn, can, withTransaction } from 'jsonapi-gen/kysely';
 * const store = defineStore(db, { articles: { table: 'articles', columns: { createdAt: 'created_at' } } });
 * api.resource({ ...schema.articles, ...store.articles });
 */

/**
 * Backs resources by tables: `defineStore(db, { type: mapping, ... })` gives a data layer per type.
 *
 * @example
 * const store = defineStore(db, { tags: { table: 'tags' } });
 * api.resource({ ...tagsSchema, ...store.tags });
 */
export { defineStore } from './store.js';
/**
 * Types of a store: a row as the serializer reads it, one resource's data layer, the store.
 *
 * @example
 * const layer: KyselyDataLayer = store.articles;
 */
export type { KyselyDataLayer, Model, Store } from './store.js';
/**
 * The mapping of one resource to its table, and of its relationships.
 *
 * @example
 * const articles: TableMapping<Database, 'articles'> = { table: 'articles', columns: { createdAt: 'created_at' } };
 */
export type {
  AnyTableMapping,
  ColumnName,
  RelationshipMapping,
  TableMapping,
  TableName,
  ThroughMapping,
  ToManyMapping,
  ToOneMapping,
} from './mapping.js';
/**
 * An equality filter (`IN` for lists) and a column sort; the query type custom ones receive.
 *
 * @example
 * filters: [Where.make('author').column('author_id')], sorts: [SortColumn.make('createdAt').column('created_at')]
 * CustomFilter.make<SelectQuery>('search', (query, value) => query.where('articles.title', 'like', `%${value}%`));
 */
export { SortColumn, Where, type SelectQuery } from './filters.js';
/**
 * A visibility callback that consults the policy of the model's resource.
 *
 * @example
 * Delete.make().visible(can('delete'));
 */
export { can, type Ability, type Policy } from './policies.js';
/**
 * One request, one transaction: `kyselyTransaction(db)` for `new JsonApi({ transaction })`,
 * `withTransaction` for host code; data layers run on it through `executorFor(db)`.
 *
 * @example
 * const api = new JsonApi({ transaction: kyselyTransaction(db) });
 * await withTransaction(db, async (trx) => { ... });
 */
export { executorFor, kyselyTransaction, withTransaction, type TransactionOptions } from './transaction.js';
