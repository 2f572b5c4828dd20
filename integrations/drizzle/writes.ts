/**
 * The write side of a Drizzle data layer, as functions over a Drizzle database and a plain
 * description of the resource's table (`WriteTable`: its table and column objects): create,
 * update, delete, to-many add, remove and replace, `If-Match` versions with a conditional
 * update, server-set columns, and the existence check of related ids. Every statement runs on
 * the request's transaction when there is one (`databaseFor`), and what the driver throws
 * becomes the runtime's errors (`drizzleError`: 409 at the member for a unique violation, ...).
 * A row is what Drizzle selects: keyed by the table's property names.
 */
import {
  type Column,
  type SQL,
  type SQLWrapper,
  type Table,
  and,
  eq,
  getTableColumns,
  inArray,
  is,
  notInArray,
  sql,
} from 'drizzle-orm';
import { PgDatabase } from 'drizzle-orm/pg-core';
import {
  type Context,
  type ExistenceLookup,
  type Linkage,
  type ResourceIdentifier,
  type SharedExistence,
  staleVersion,
  type WriteValues,
} from 'jsonapi-gen';
import {
  type KeyLookup,
  countedExistence,
  distinctKeys,
  goneError,
  keyText,
  parseIntegerId,
  relatedKeyOf,
} from 'jsonapi-gen/internal';
import { runDrizzle, type Written } from './errors.js';
import { affectedRows, insertId, isMysqlDatabase, isMysqlDateTime, mysqlDateTime } from './mysql.js';
import { databaseFor } from './transaction.js';
import { type Preparable, type Slot, list } from './statements.js';
import { type JoinRows, insertRows, insertWithMembers, runWrite, shapeNumber } from './write-statements.js';

/** A row as Drizzle selects it, keyed by the table's property names. */
export type Row = Record<string, unknown>;

/** How an id of the URL or the document becomes a key (undefined: it names no row). Default: 32-bit integer ids (`parseIntegerId`). */
export type ParseId = (id: string) => unknown;

/**
 * A to-many relationship as it is written: by the related rows' foreign key (`foreignKey`, a
 * column of the related table, whose key column is `related`), or through a join table's rows
 * (`through`: its two columns, `from` naming this row, `to` the related one). `scope`: which
 * related rows the request may see, a condition on the related table; replacing or removing
 * members leaves the others alone (the client cannot see them, so it cannot mean to unlink them).
 */
export type ToManyWrite = {
  related: Column;
  parseId?: ParseId;
  scope?: (context: Context) => SQL | undefined;
} & ({ foreignKey: Column } | { through: { from: Column; to: Column } });

/** What the write functions need to know of a resource's table. */
export interface WriteTable {
  /** The resource type (for error messages). */
  type: string;
  table: Table;
  /** The key column. */
  id: Column;
  parseId?: ParseId;
  /** Attribute -> its column. */
  attributes: Readonly<Record<string, Column>>;
  /** To-one relationship -> its foreign-key column in this table. */
  toOne?: Readonly<Record<string, { foreignKey: Column; parseId?: ParseId }>>;
  toMany?: Readonly<Record<string, ToManyWrite>>;
  /** The version column (an integer), added to by one on every write, compared under `If-Match`. */
  version?: Column;
  /** Values the server sets (timestamps, the owner), by property name, on create and on update. */
  serverSet?: (operation: 'create' | 'update', context: Context) => Row;
}

/** The query builders these functions use, which Drizzle's SQLite and PostgreSQL databases share in this shape. */
interface Statements {
  insert(table: Table): {
    values(rows: Row | Row[]): PromiseLike<unknown> & {
      returning(): PromiseLike<Row[]>;
    };
  };
  update(table: Table): { set(row: Row): { where(condition: SQL | undefined): Returning } };
  delete(table: Table): { where(condition: SQL | undefined): Returning };
  select(fields?: Record<string, Column | SQL>): {
    from(table: Table): { where(condition: SQL | undefined): Preparable<Row[]> & SQLWrapper };
  };
}

