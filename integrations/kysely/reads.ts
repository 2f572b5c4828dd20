import type { Context, Relationship } from 'jsonapi-gen';
import { distinctKeys } from 'jsonapi-gen/internal';
import type { Kysely } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { runStatement } from './errors.js';
import { ListQuery } from './list-query.js';
import type { SelectQuery } from './select-query.js';
import type { StoreTables } from './store-tables.js';
import { type Model, OWNER, type TableResource, keyText } from './table-resource.js';
import { executorFor } from './transaction.js';

/** The keys among `values`, each once, without null or undefined. */
export const distinct = distinctKeys;

/**
 * The related models of each model (a model or null for a to-one relationship, a list for a
 * to-many one): at most one statement, with the related resource's own mapping and scope.
 */
export async function loadRelated(
  t: StoreTables,
  resource: TableResource,
  relationship: Relationship,
  models: readonly Model[],
  context: Context,
): Promise<ReadonlyArray<Model | null | Model[]>> {
  const { mapping, related } = t.relation(resource, relationship);
  const ex = executorFor(t.db, context);
  if (mapping.type === 'toOne') {
    const property = resource.property(mapping.foreignKey);
    const keys = distinct(models.map((m) => m[property]));
    if (keys.length === 0) return models.map(() => null);
    const byKey = await t.modelsByKey(related, keys, context);
    return models.map((m) =>
      m[property] === null || m[property] === undefined ? null : (byKey.get(keyText(m[property])) ?? null),
    );
  }
  const keys = distinct(models.map((m) => resource.key(m)));
  const groups = new Map<string, Model[]>(keys.map((k) => [keyText(k), []]));
  if (keys.length > 0) {
    const through = 'through' in mapping ? mapping.through : undefined;
    const owner = through ? OWNER : (mapping as { foreignKey: string }).foreignKey;
    const members = (start: SelectQuery) => {
      if (!through) return start.where(`${related.table}.${owner}`, 'in', keys).orderBy(related.qualifiedId);
      const { table: join, from, to } = through;
      return start
        .innerJoin(join, `${join}.${to}`, related.qualifiedId)
        .select(`${join}.${from} as ${OWNER}`)
        .where(`${join}.${from}`, 'in', keys)
        .orderBy(related.qualifiedId);
    };
    const rows = await runStatement(() =>
      related.scope
        ? members(related.select(ex, context)).execute()
        : t.statements.rows(ex, `${resource.type}.${relationship.name} in ${keys.length}`, keys, (on) =>
            members(related.selectUnscoped(on)),
          ),
    );
    // A related row joined to several owners is one model.
    const converted = related.toModels(rows, owner === OWNER ? OWNER : undefined);
    const seen = new Map<string, Model>();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const id = keyText(row[related.idColumn]);
      let model = seen.get(id);
      if (!model) seen.set(id, (model = converted[i]!));
      groups.get(keyText(row[owner]))?.push(model);
    }
  }
  return models.map((m) => groups.get(keyText(resource.key(m))) ?? []);
}

/** The related collection of one model, as a `ListQuery` the runtime filters, sorts and pages. */
export function queryRelated(
  t: StoreTables,
  resource: TableResource,
  relationship: Relationship,
  model: Model,
  context: Context,
): ListQuery {
  const { mapping, related } = t.relation(resource, relationship);
  const start = (on: Kysely<AnyDatabase>) => (related.scope ? related.select(on, context) : related.selectUnscoped(on));
  let key: unknown;
  let members: (on: Kysely<AnyDatabase>) => SelectQuery;
  if (mapping.type === 'toOne') {
    key = model[resource.property(mapping.foreignKey)] ?? null;
    members = (on) => start(on).where(related.qualifiedId, '=', key);
  } else if ('through' in mapping && mapping.through) {
    const { table: join, from, to } = mapping.through;
    key = resource.key(model);
    members = (on) =>
      start(on).innerJoin(join, `${join}.${to}`, related.qualifiedId).where(`${join}.${from}`, '=', key);
  } else {
    key = resource.key(model);
    members = (on) => start(on).where(`${related.table}.${(mapping as { foreignKey: string }).foreignKey}`, '=', key);
  }
  const shape = related.scope ? undefined : `${resource.type}.${relationship.name} related`;
  return ListQuery.from(related.table, executorFor(t.db, context), members, shape, [key]);
}

/**
 * The number of related rows of each model for a to-many relationship, in the models' order (0
 * for none): one grouped statement, `select fk, count(*) ... where fk in (...) group by fk`
 * (through the join table, joined to the related table, for a many-to-many relationship),
 * counting only the related rows in the related resource's scope.
 */
export async function countRelated(
  t: StoreTables,
  resource: TableResource,
  relationship: Relationship,
  models: readonly Model[],
  context: Context,
): Promise<number[]> {
  const { mapping, related } = t.relation(resource, relationship);
  if (mapping.type === 'toOne')
    throw new TypeError(`defineStore: ${resource.type}.${relationship.name} is counted but mapped as toOne`);
  const keys = distinct(models.map((m) => resource.key(m)));
  if (keys.length === 0) return models.map(() => 0);
  const through = 'through' in mapping ? mapping.through : undefined;
  const owner = through
    ? `${through.table}.${through.from}`
    : `${related.table}.${(mapping as { foreignKey: string }).foreignKey}`;
  const counts = (start: SelectQuery) =>
    (through ? start.innerJoin(through.table, `${through.table}.${through.to}`, related.qualifiedId) : start)
      .select([`${owner} as ${OWNER}`, (eb) => eb.fn.countAll().as('n')])
      .where(owner, 'in', keys)
      .groupBy(owner);
  const ex = executorFor(t.db, context);
  const rows = await runStatement(() =>
    related.scope
      ? counts(related.select(ex, context).clearSelect()).execute()
      : t.statements.rows(ex, `${resource.type}.${relationship.name} count in ${keys.length}`, keys, (on) =>
          counts(on.selectFrom(related.table)),
        ),
  );
  const byKey = new Map(rows.map((row) => [keyText(row[OWNER]), Number(row.n)]));
  return models.map((m) => byKey.get(keyText(resource.key(m))) ?? 0);
}
