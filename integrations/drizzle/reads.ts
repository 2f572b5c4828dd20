/**
 * The batched reads of a Drizzle store: rows by key (a read request loads a row by key at most
 * once), the related rows of a page of models (one statement per relationship), their counts
 * (one grouped statement), and the related collection of one model as a `TableQuery`.
 */
import type { Context, Relationship } from 'jsonapi-gen';
import { distinctKeys, keyText } from 'jsonapi-gen/internal';
import { type SQL, getTableColumns, sql } from 'drizzle-orm';
import type { Piece, Scope } from './conditions.js';
import { TableQuery } from './query.js';
import type { Model, Resources, TableResource } from './resource.js';
import { type Database, type Statements, list } from './statements.js';

/** The column under which a join-table read returns the owner's key. */
const OWNER = '__jsonapi_owner';

/** What the reads of one store share: its resources, statements, and the database a request reads through. */
export interface StoreReads {
  readonly resources: Resources;
  readonly statements: Statements;
  readonly sqlite: boolean;
  readonly mysql: boolean;
  /** The request's transaction, else the database. */
  on(context: Context): Database;
  /**
   * Runs a read of `context`: at once, or, on SQLite outside a transaction while another's is
   * open on the one connection, in its turn after it (else it would see uncommitted rows).
   */
  read<T>(context: Context, run: () => Promise<T>): Promise<T>;
  /** The models read requests have loaded by key, per table. */
  readonly loaded: WeakMap<Context, Map<TableResource, Map<string, Model>>>;
}

/** The scope of compiling conditions for a request. */
export function scopeOf(r: StoreReads, context: Context): Scope {
  return { resources: r.resources, context, sqlite: r.sqlite, mysql: r.mysql };
}

function isRead(context: Context): boolean {
  // A context a host made up for a direct call may have no request: then no reuse.
  const method = (context.http as Context['http'] | undefined)?.method;
  return method === 'GET' || method === 'HEAD';
}

/** `condition`, `and` the resource's scope for this request. */
function scoped(table: TableResource, context: Context, condition: SQL): SQL {
  const scope = table.scope(context);
  return scope ? sql`(${condition}) and (${scope})` : condition;
}

/**
 * The models of `keys` in `table` (within its scope), by key text: one `in (...)` read; within
 * a read request outside a transaction, keys it has loaded already cost no statement.
 */
export async function modelsByKey(
  r: StoreReads,
  table: TableResource,
  keys: readonly unknown[],
  context: Context,
): Promise<Map<string, Model>> {
  const on = r.on(context);
  let known: Map<string, Model> | undefined;
  if (on === r.statements.db && isRead(context)) {
    let byTable = r.loaded.get(context);
    if (byTable === undefined) r.loaded.set(context, (byTable = new Map<TableResource, Map<string, Model>>()));
    known = byTable.get(table);
    if (known === undefined) byTable.set(table, (known = new Map<string, Model>()));
    else if (keys.every((key) => known!.has(keyText(key)))) return known;
  }
  const rows = await r.read(context, () =>
    r.statements.rows(on, table.scoped ? undefined : `${table.type} in ${keys.length}`, keys, (db, slot) =>
      db
        .select(getTableColumns(table.table))
        .from(table.table)
        .where(scoped(table, context, sql`${table.id} in (${list(slot, 0, keys.length)})`)),
    ),
  );
  const models = table.toModels(rows);
  const byKey = new Map(rows.map((row, i) => [keyText(row[table.idKey]), models[i]!]));
  if (known) for (const [key, model] of byKey) known.set(key, model);
  return byKey;
}

/**
 * The related models of each model (a model or null for a to-one relationship, a list for a
 * to-many one), in the models' order: at most one statement, within the related scope.
 */