/** A statement that may return rows (`returning`) or not. */
type Returning = PromiseLike<unknown> & { returning(fields?: Record<string, Column>): PromiseLike<Row[]> };

/** What to run statements on for `context` (see `databaseFor`). */
const statementsFor = (db: object, context: Context) => databaseFor(db, context) as Statements;

/** Per table: its columns -> their property names. */
const propertyNames = new WeakMap<Table, Map<Column, string>>();

/** The property name of `column` in its table (what rows and `values` are keyed by). */
function property(column: Column): string {
  let names = propertyNames.get(column.table);
  if (names === undefined) {
    names = new Map(Object.entries(getTableColumns(column.table)).map(([name, c]) => [c as Column, name]));
    propertyNames.set(column.table, names);
  }
  const name = names.get(column);
  if (name === undefined) throw new TypeError(`drizzle: column ${column.name} is not one of its table's columns`);
  return name;
}

/** A value as drivers bind it: dates as ISO strings. */
const bindable = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** The key of a related id, or a 404 at the relationship when it cannot name a row. */
const relatedKey = (parseId: ParseId | undefined, identifier: ResourceIdentifier, name: string) =>
  relatedKeyOf(parseId ?? parseIntegerId, identifier, name);

/** What a write of `values` is about, for the error mapping. */
function written(m: WriteTable, values: WriteValues): Written {
  return {
    attributes: values.attributes,
    column: (attribute) => m.attributes[attribute]?.name ?? attribute,
    idColumn: m.id.name,
  };
}

/** The columns a write sets, by property: sent attributes, sent to-ones (their foreign keys), server-set values. */
function rowOf(m: WriteTable, values: WriteValues, operation: 'create' | 'update', context: Context): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values.attributes)) {
    const column = m.attributes[name];
    if (column === undefined) throw new TypeError(`drizzle: ${m.type}.${name} is not mapped to a column`);
    row[property(column)] = bindable(value);
  }
  for (const [name, linkage] of Object.entries(values.relationships)) {
    const toOne = m.toOne?.[name];
    if (!toOne) {
      if (!m.toMany?.[name]) throw new TypeError(`drizzle: ${m.type}.${name} is not mapped to a relationship`);
      continue;
    }
    if (Array.isArray(linkage)) throw new TypeError(`drizzle: ${m.type}.${name} is to-one`);
    row[property(toOne.foreignKey)] = linkage === null ? null : relatedKey(toOne.parseId, linkage, name);
  }
  return { ...row, ...m.serverSet?.(operation, context) };
}

/** `row` with its MySQL date-time columns' values as MySQL takes them (`mysqlDateTime`), in place. */
function mysqlRow(m: WriteTable, row: Row): Row {
  const columns = getTableColumns(m.table) as Record<string, Column>;
  for (const name of Object.keys(row)) {
    const column = columns[name];
    if (column !== undefined && isMysqlDateTime(column)) row[name] = mysqlDateTime(row[name]);
  }
  return row;
}

/**
 * How many rows `statement` (an update or delete) changed: on MySQL, which has no `returning`,
 * the rows it matched; elsewhere the keys it returns.
 */
async function changedRows(mysql: boolean, m: WriteTable, statement: Returning, what?: Written): Promise<number> {
  if (mysql) return affectedRows(await runDrizzle(() => statement, what));
  return (await runDrizzle(() => statement.returning({ key: m.id }), what)).length;
}

/** The to-many mapping of `name`, or a TypeError. */
function toManyOf(m: WriteTable, name: string): ToManyWrite {
  const write = m.toMany?.[name];
  if (!write) throw new TypeError(`drizzle: ${m.type}.${name} is not mapped as to-many`);
  return write;
}

