/**
 * Reads of related rows for many models at once: includes (one `findMany` per relationship
 * per call), relationship counts (one `groupBy`), and the related collection of one model.
 */
import type { Context, Relationship } from 'jsonapi-gen';
import { distinctKeys, keyText } from 'jsonapi-gen/internal';
import type { PrismaQuery, Resources } from './query.js';
import { type Model, type ModelResource, allOf } from './resource.js';

function relatedOf(resources: Resources, resource: ModelResource, relationship: Relationship): ModelResource {
  const related = resources.get(relationship.relatedType);
  if (!related)
    throw new TypeError(
      `defineStore: ${resource.type}.${relationship.name} relates to ${relationship.relatedType}, not in the store`,
    );
  return related;
}

/**
 * The related models of each model, in order (a model or null for a to-one relationship, a
 * list for a to-many one, by related id): one `findMany` on the related model (on the join
 * model, including the related row, for a relation through one), within the related type's scope.
 */
export async function loadRelated(
  resources: Resources,
  resource: ModelResource,
  relationship: Relationship,
  models: readonly Model[],
  context: Context,
): Promise<ReadonlyArray<Model | null | Model[]>> {
  const relation = resource.relation(relationship.name);
  const related = relatedOf(resources, resource, relationship);
  const scope = related.scope(context);
  if (!relation.through && relation.model === undefined) {
    const keys = distinctKeys(models.map((m) => m[relation.foreignKey]));
    if (keys.length === 0) return models.map(() => null);
    const rows = await related
      .delegate(context)
      .findMany({ where: allOf([scope, { [related.idField]: { in: keys } }]) });
    const byKey = new Map(rows.map((row) => [keyText(row[related.idField]), related.toModel(row)]));
    return models.map((m) => {
      const key = m[relation.foreignKey];
      return key === null || key === undefined ? null : (byKey.get(keyText(key)) ?? null);
    });
  }
  const keys = distinctKeys(models.map((m) => m[resource.idField]));
  const groups = new Map<string, Model[]>(keys.map((k) => [keyText(k), []]));
  if (keys.length > 0) {
    if (relation.through) {
      const { model, from, to, relation: toRelated } = relation.through;
      const rows = await related.delegate(context, model).findMany({
        where: allOf([{ [from]: { in: keys } }, scope && { [toRelated]: { is: scope } }]),
        include: { [toRelated]: true },
        orderBy: [{ [to]: 'asc' }],
      });
      for (const row of rows) groups.get(keyText(row[from]))?.push(related.toModel(row[toRelated] as Model));
    } else {
      const rows = await related.delegate(context).findMany({
        where: allOf([scope, { [relation.foreignKey]: { in: keys } }]),
        orderBy: [{ [related.idField]: 'asc' }],
      });
      for (const row of rows) groups.get(keyText(row[relation.foreignKey]))?.push(related.toModel(row));
    }
  }
  return models.map((m) => groups.get(keyText(m[resource.idField])) ?? []);
}

/**
 * The number of related rows of each model for a to-many relationship, in order (0 for none):
 * one `groupBy` of the related (or join) model by its foreign key, within the related type's scope.
 */
export async function countRelated(
  resources: Resources,
  resource: ModelResource,
  relationship: Relationship,
  models: readonly Model[],
  context: Context,
): Promise<number[]> {
  const relation = resource.relation(relationship.name);
  const related = relatedOf(resources, resource, relationship);
  if (!relation.through && relation.model === undefined)
    throw new TypeError(`defineStore: ${resource.type}.${relationship.name} is counted but is a to-one relation`);
  const keys = distinctKeys(models.map((m) => m[resource.idField]));
  if (keys.length === 0) return models.map(() => 0);
  const scope = related.scope(context);
  const [model, key, where] = relation.through
    ? [relation.through.model, relation.through.from, scope && { [relation.through.relation]: { is: scope } }]
    : [relation.model, relation.foreignKey, scope];
  const rows = await related.delegate(context, model).groupBy({
    by: [key],
    where: allOf([{ [key]: { in: keys } }, where]),
    _count: { _all: true },
  });
  const counts = new Map(rows.map((row) => [keyText(row[key]), Number((row._count as { _all: number })._all)]));
  return models.map((m) => counts.get(keyText(m[resource.idField])) ?? 0);
}

/**
 * The related collection of one model as a query of the related type (its scope is added when
 * it runs); through a join model, the related ids are read first (one `findMany`).
 */
export async function queryRelated(
  resources: Resources,
  resource: ModelResource,
  relationship: Relationship,
  model: Model,
  context: Context,
): Promise<PrismaQuery> {
  const relation = resource.relation(relationship.name);
  const related = relatedOf(resources, resource, relationship);
  const id = related.idField;
  if (relation.through) {
    const { model: join, from, to } = relation.through;
    const rows = await related
      .delegate(context, join)
      .findMany({ where: { [from]: model[resource.idField] }, select: { [to]: true } });
    return { where: [{ [id]: { in: rows.map((row) => row[to]) } }], orderBy: [] };
  }
  if (relation.model !== undefined) return { where: [{ [relation.foreignKey]: model[resource.idField] }], orderBy: [] };
  const key = model[relation.foreignKey];
  return { where: [key === null || key === undefined ? { [id]: { in: [] } } : { [id]: key }], orderBy: [] };
}
