import type { Context } from 'jsonapi-gen';
import type { Kysely } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { type AnyTableMapping, type RelationshipMapping, type TableName, parseIntegerId } from './mapping.js';
import type { SelectQuery } from './select-query.js';

/** A row as the database returns it: keyed by column. */
export type Row = Record<string, unknown>;

/** A row as the serializer reads it: keyed by attribute (model property) name. */
export type Model = Record<string, unknown>;

export { keyText } from 'jsonapi-gen/internal';

/** The column under which a join-table query returns the owner's key. */
export const OWNER = '__jsonapi_owner';

/** One resource's table, with everything a statement needs precomputed. */
export class TableResource {
  readonly type: string;
  readonly table: string;
  readonly idColumn: string;
  readonly qualifiedId: string;
  readonly parseId: (id: string) => unknown;
  readonly relationships: Readonly<Record<string, RelationshipMapping<AnyDatabase, TableName<AnyDatabase>>>>;
  readonly serverColumns: AnyTableMapping<AnyDatabase>['serverColumns'];
  readonly scope: AnyTableMapping<AnyDatabase>['scope'];
  /** The version column and the model property that holds it, when the mapping names one. */
  readonly version: { column: string; property: string } | undefined;
  readonly mapping: AnyTableMapping<AnyDatabase>;
  readonly #properties = new Map<string, string>();
  readonly #columns = new Map<string, string>();

  constructor(type: string, mapping: AnyTableMapping<AnyDatabase>) {
    this.type = type;
    this.table = mapping.table;
    this.idColumn = mapping.id ?? 'id';
    this.qualifiedId = `${this.table}.${this.idColumn}`;
    this.parseId = mapping.parseId ?? parseIntegerId;
    this.serverColumns = mapping.serverColumns;
    this.scope = mapping.scope;
    this.mapping = mapping;
    this.relationships = mapping.relationships ?? {};
    if (this.idColumn !== 'id') this.#properties.set(this.idColumn, 'id');
    for (const [property, column] of Object.entries(mapping.columns ?? {})) {
      this.#properties.set(column, property);
      this.#columns.set(property, column);
    }
    this.version =
      mapping.version === undefined
        ? undefined
        : { column: mapping.version, property: this.#properties.get(mapping.version) ?? mapping.version };
  }

  /** The model property a column is read into. */
  property(column: string): string {
    return this.#properties.get(column) ?? column;
  }

  /** The column an attribute (model property) is stored in. */
  column(property: string): string {
    return this.#columns.get(property) ?? property;
  }

  /** The column a `Where` filter on `field` compares: an attribute's, or a to-one relationship's foreign key. */
  filterColumn(field: string): string {
    const relationship = this.relationships[field];
    return relationship?.type === 'toOne' ? relationship.foreignKey : this.column(field);
  }

  /** The key of a model, as stored. */
  key(model: Model): unknown {
    return model[this.property(this.idColumn)];
  }

  /**
   * `select table.* from table`, narrowed by the mapping's `scope` for this request: every read
   * of this resource starts here.
   */
  select(db: Kysely<AnyDatabase>, context: Context): SelectQuery {
    const query = db.selectFrom(this.table).selectAll(this.table);
    if (!this.scope) return query;
    const scoped = this.scope(query, context) as SelectQuery | undefined;
    if (!scoped || typeof (scoped as { compile?: unknown }).compile !== 'function') {
      throw new TypeError(`defineStore: the scope of ${this.type} must return the query it was given, narrowed`);
    }
    return scoped;
  }

  /** The same without the scope: only to read back a row the request has just written. */
  selectUnscoped(db: Kysely<AnyDatabase>): SelectQuery {
    return db.selectFrom(this.table).selectAll(this.table);
  }

  /** `select table.id from table where <scope>`, or undefined when the resource has no scope. */
  visibleKeys(db: Kysely<AnyDatabase>, context: Context): SelectQuery | undefined {
    return this.scope ? this.select(db, context).clearSelect().select(this.qualifiedId) : undefined;
  }

  /** A row, renamed to model properties. */
  toModel(row: Record<string, unknown>): Model {
    const model: Model = {};
    for (const column in row) model[this.#properties.get(column) ?? column] = row[column];
    return model;
  }

  /**
   * The rows of one statement (so all with the same columns) as models, columns renamed once
   * for all of them; `skip` names a column to leave out.
   */
  toModels(rows: readonly Record<string, unknown>[], skip?: string): Model[] {
    if (rows.length === 0) return [];
    const columns = Object.keys(rows[0]!).filter((column) => column !== skip);
    const properties = columns.map((column) => this.#properties.get(column) ?? column);
    const models = new Array<Model>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const model: Model = {};
      for (let i = 0; i < columns.length; i++) model[properties[i]!] = row[columns[i]!];
      models[r] = model;
    }
    return models;
  }
}