/** The keys of the related rows the request may see, as a subquery; undefined without a scope. */
function visibleKeys(on: Statements, write: ToManyWrite, context: Context): SQLWrapper | undefined {
  const scope = write.scope?.(context);
  return scope && on.select({ key: write.related }).from(write.related.table).where(scope);
}

/** Adds (or, with `remove`, removes) the members `keys` of a to-many relationship of the row `owner`. */
async function changeMembers(
  db: object,
  on: Statements,
  write: ToManyWrite,
  owner: unknown,
  keys: unknown[],
  remove: boolean,
  context: Context,
) {
  if (keys.length === 0) return;
  const visible = remove ? visibleKeys(on, write, context) : undefined;
  if ('through' in write) {
    const { from, to } = write.through;
    if (remove) {
      const where = and(eq(from, owner), inArray(to, keys), visible && inArray(to, visible));
      await runDrizzle(() => on.delete(from.table).where(where));
    } else {
      // A member sent twice is a unique violation (409), as a member added meanwhile by another
      // request is: the runtime leaves out the members the row has already.
      const rows = keys.map((key) => ({ [property(from)]: owner, [property(to)]: key }));
      await runDrizzle(() => insertRows(on, db, from.table, rows, false));
    }
    return;
  }
  const { foreignKey, related } = write;
  const where = and(
    inArray(related, keys),
    remove ? eq(foreignKey, owner) : undefined,
    visible && inArray(related, visible),
  );
  await runDrizzle(() =>
    on
      .update(related.table)
      .set({ [property(foreignKey)]: remove ? null : owner })
      .where(where),
  );
}

/** Makes a to-many relationship hold exactly `keys` among the members the request may see. */
async function replaceMembers(
  db: object,
  on: Statements,
  write: ToManyWrite,
  owner: unknown,
  keys: unknown[],
  context: Context,
) {
  const visible = visibleKeys(on, write, context);
  if ('through' in write) {
    const { from, to } = write.through;
    await runDrizzle(() => on.delete(from.table).where(and(eq(from, owner), visible && inArray(to, visible))));
  } else {
    const { foreignKey, related } = write;
    const where = and(
      eq(foreignKey, owner),
      keys.length > 0 ? notInArray(related, keys) : undefined,
      visible && inArray(related, visible),
    );
    await runDrizzle(() =>
      on
        .update(related.table)
        .set({ [property(foreignKey)]: null })
        .where(where),
    );
  }
  await changeMembers(db, on, write, owner, keys, false, context);
}

/** Sets the to-many relationships sent: a new row's are added, an existing row's replaced. */
async function writeToMany(
  db: object,
  on: Statements,
  m: WriteTable,
  owner: unknown,
  relationships: Record<string, Linkage>,
  created: boolean,
  context: Context,
) {
  for (const [name, linkage] of Object.entries(relationships)) {
    if (!Array.isArray(linkage)) continue;
    const write = toManyOf(m, name);
    const keys = linkage.map((identifier) => relatedKey(write.parseId, identifier, name));
    if (created) await changeMembers(db, on, write, owner, keys, false, context);
    else await replaceMembers(db, on, write, owner, keys, context);
  }
}

/**
 * On PostgreSQL, the join-table rows of a new row's to-many members, when join tables hold all
 * of those sent, to insert in the row's own statement (`insertWithMembers`); undefined otherwise
 * (none sent, SQLite and MySQL, whose `with` takes no insert, or members held by foreign keys).
 */
function joinRowsOf(db: object, m: WriteTable, values: WriteValues): JoinRows[] | undefined {
  if (!is(db, PgDatabase)) return undefined;
  const joins: JoinRows[] = [];
  for (const [name, linkage] of Object.entries(values.relationships)) {
    if (!Array.isArray(linkage) || linkage.length === 0) continue;
    const write = toManyOf(m, name);
    if (!('through' in write)) return undefined;
    const { from, to } = write.through;
    const keys = linkage.map((identifier) => relatedKey(write.parseId, identifier, name));
    joins.push({ table: from.table, from: property(from), to: property(to), keys });
  }
  return joins.length > 0 ? joins : undefined;
}