export async function loadRelated(
  r: StoreReads,
  resource: TableResource,
  relationship: Relationship,
  models: readonly Model[],
  context: Context,
): Promise<Array<Model | null | Model[]>> {
  const relation = resource.relation(relationship, r.resources);
  const related = relation.related;
  if (relation.kind === 'toOne') {
    const property = relation.property;
    const keys = distinctKeys(models.map((m) => m[property]));
    if (keys.length === 0) return models.map(() => null);
    const byKey = await modelsByKey(r, related, keys, context);
    return models.map((m) =>
      m[property] === null || m[property] === undefined ? null : (byKey.get(keyText(m[property])) ?? null),
    );
  }
  const keys = distinctKeys(models.map((m) => resource.key(m)));
  const groups = new Map<string, Model[]>(keys.map((k) => [keyText(k), []]));
  if (keys.length > 0) {
    const owner = relation.kind === 'through' ? relation.from : relation.foreignKey;
    const shape = related.scoped ? undefined : `${resource.type}.${relationship.name} in ${keys.length}`;
    const rows = await r.read(context, () =>
      r.statements.rows(r.on(context), shape, keys, (db, slot) => {
        const members = scoped(related, context, sql`${owner} in (${list(slot, 0, keys.length)})`);
        const start = db.select({ ...getTableColumns(related.table), [OWNER]: owner }).from(related.table);
        const joined =
          relation.kind === 'through' ? start.innerJoin(relation.join, sql`${relation.to} = ${related.id}`) : start;
        return joined.where(members).orderBy(sql`${related.id}`);
      }),
    );
    // A related row joined to several owners is one model.
    const converted = related.toModels(rows, OWNER);
    const seen = new Map<string, Model>();
    for (let i = 0; i < rows.length; i++) {
      const id = keyText(rows[i]![related.idKey]);
      let model = seen.get(id);
      if (!model) seen.set(id, (model = converted[i]!));
      groups.get(keyText(rows[i]![OWNER]))?.push(model);
    }
  }
  return models.map((m) => groups.get(keyText(resource.key(m))) ?? []);
}

/**
 * The number of related rows of each model for a to-many relationship, in the models' order:
 * one grouped statement, `select fk, count(*) ... where fk in (...) group by fk` (through the
 * join table for a many-to-many one), within the related scope.
 */
export async function countRelated(
  r: StoreReads,
  resource: TableResource,
  relationship: Relationship,
  models: readonly Model[],
  context: Context,
): Promise<number[]> {
  const relation = resource.relation(relationship, r.resources);
  if (relation.kind === 'toOne')
    throw new TypeError(`defineStore: ${resource.type}.${relationship.name} is counted but is a to-one relationship`);
  const keys = distinctKeys(models.map((m) => resource.key(m)));
  if (keys.length === 0) return models.map(() => 0);
  const related = relation.related;
  const owner = relation.kind === 'through' ? relation.from : relation.foreignKey;
  const shape = related.scoped ? undefined : `${resource.type}.${relationship.name} count in ${keys.length}`;
  const rows = await r.read(context, () =>
    r.statements.rows(r.on(context), shape, keys, (db, slot) => {
      const start = db.select({ [OWNER]: owner, n: sql<number>`count(*)` }).from(related.table);
      const joined =
        relation.kind === 'through' ? start.innerJoin(relation.join, sql`${relation.to} = ${related.id}`) : start;
      return joined.where(scoped(related, context, sql`${owner} in (${list(slot, 0, keys.length)})`)).groupBy(owner);
    }),
  );
  const byKey = new Map(rows.map((row) => [keyText(row[OWNER]), Number(row.n)]));
  return models.map((m) => byKey.get(keyText(resource.key(m))) ?? 0);
}

/** The scope of `table` as the first piece of its queries (its SQL may vary), or none. */
export function scopePieces(table: TableResource, context: Context): Piece[] {
  const scope = table.scope(context);
  return scope ? [{ shape: undefined, values: [], sql: () => scope }] : [];
}

/** The related collection of one model, as a `TableQuery` the runtime filters, sorts and pages. */
export function queryRelated(
  r: StoreReads,
  resource: TableResource,
  relationship: Relationship,
  model: Model,
  context: Context,
): TableQuery {
  const relation = resource.relation(relationship, r.resources);
  const related = relation.related;
  const shape = `${resource.type}.${relationship.name} related`;
  const on = r.on(context);
  const scope = scopePieces(related, context);
  if (relation.kind === 'toOne') {
    const key = model[relation.property] ?? null;
    return new TableQuery(related, on, undefined, [
      { shape, values: [key], sql: (slot) => sql`${related.id} = ${slot(0)}` },
      ...scope,
    ]);
  }
  const key = resource.key(model);
  if (relation.kind === 'through') {
    const { join, from, to } = relation;
    return new TableQuery(related, on, { table: join, on: sql`${to} = ${related.id}` }, [
      { shape, values: [key], sql: (slot) => sql`${from} = ${slot(0)}` },
      ...scope,
    ]);
  }
  const fk = relation.foreignKey;
  return new TableQuery(related, on, undefined, [
    { shape, values: [key], sql: (slot) => sql`${fk} = ${slot(0)}` },
    ...scope,
  ]);
}
