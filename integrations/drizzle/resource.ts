/**
 * One resource's table as the store reads it: its columns by key, its id, scope and
 * relationships (resolved against the host's `relations()` or the mapping's own), and how a row
 * becomes a model.
 */
import type { Context, Relationship } from 'jsonapi-gen';
import { parseIntegerId, utcText } from 'jsonapi-gen/internal';
import {
  type Column,
  type SQL,
  type Table,
  type TablesRelationalConfig,
  One,
  createTableRelationsHelpers,
  extractTablesRelationalConfig,
  getTableColumns,
  getTableName,
  is,
  normalizeRelation,
} from 'drizzle-orm';
import { MySqlTable, getTableConfig as mysqlTableConfig } from 'drizzle-orm/mysql-core';
import { PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import type { UntypedTableMapping } from './mapping.js';
import { isMysqlDateTime, mysqlDateTimeText } from './mysql.js';

/** A row or model: keyed by column key (a row) or attribute (a model). */
export type Model = Record<string, unknown>;

/** How a relationship reaches its related rows, resolved. */
export type Relation =
  | { readonly kind: 'toOne'; readonly foreignKey: Column; readonly property: string; readonly related: TableResource }
  | { readonly kind: 'toMany'; readonly foreignKey: Column; readonly related: TableResource }
  | {
      readonly kind: 'through';
      readonly join: Table;
      readonly from: Column;
      readonly to: Column;
      readonly related: TableResource;
    };

/** The host's `relations()`, as Drizzle's own relational config reads them. */
export interface DeclaredRelations {
  readonly tables: TablesRelationalConfig;
  readonly tableNamesMap: Record<string, string>;
}

/** The relations a schema module declares (none for a module without `relations()`). */
export function declaredRelations(schema: Record<string, unknown>): DeclaredRelations {
  return extractTablesRelationalConfig(schema, createTableRelationsHelpers);
}

/** A date-time column PostgreSQL gives as text (`timestamp` with `mode: 'string'`): its text as responses carry it. */
function dateTimeReader(column: Column): ((value: unknown) => unknown) | undefined {
  // MySQL's DATETIME holds UTC (the store writes it so): its text as RFC 3339.
  if (isMysqlDateTime(column)) return mysqlDateTimeText;
  if (column.columnType !== 'PgTimestampString') return undefined;
  return (value) => {
    if (typeof value !== 'string') return value;
    const utc = utcText(value);
    if (utc !== undefined) return utc;
    // Another session time zone: `2024-01-05 06:00:00+02` is RFC 3339 once it has a `T` and minutes.
    const date = new Date(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
    return Number.isNaN(date.getTime()) ? value : date.toISOString();
  };
}

/** One resource's table, with what every statement needs precomputed. */
export class TableResource {
  readonly type: string;
  readonly table: Table;
  readonly tableName: string;
  /** The table's columns by key. */
  readonly columns: Readonly<Record<string, Column>>;
  readonly idKey: string;
  readonly id: Column;
  readonly parseId: (id: string) => unknown;
  readonly mapping: UntypedTableMapping;
  /** Column key → model property, where they differ. */
  readonly #properties = new Map<string, string>();
  /** Attribute → column key, where they differ. */
  readonly #keys = new Map<string, string>();
  /** Model property → column key, where they differ (the id's included). */
  readonly #rowKeys = new Map<string, string>();
  readonly #readers: Array<[string, (value: unknown) => unknown]> = [];
  readonly #relations = new Map<string, Relation>();
  readonly #declared: DeclaredRelations;

  constructor(type: string, mapping: UntypedTableMapping, declared: DeclaredRelations) {
    this.type = type;
    this.mapping = mapping;
    this.table = mapping.table as Table;
    this.tableName = getTableName(this.table);
    this.columns = getTableColumns(this.table) as Record<string, Column>;
    this.idKey = mapping.id ?? 'id';
    this.id = this.#column(this.idKey);
    this.parseId = mapping.parseId ?? parseIntegerId;
    this.#declared = declared;
    if (this.idKey !== 'id') this.#properties.set(this.idKey, 'id');
    for (const [attribute, key] of Object.entries(mapping.columns ?? {})) {
      this.#column(key);
      this.#properties.set(key, attribute);
      this.#keys.set(attribute, key);
    }
    for (const [key, property] of this.#properties) this.#rowKeys.set(property, key);
    for (const [key, column] of Object.entries(this.columns)) {
      const read = dateTimeReader(column);
      if (read) this.#readers.push([this.property(key), read]);
    }
  }

  #column(key: string): Column {
    const column = this.columns[key];
    if (!column) throw new TypeError(`defineStore: ${this.type}: table ${this.tableName} has no column "${key}"`);
    return column;
  }

  /** The model property a column key is read into. */
  property(key: string): string {
    return this.#properties.get(key) ?? key;
  }

  /** The column an attribute is stored in. */
  column(attribute: string): Column {
    return this.#column(this.#keys.get(attribute) ?? attribute);
  }

  /** The column a `Where` filter on `field` compares: an attribute's, or a to-one relationship's foreign key. */
  filterColumn(field: string): Column {
    const entry = this.mapping.relationships?.[field];
    if (typeof entry === 'object' && !('table' in entry) && !('through' in entry)) return entry.foreignKey as Column;
    const declared = this.#declaredOf(typeof entry === 'string' ? entry : field);
    if (declared && is(declared, One) && declared.config) return declared.config.fields[0]!;
    return this.column(field);
  }

  /** The names of the relations the host declared on this table with `relations()`. */
  declaredNames(): string[] {
    return Object.keys(Object.values(this.#declared.tables).find((t) => t.dbName === this.tableName)?.relations ?? {});
  }

  #declaredOf(name: string) {
    return Object.values(this.#declared.tables).find((t) => t.dbName === this.tableName)?.relations[name];
  }

  /** The key of a model, as stored. */
  key(model: Model): unknown {
    return model[this.property(this.idKey)];
  }

  /** The scope's condition for this request, or undefined (every row). */
  scope(context: Context): SQL | undefined {
    return this.mapping.scope?.(context);
  }

  /** Whether reads of this resource depend on the request (a scope): then their SQL is built anew. */
  get scoped(): boolean {
    return this.mapping.scope !== undefined;
  }

  /** The rows of one statement as models: columns renamed, PostgreSQL date-time text as responses carry it. */
  toModels(rows: readonly Model[], skip?: string): Model[] {
    return rows.map((row) => {
      const model: Model = {};
      for (const key in row) if (key !== skip) model[this.#properties.get(key) ?? key] = row[key];
      for (const [property, read] of this.#readers) model[property] = read(model[property]);
      return model;
    });
  }

  /** A model as a row: keyed by column key again (what the write functions read the id and version of). */
  toRow(model: Model): Model {
    const row: Model = {};
    for (const property in model) row[this.#rowKeys.get(property) ?? property] = model[property];
    return row;
  }

  /**
   * How relationship `name` is written: by the type of the identifiers sent when there are
   * some, else by the related table its entry leads to (the resource of the store stored there).
   */
  writeRelation(name: string, resources: Resources, relatedType?: string): Relation {
    const known = this.#relations.get(name);
    if (known) return known;
    if (relatedType !== undefined) return this.relation({ name, relatedType }, resources);
    const table = this.#relatedTable(name, resources);
    const stored = [...resources.values()].filter((r) => r.table === table);
    if (stored.length !== 1)
      throw new TypeError(
        `defineStore: ${this.type}.${name} leads to ${table === undefined ? 'no table the store can tell' : getTableName(table)}, ` +
          `which ${stored.length === 0 ? 'no' : 'more than one'} resource of the store is stored in`,
      );
    return this.relation({ name, relatedType: stored[0]!.type }, resources);
  }

  /** The table relationship `name` leads to, from its mapping's entry or the host's `relations()`. */
  #relatedTable(name: string, resources: Resources): Table | undefined {
    const entry = this.mapping.relationships?.[name] ?? name;
    if (typeof entry === 'object') {
      if ('through' in entry) return referencedTable((entry as { through: { to: Column } }).through.to);
      if ('table' in entry) return (entry as { table: Table }).table;
      return referencedTable((entry as { foreignKey: Column }).foreignKey);
    }
    const declared = this.#declaredOf(entry);
    if (!declared) return undefined;
    if (is(declared, One)) return declared.referencedTable;
    const target = declared.referencedTable;
    if ([...resources.values()].some((r) => r.table === target)) return target;
    // A join table: its one() relation onward (to another table than this one, unless both lead here).
    const joinConfig = Object.values(this.#declared.tables).find((t) => t.dbName === getTableName(target));
    const onward = Object.values(joinConfig?.relations ?? {})
      .filter((r) => is(r, One))
      .map((r) => r.referencedTable);
    return onward.find((t) => t !== this.table) ?? onward[0];
  }

  /**
   * How `relationship` reaches its related rows: the mapping's entry, else the `relations()`
   * entry of its name; checked against the related resource's table, once.
   */
  relation(relationship: Pick<Relationship, 'name' | 'relatedType'>, resources: Resources): Relation {
    const known = this.#relations.get(relationship.name);
    if (known) return known;
    const where = `${this.type}.${relationship.name}`;
    const related = resources.get(relationship.relatedType);
    if (!related)
      throw new TypeError(
        `defineStore: ${where} relates to "${relationship.relatedType}", which the store does not map`,
      );
    const entry = this.mapping.relationships?.[relationship.name] ?? relationship.name;
    const relation =
      typeof entry === 'string' ? this.#declaredRelation(where, entry, related) : this.#mapped(where, entry, related);
    this.#relations.set(relationship.name, relation);
    return relation;
  }

  #mapped(where: string, entry: object, related: TableResource): Relation {
    if ('through' in entry) {
      const { table, from, to } = (entry as { through: { table: Table; from: Column; to: Column } }).through;
      return { kind: 'through', join: table, from, to, related };
    }
    if ('table' in entry) {
      const { table, foreignKey } = entry as { table: Table; foreignKey: Column };
      if (table !== related.table)
        throw new TypeError(
          `defineStore: ${where} names table ${getTableName(table)}, but ${related.type} is stored in ${related.tableName}`,
        );
      return { kind: 'toMany', foreignKey, related };
    }
    const { foreignKey } = entry as { foreignKey: Column };
    return { kind: 'toOne', foreignKey, property: this.property(this.#keyOf(foreignKey)), related };
  }

  #keyOf(column: Column): string {
    const found = Object.entries(this.columns).find(([, c]) => c === column);
    if (!found) throw new TypeError(`defineStore: ${this.type}: ${column.name} is no column of ${this.tableName}`);
    return found[0];
  }

  #declaredRelation(where: string, name: string, related: TableResource): Relation {
    const { tables, tableNamesMap } = this.#declared;
    const declared = this.#declaredOf(name);
    if (!declared)
      throw new TypeError(
        `defineStore: ${where} has no entry in relationships, and ${this.tableName} declares no relation "${name}" with relations()`,
      );
    const { fields, references } = normalizeRelation(tables, tableNamesMap, declared);
    if (is(declared, One)) {
      if (declared.referencedTable !== related.table)
        throw new TypeError(
          `defineStore: ${where}: the relation "${name}" leads to ${getTableName(declared.referencedTable)}, not ${related.tableName}`,
        );
      return { kind: 'toOne', foreignKey: fields[0]!, property: this.property(this.#keyOf(fields[0]!)), related };
    }
    if (declared.referencedTable === related.table) return { kind: 'toMany', foreignKey: references[0]!, related };
    // many() to a join table: its one() relation to the related table names the other key.
    const join = declared.referencedTable;
    const joinConfig = Object.values(tables).find((t) => t.dbName === getTableName(join));
    const onward = Object.values(joinConfig?.relations ?? {}).find(
      (r) => is(r, One) && r.referencedTable === related.table,
    );
    if (!onward)
      throw new TypeError(
        `defineStore: ${where}: the relation "${name}" leads to ${getTableName(join)}, which has no one() relation to ${related.tableName}`,
      );
    const to = normalizeRelation(tables, tableNamesMap, onward).fields[0]!;
    return { kind: 'through', join, from: references[0]!, to, related };
  }
}

/** The table a column's foreign key references (`.references(() => ...)`), if it declares one. */
function referencedTable(column: Column): Table | undefined {
  const config = is(column.table, PgTable)
    ? pgTableConfig(column.table)
    : is(column.table, MySqlTable)
      ? mysqlTableConfig(column.table)
      : sqliteTableConfig(column.table as never);
  const key = config.foreignKeys.find((fk) => {
    const { columns } = fk.reference();
    return columns.length === 1 && columns[0] === column;
  });
  return key?.reference().foreignTable as Table | undefined;
}

/** Every resource of a store, by type. */
export type Resources = ReadonlyMap<string, TableResource>;