/** Whether a to-many sent is held by foreign keys in the row's own table: then the row is read back after. */
const membersInOwnTable = (m: WriteTable, values: WriteValues) =>
  Object.entries(values.relationships).some(([name, linkage]) => {
    const write = m.toMany?.[name];
    return Array.isArray(linkage) && write !== undefined && 'foreignKey' in write && write.foreignKey.table === m.table;
  });

/** The row of `key`, as stored now. */
async function readBack(on: Statements, m: WriteTable, key: unknown): Promise<Row> {
  const [row] = await runDrizzle(() => on.select().from(m.table).where(eq(m.id, key)));
  if (!row) throw new TypeError(`drizzle: ${m.type} ${String(key)} was written but cannot be read back`);
  return row;
}

/** The row of `current` (its key), at the version it was read at when the request came with `If-Match`. */
function whereCurrent(m: WriteTable, current: Row, context: Context): SQL | undefined {
  const key = current[property(m.id)];
  return and(eq(m.id, key), m.version && context.ifMatch ? eq(m.version, current[property(m.version)]) : undefined);
}

/** What a write that changed no row means: 412 under If-Match (a concurrent write won), else 404 (deleted meanwhile). */
const missed = (m: WriteTable, current: Row, context: Context) =>
  m.version && context.ifMatch ? staleVersion(m.type) : goneError(m.type, current[property(m.id)]);

/**
 * Inserts a row from checked values (`Creatable.create`): attributes into their columns,
 * to-ones by their foreign keys, to-manys by join-table rows or the related rows' foreign
 * keys, the server's values, a client-generated id when sent. Returns the row as stored
 * (`insert ... returning`, defaults included). On PostgreSQL, when join tables hold the to-many
 * members sent, they are inserted in the row's own statement (a data-modifying `with`).
 *
 * @example
 * import { db } from './db.js';
 * import { articles } from './tables.js';
 * declare const ctx: Context;
 * const table = { type: 'articles', table: articles, id: articles.id, attributes: { title: articles.title }, toOne: { author: { foreignKey: articles.authorId } } };
 * const row = await createRow(db, table, { attributes: { title: 'Hi' }, relationships: { author: { type: 'people', id: '1' } } }, ctx);
 */
export async function createRow(db: object, m: WriteTable, values: WriteValues, context: Context): Promise<Row> {
  const on = statementsFor(db, context);
  const row = rowOf(m, values, 'create', context);
  if (values.id !== undefined) row[property(m.id)] = (m.parseId ?? parseIntegerId)(values.id) ?? values.id;
  if (isMysqlDatabase(db)) {
    // No `insert ... returning` on MySQL (MariaDB's is not MySQL 8's): the row is read back by
    // its key in the same transaction, after its members are written.
    const result = await runDrizzle(() => on.insert(m.table).values(mysqlRow(m, row)), written(m, values));
    const key = row[property(m.id)] ?? insertId(result);
    await writeToMany(db, on, m, key, values.relationships, true, context);
    return readBack(on, m, key);
  }
  const joins = joinRowsOf(db, m, values);
  const [inserted] = await runDrizzle(
    () =>
      joins ? insertWithMembers(on, db, m.table, row, property(m.id), joins) : insertRows(on, db, m.table, [row], true),
    written(m, values),
  );
  if (!inserted) throw new TypeError(`drizzle: inserting into ${m.type} returned no row`);
  const key = inserted[property(m.id)];
  if (!joins) await writeToMany(db, on, m, key, values.relationships, true, context);
  return membersInOwnTable(m, values) ? readBack(on, m, key) : inserted;
}

