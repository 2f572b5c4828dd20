/**
 * The write statements whose shape repeats (a create's `insert`, its join-table rows, an outbox
 * entry), prepared once per shape on each database (`PreparedShapes`) and run with each
 * write's values: on SQLite, where a request's transaction is the database's own connection,
 * every write runs prepared; on PostgreSQL, whose transactions hold a pool connection of their
 * own, they are prepared once per shape on that connection and sent under the shape's statement
 * name (built, parsed and planned once per connection); MySQL's are always built with their
 * values in place. On
 * PostgreSQL a create's join-table rows go in the row's own statement (`insertWithMembers`).
 */
import { type Column, type SQL, type Table, getTableColumns, isSQLWrapper, sql } from 'drizzle-orm';
import { isMysqlDatabase } from './mysql.js';
import { PreparedShapes, type Preparable, type Slot } from './statements.js';
import { isSqliteDatabase } from './transaction.js';

/** A row to insert, keyed by the table's property names. */
type Row = Record<string, unknown>;

/** The insert builder of either dialect, as these statements chain it. */
interface Inserts {
  insert(table: Table): {
    values(rows: Row[]): Preparable<unknown> & { returning(): Preparable<Row[]> };
  };
}

/** Per database: its write statements prepared per shape (null on MySQL). */
const prepared = new WeakMap<object, PreparedShapes | null>();

/** The prepared write statements of `db` (undefined on MySQL: built each time); worked out once per database. */
function writeShapesOf(db: object): PreparedShapes | undefined {
  let shapes = prepared.get(db);
  if (shapes === undefined)
    prepared.set(db, (shapes = isMysqlDatabase(db) ? null : new PreparedShapes(db, !isSqliteDatabase(db))));
  return shapes ?? undefined;
}

/**
 * Runs the write statement `build` makes on `on` (the database `db` itself, or a transaction of
 * it): prepared per the shape `shape` answers where `db`'s write statements are (undefined: its
 * SQL may vary), or, on MySQL, built with its values in place.
 */
export async function runWrite<R>(
  on: object,
  db: object,
  shape: () => string | undefined,
  values: readonly unknown[],
  build: (on: object, slot: Slot) => Preparable<R>,
): Promise<R> {
  const shapes = writeShapesOf(db);
  return shapes ? await shapes.run(on, shape(), values, build) : await build(on, (i) => values[i]);
}

/** Per table or column: a number that tells it apart from the others (of any schema) in shapes. */
const shapeNumbers = new WeakMap<Table | Column, number>();
let numbered = 0;

/**
 * The number of `table` (or column) in shapes: two statements of the same text but on other
 * tables must not share a prepared statement.
 *
 * @example
 * const shape = `exist ${shapeNumber(people.id)}:2`;
 */
export function shapeNumber(of: Table | Column): number {
  let number = shapeNumbers.get(of);
  if (number === undefined) shapeNumbers.set(of, (number = ++numbered));
  return number;
}

/**
 * Per table: the properties whose value Drizzle computes at each insert they are left out of
 * (`$defaultFn`, `$onUpdateFn`): a statement prepared without them would keep one value for ever.
 */
const computed = new WeakMap<Table, readonly string[]>();

/** The shape of inserting `rows` into `table`, or undefined when it must be built each time. */
function insertShape(table: Table, rows: readonly Row[], returning: boolean): string | undefined {
  const keys = Object.keys(rows[0]!);
  // Which values are null: a null is written as NULL in the statement's text (see `slotted`).
  let nulls = '';
  for (const row of rows) {
    const own = Object.keys(row);
    if (own.length !== keys.length) return undefined;
    for (let i = 0; i < own.length; i++) {
      const value = row[own[i]!];
      // A value of SQL is part of the statement's text; undefined is a default Drizzle fills in.
      if (own[i] !== keys[i] || value === undefined || isSQLWrapper(value)) return undefined;
      nulls += value === null ? 'n' : '.';
    }
  }
  if (!fillsGiven(table, keys)) return undefined;
  return `insert ${shapeNumber(table)} (${keys.join(',')}) ${nulls}${returning ? ' returning' : ''}`;
}

