import type { Context, Linkage, ResourceIdentifier } from 'jsonapi-gen';
import { type Kysely, sql } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { runStatement } from './errors.js';
import type { ThroughMapping, ToManyMapping } from './mapping.js';
import type { StoreTables } from './store-tables.js';
import type { TableResource } from './table-resource.js';
import { dialectOf } from './dialect.js';
import { executorFor } from './transaction.js';

function toManyMapping(
  resource: TableResource,
  name: string,
): ToManyMapping<AnyDatabase> | ThroughMapping<AnyDatabase> {
  const mapping = resource.relationships[name];
  if (!mapping || mapping.type !== 'toMany')
    throw new TypeError(`defineStore: ${resource.type}.${name} is not mapped as toMany`);
  return mapping;
}

/** The keys the identifiers of written linkage name, each parsed by its own resource. */
function keysOf(t: StoreTables, identifiers: readonly ResourceIdentifier[]): unknown[] {
  return identifiers.map((i) => t.resourceOf(i).parseId(i.id));
}

/**
 * The resource a to-many relationship's members belong to: by the mapping's table, else by the
 * identifiers written. Undefined only for a join-table mapping without `table`, cleared.
 */
function membersOf(
  t: StoreTables,
  resource: TableResource,
  name: string,
  mapping: { table?: string },
  identifiers: readonly ResourceIdentifier[],
): TableResource | undefined {
  const byTable =
    mapping.table === undefined ? undefined : [...t.tables.values()].filter((r) => r.table === mapping.table);
  if (byTable?.length === 1) return byTable[0];
  if (identifiers.length > 0) return t.resourceOf(identifiers[0]!);
  if ([...t.tables.values()].some((r) => r.scope)) {
    throw new TypeError(
      `defineStore: ${resource.type}.${name} needs its "table" so that replacing it can keep the members a scope hides`,
    );
  }
  return undefined;
}

/**
 * Adds (or, with `remove`, removes) members of a to-many relationship. Removal only touches
 * members inside the related resource's scope (the runtime has checked them with `find`
 * already; this holds for direct calls too).
 */
export async function changeMembers(
  t: StoreTables,
  resource: TableResource,
  key: unknown,
  name: string,
  identifiers: readonly ResourceIdentifier[],
  remove: boolean,
  context: Context,
): Promise<void> {
  const mapping = toManyMapping(resource, name);
  if (identifiers.length === 0) return;
  const related = membersOf(t, resource, name, mapping, identifiers)!;
  const keys = keysOf(t, identifiers);
  const ex = executorFor(t.db, context);
  const visible = remove ? related.visibleKeys(ex, context) : undefined;
  if ('through' in mapping && mapping.through) {
    const { table: join, from, to } = mapping.through;
    if (remove) {
      let statement = ex.deleteFrom(join).where(from, '=', key).where(to, 'in', keys);
      if (visible) statement = statement.where(to, 'in', visible);
      await runStatement(() => statement.execute());
    } else {
      const rows = keys.map((k) => ({ [from]: key, [to]: k }));
      await runStatement(() =>
        t.statements.execute(
          ex,
          `insert ${JSON.stringify([join, from, to])} ${keys.length}`,
          keys.flatMap((k) => [key, k]),
          (on) => on.insertInto(join).values(rows),
        ),
      );
    }
    return;
  }
  const { foreignKey } = mapping as { foreignKey: string };
  let update = ex
    .updateTable(related.table)
    .set({ [foreignKey]: remove ? null : key })
    .where(related.idColumn, 'in', keys);
  if (remove) update = update.where(foreignKey, '=', key);
  if (visible) update = update.where(related.idColumn, 'in', visible);
  await runStatement(() => update.execute());
}

/**
 * Makes a to-many relationship hold exactly `identifiers` among the members the request may
 * see: members outside the related resource's scope stay (the client cannot see them, so it
 * cannot mean to unlink them).
 */