/**
 * Changes the row `current` (what `find` read) (`Updatable.update`): only the members sent; a
 * to-many sent is replaced. The version (if any) moves on by one; under `If-Match`
 * (`context.ifMatch`) the row changes only while its version is still the one `current` holds
 * (one conditional `update`), else 412 and nothing changes. Returns the row as stored.
 *
 * @example
 * import { db } from './db.js';
 * declare const ctx: Context;
 * declare const table: WriteTable;
 * declare const current: Row;
 * await updateRow(db, table, current, { attributes: { title: 'New' }, relationships: {} }, ctx);
 */
export async function updateRow(
  db: object,
  m: WriteTable,
  current: Row,
  values: WriteValues,
  context: Context,
): Promise<Row> {
  const on = statementsFor(db, context);
  const key = current[property(m.id)];
  const row = rowOf(m, values, 'update', context);
  if (m.version) row[property(m.version)] = sql`${m.version} + 1`;
  const mysql = isMysqlDatabase(db);
  let updated: Row | undefined;
  if (mysql && Object.keys(row).length > 0) {
    // No `update ... returning` on MySQL: the rows it matched tell a stale version; read back after.
    const statement = on
      .update(m.table)
      .set(mysqlRow(m, row))
      .where(whereCurrent(m, current, context));
    if ((await changedRows(true, m, statement, written(m, values))) === 0) throw missed(m, current, context);
  } else if (Object.keys(row).length > 0) {
    const rows = await runDrizzle(
      () =>
        on
          .update(m.table)
          .set(row)
          .where(whereCurrent(m, current, context))
          .returning(),
      written(m, values),
    );
    if (rows.length === 0) throw missed(m, current, context);
    updated = rows[0];
  }
  await writeToMany(db, on, m, key, values.relationships, false, context);
  return updated && !membersInOwnTable(m, values) ? updated : readBack(on, m, key);
}

/**
 * Deletes the row `current` (`Deletable.delete`); under `If-Match` only at the version it was
 * read at (412 otherwise, nothing deleted). 404 when another request deleted it meanwhile.
 *
 * @example
 * import { db } from './db.js';
 * declare const ctx: Context;
 * declare const table: WriteTable;
 * declare const current: Row;
 * await deleteRow(db, table, current, ctx);
 */
export async function deleteRow(db: object, m: WriteTable, current: Row, context: Context): Promise<void> {
  const on = statementsFor(db, context);
  const statement = on.delete(m.table).where(whereCurrent(m, current, context));
  if ((await changedRows(isMysqlDatabase(db), m, statement)) === 0) throw missed(m, current, context);
}

/**
 * Adds members to (or, with `remove`, removes them from) a to-many relationship of the row
 * `current` (`ToManyMutable`): join-table rows inserted or deleted, or the related rows'
 * foreign keys set or cleared (removal only of members within the relationship's `scope`). A
 * change of members is a write of the owner: its version moves on (conditionally under `If-Match`).
 *
 * @example
 * import { db } from './db.js';
 * declare const ctx: Context;
 * declare const table: WriteTable;
 * declare const current: Row;
 * await changeToMany(db, table, current, 'tags', [{ type: 'tags', id: '2' }], false, ctx);
 */
export async function changeToMany(
  db: object,
  m: WriteTable,
  current: Row,
  name: string,
  identifiers: readonly ResourceIdentifier[],
  remove: boolean,
  context: Context,
): Promise<void> {
  const write = toManyOf(m, name);
  const on = statementsFor(db, context);
  if (m.version) {
    const bump = { [property(m.version)]: sql`${m.version} + 1` };
    const statement = on
      .update(m.table)
      .set(bump)
      .where(whereCurrent(m, current, context));
    if ((await changedRows(isMysqlDatabase(db), m, statement)) === 0) throw missed(m, current, context);
  }
  const keys = identifiers.map((identifier) => relatedKey(write.parseId, identifier, name));
  await changeMembers(db, on, write, current[property(m.id)], keys, remove, context);
}

