import type { Context, Relationship, ResourceIdentifier } from 'jsonapi-gen';
import type { Kysely } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import type { CompiledStatements } from './compiled.js';
import { runStatement } from './errors.js';
import type { RelationshipMapping, TableName } from './mapping.js';
import { type Model, type Row, type TableResource, keyText } from './table-resource.js';
import { executorFor } from './transaction.js';

/**
 * The models a read request has loaded by key, per table: a to-one include that names only rows
 * the request has read already (`include=author,comments.author`: the same people) costs no
 * statement. Only for GET and HEAD requests, outside transactions: a write request may change a
 * row after reading it.
 */
export type LoadedRows = WeakMap<Context, Map<TableResource, Map<string, Model>>>;

function isRead(context: Context): boolean {
  // A context a host made up for a direct call may have no request: then no reuse.
  const method = (context.http as Context['http'] | undefined)?.method;
  return method === 'GET' || method === 'HEAD';
}

/**
 * What every data layer of one store shares: the database, every resource's table by type,
 * the statements compiled once, and the rows read requests have loaded.
 */
export class StoreTables {
  readonly db: Kysely<AnyDatabase>;
  readonly tables: ReadonlyMap<string, TableResource>;
  readonly statements: CompiledStatements;
  readonly loaded: LoadedRows = new WeakMap();

  constructor(db: Kysely<AnyDatabase>, tables: ReadonlyMap<string, TableResource>, statements: CompiledStatements) {
    this.db = db;
    this.tables = tables;
    this.statements = statements;
  }

  /** The related resource and the mapping of a relationship, checked. */
  relation(
    resource: TableResource,
    relationship: Relationship,
  ): { mapping: RelationshipMapping<AnyDatabase, TableName<AnyDatabase>>; related: TableResource } {
    const where = `${resource.type}.${relationship.name}`;
    const mapping = resource.relationships[relationship.name];
    if (!mapping) throw new TypeError(`defineStore: ${where} has no entry in relationships`);
    const related = this.tables.get(relationship.relatedType);
    if (!related)
      throw new TypeError(
        `defineStore: ${where} relates to "${relationship.relatedType}", which the store does not map`,
      );
    if (mapping.table !== undefined && mapping.table !== related.table) {
      throw new TypeError(
        `defineStore: ${where} names table "${mapping.table}", but ${related.type} is stored in "${related.table}"`,
      );
    }
    if ((mapping.type === 'toOne') !== (relationship.cardinality === 'one')) {
      throw new TypeError(
        `defineStore: ${where} is mapped as ${mapping.type} but declared ${relationship.cardinality === 'one' ? 'ToOne' : 'ToMany'}`,
      );
    }
    return { mapping, related };
  }

  /** The resource of a written identifier. */
  resourceOf(identifier: ResourceIdentifier): TableResource {
    const found = this.tables.get(identifier.type);
    if (!found) throw new TypeError(`defineStore: the store does not map "${identifier.type}"`);
    return found;
  }

  /** The models of `keys` in `table` (within its scope), by key as a string: one `in (...)` read. */
  async modelsByKey(table: TableResource, keys: readonly unknown[], context: Context): Promise<Map<string, Model>> {
    const ex = executorFor(this.db, context);
    let known: Map<string, Model> | undefined;
    if (ex === this.db && isRead(context)) {
      let byTable = this.loaded.get(context);
      if (byTable === undefined) this.loaded.set(context, (byTable = new Map<TableResource, Map<string, Model>>()));
      known = byTable.get(table);
      if (known === undefined) byTable.set(table, (known = new Map<string, Model>()));
      else if (keys.every((key) => known!.has(keyText(key)))) return known;
    }
    const found = await runStatement(() =>
      table.scope
        ? table.select(ex, context).where(table.qualifiedId, 'in', keys).execute()
        : this.statements.rows(ex, `${table.type} in ${keys.length}`, keys, (on) =>
            table.selectUnscoped(on).where(table.qualifiedId, 'in', keys),
          ),
    );
    const models = table.toModels(found);
    const byKey = new Map(found.map((row, i) => [keyText(row[table.idColumn]), models[i]!]));
    if (known) for (const [key, model] of byKey) known.set(key, model);
    return byKey;
  }

  /** The row of `key` in `table`, read without the scope (a compiled-once statement). */
  byKey(table: TableResource, ex: Kysely<AnyDatabase>, key: unknown): Promise<Row[]> {
    return this.statements.rows(ex, `${table.type} by key`, [key], (on) =>
      table.selectUnscoped(on).where(table.qualifiedId, '=', key),
    );
  }
}