/** Whether an insert into `table` of the properties `keys` gives every value Drizzle computes (see `computed`). */
function fillsGiven(table: Table, keys: readonly string[]): boolean {
  let fills = computed.get(table);
  if (fills === undefined) {
    const columns = Object.entries(getTableColumns(table) as Record<string, Column>);
    fills = columns.filter(([, c]) => c.defaultFn !== undefined || c.onUpdateFn !== undefined).map(([name]) => name);
    computed.set(table, fills);
  }
  return fills.every((name) => keys.includes(name));
}

/**
 * `rows` with each value in its slot, in order; a null stays null: Drizzle writes it as NULL,
 * where a placeholder's null would go through the column's encoder (a JSON column's `'null'`, a
 * boolean's 0).
 */
const slotted = (rows: readonly Row[], slot: Slot): Row[] => {
  let i = 0;
  return rows.map((row) => {
    const values: Row = {};
    for (const name of Object.keys(row)) {
      values[name] = row[name] === null ? null : slot(i);
      i++;
    }
    return values;
  });
};

/**
 * Inserts `rows` (one shape: the same properties in the same order) into `table` on `on` (the
 * database `db` itself, or a transaction of it), prepared per shape where it can be (see the
 * module comment). With `returning`, resolves with the rows as stored.
 */
export function insertRows(on: object, db: object, table: Table, rows: readonly Row[], returning: true): Promise<Row[]>;
export function insertRows(
  on: object,
  db: object,
  table: Table,
  rows: readonly Row[],
  returning: false,
): Promise<unknown>;
export async function insertRows(on: object, db: object, table: Table, rows: readonly Row[], returning: boolean) {
  const build = (into: object, slot: Slot) => {
    const insert = (into as Inserts).insert(table).values(slotted(rows, slot));
    return returning ? insert.returning() : insert;
  };
  const values = rows.flatMap((row) => Object.values(row));
  return runWrite<unknown>(on, db, () => insertShape(table, rows, returning), values, build);
}

/** A join table's rows a create writes (PostgreSQL): its table, its two properties (`from` names the new row), the member keys. */
export interface JoinRows {
  table: Table;
  from: string;
  to: string;
  keys: readonly unknown[];
}

/** The builders of a PostgreSQL database or transaction a data-modifying `with` takes. */
interface PgWith extends Inserts {
  $with(alias: string): { as(query: unknown): object };
  with(...queries: object[]): { select(): { from(query: object): Preparable<Row[]> } };
}

/**
 * Inserts `row` into `table` and its members' rows into their join tables in one statement
 * (PostgreSQL): `with "new" as (insert ... returning ...), "m0" as (insert into join (from, to)
 * values ((select "new".key from "new"), $n), ...) select ... from "new"`, a round trip less
 * per join table than inserting the members after. `id`: the property of the key. Resolves with
 * the row as stored. Prepared per shape where `insertRows` would be.
 */
export async function insertWithMembers(
  on: object,
  db: object,
  table: Table,
  row: Row,
  id: string,
  joins: readonly JoinRows[],
): Promise<Row[]> {
  const build = (into: object, slot: Slot) => {
    const q = into as PgWith;
    const inserted = q.$with('new').as(
      q
        .insert(table)
        .values(slotted([row], slot))
        .returning(),
    );
    const key: SQL = sql`(select ${(inserted as Record<string, Column>)[id]} from ${inserted})`;
    let next = Object.keys(row).length;
    const members = joins.map(({ table: join, from, to, keys }, i) =>
      q.$with(`m${i}`).as(q.insert(join).values(keys.map(() => ({ [from]: key, [to]: slot(next++) })))),
    );
    return q
      .with(inserted, ...members)
      .select()
      .from(inserted);
  };
  const values = [...Object.values(row), ...joins.flatMap(({ keys }) => keys)];
  const shape = () => {
    const first = insertShape(table, [row], true);
    if (first === undefined || !joins.every(({ table: join, from, to }) => fillsGiven(join, [from, to])))
      return undefined;
    return `${first} with ${joins.map(({ table: join, from, to, keys }) => `${shapeNumber(join)} (${from},${to}) x${keys.length}`).join(', ')}`;
  };
  return runWrite(on, db, shape, values, build);
}