/** A member of a `drizzleExistence`: the key column its ids name, and the rows the request may see. */
export interface ExistenceMember {
  id: Column;
  parseId?: ParseId;
  /** The resource's scope, a condition on its table (row visibility), if it has one. */
  scope?: (context: Context) => SQL | undefined;
}

/** One type's ids of an existence check, as keys, and its member. */
interface MemberKeys extends KeyLookup {
  readonly name: string;
  readonly member: ExistenceMember;
  readonly keys: unknown[];
}

/**
 * The existence check the data layers of one store share (`Findable.existence`): the ids of
 * several types in one statement, `select count(distinct people.id), (select count(distinct
 * tags.id) from tags where tags.id in (...)) from people where people.id in (...)`, each type
 * within its scope; only when a count falls short are that type's ids read to tell which.
 * Prepared per shape (the types and how many ids of each) unless a scope is in it.
 *
 * @example
 * import { db } from './db.js';
 * import { people, tags } from './tables.js';
 * const check = drizzleExistence(db, { people: { id: people.id }, tags: { id: tags.id } });
 * const layer = { existence: { check, member: 'tags' } };
 */
export function drizzleExistence(db: object, members: Readonly<Record<string, ExistenceMember>>): SharedExistence {
  /** How many of each lookup's keys name a row the request may see. */
  const count = async (lookups: readonly MemberKeys[], context: Context): Promise<number[]> => {
    const scopes = lookups.map(({ member }) => member.scope?.(context));
    /** Where each lookup's keys start among the statement's values. */
    const starts: number[] = [];
    lookups.reduce((start, { keys }) => (starts.push(start), start + keys.length), 0);
    const build = (on: object, slot: Slot) => {
      /** `lookups[i]`'s keys, within its scope, as a condition. */
      const where = (i: number) => {
        const { member, keys } = lookups[i]!;
        return and(sql`${member.id} in (${list(slot, starts[i]!, keys.length)})`, scopes[i]);
      };
      const first = lookups[0]!.member.id;
      const fields: Record<string, SQL> = { n0: sql`count(distinct ${first})` };
      for (let i = 1; i < lookups.length; i++) {
        const { id } = lookups[i]!.member;
        fields[`n${i}`] = sql`(select count(distinct ${id}) from ${id.table} where ${where(i)})`;
      }
      return (on as Statements).select(fields).from(first.table).where(where(0));
    };
    const shape = () =>
      scopes.some((scope) => scope !== undefined)
        ? undefined
        : `exist ${lookups.map(({ member, keys }) => `${shapeNumber(member.id)}:${keys.length}`).join(' ')}`;
    const values = lookups.flatMap(({ keys }) => keys);
    const [row] = await runDrizzle(() => runWrite(statementsFor(db, context), db, shape, values, build));
    return lookups.map((_, i) => Number(row?.[`n${i}`] ?? 0));
  };
  /** Which of the lookup's keys name a row the request may see, as `keyText`. */
  const found = async ({ member, keys }: MemberKeys, context: Context): Promise<Set<string>> => {
    const where = and(inArray(member.id, keys), member.scope?.(context));
    const on = statementsFor(db, context);
    const rows = await runDrizzle(() => on.select({ key: member.id }).from(member.id.table).where(where));
    return new Set(rows.map((row) => keyText(row.key)));
  };
  return {
    async exist(lookups: readonly ExistenceLookup[], context: Context): Promise<boolean[][]> {
      const all = lookups.map(({ member: name, ids }): MemberKeys => {
        const member = members[name];
        if (!member) throw new TypeError(`drizzleExistence: no member "${name}"`);
        const parsed = ids.map((id) => (member.parseId ?? parseIntegerId)(id));
        return { name, member, parsed, keys: distinctKeys(parsed) };
      });
      return countedExistence(
        all,
        (counted) => count(counted, context),
        (lookup) => found(lookup, context),
      );
    },
  };
}