export async function replaceMembers(
  t: StoreTables,
  resource: TableResource,
  key: unknown,
  name: string,
  identifiers: readonly ResourceIdentifier[],
  context: Context,
): Promise<void> {
  const mapping = toManyMapping(resource, name);
  const related = membersOf(t, resource, name, mapping, identifiers);
  const ex = executorFor(t.db, context);
  const visible = related?.visibleKeys(ex, context);
  if ('through' in mapping && mapping.through) {
    const { table: join, from, to } = mapping.through;
    let clear = ex.deleteFrom(join).where(from, '=', key);
    if (visible) clear = clear.where(to, 'in', visible);
    await runStatement(() => clear.execute());
  } else {
    const { foreignKey, table: relatedTable } = mapping as { foreignKey: string; table: string };
    const keep = keysOf(t, identifiers);
    const idColumn = related?.idColumn ?? 'id';
    let clear = ex
      .updateTable(relatedTable)
      .set({ [foreignKey]: null })
      .where(foreignKey, '=', key);
    if (keep.length > 0) clear = clear.where(idColumn, 'not in', keep);
    if (visible) clear = clear.where(idColumn, 'in', visible);
    await runStatement(() => clear.execute());
  }
  await changeMembers(t, resource, key, name, identifiers, false, context);
}

/** Sets the to-many relationships written; a row just created has no members to clear first. */
export async function writeToMany(
  t: StoreTables,
  resource: TableResource,
  key: unknown,
  relationships: Record<string, Linkage>,
  context: Context,
  created: boolean,
): Promise<void> {
  for (const [name, linkage] of Object.entries(relationships)) {
    if (!Array.isArray(linkage)) continue;
    if (created) await changeMembers(t, resource, key, name, linkage, false, context);
    else await replaceMembers(t, resource, key, name, linkage, context);
  }
}

/** A join table's rows a create writes: the table, its two columns, the member keys. */
interface JoinRows {
  join: string;
  from: string;
  to: string;
  keys: unknown[];
}

/**
 * On PostgreSQL, the join-table rows of a new row's to-many members, when join tables hold all
 * of them, to insert in the row's own statement (`insertWithMembers`); undefined otherwise (no
 * members, SQLite and MySQL, whose `with` takes no insert, or members held by foreign keys).
 */
export function joinRowsOf(
  t: StoreTables,
  resource: TableResource,
  relationships: Record<string, Linkage>,
): JoinRows[] | undefined {
  // SQLite and MySQL have no data-modifying WITH: the members are written after the row.
  if (dialectOf(t.db) !== 'postgres') return undefined;
  const rows: JoinRows[] = [];
  for (const [name, linkage] of Object.entries(relationships)) {
    if (!Array.isArray(linkage) || linkage.length === 0) continue;
    const mapping = toManyMapping(resource, name);
    if (!('through' in mapping && mapping.through)) return undefined;
    const { table: join, from, to } = mapping.through;
    rows.push({ join, from, to, keys: keysOf(t, linkage) });
  }
  return rows.length > 0 ? rows : undefined;
}

/**
 * One statement for a new row and its join-table rows (PostgreSQL): `with "new" as (insert
 * ... returning *), "m0" as (insert into join (from, to) values ((select key from "new"), $n),
 * ...) select * from "new"`. A round trip less than inserting the members after, per join table.
 */
export function insertWithMembers(
  on: Kysely<AnyDatabase>,
  table: string,
  row: Record<string, unknown>,
  idColumn: string,
  joins: readonly JoinRows[],
) {
  let query = on.with('new', (q) => q.insertInto(table).values(row).returningAll());
  const key = sql`(select ${sql.ref(idColumn)} from ${sql.table('new')})`;
  joins.forEach(({ join, from, to, keys }, i) => {
    query = query.with(`m${i}`, (q) =>
      q.insertInto(join).values(keys.map((k) => ({ [from]: key, [to]: k }))),
    ) as typeof query;
  });
  return query.selectFrom('new').selectAll();
}
