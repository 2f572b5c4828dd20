/**
 * The write side of `defineStore`'s data layers: each resource's mapping as the `WriteTable` of
 * the write functions (`writes.ts`), and the store's one existence check. The write functions
 * read the id and version of rows keyed by column key and return rows as Drizzle selects them;
 * the data layers' models are keyed by attribute, so models become rows (`toRow`) on the way in
 * and rows models (`toModels`) on the way out.
 */
import type {
  Context,
  Creatable,
  Deletable,
  Linkage,
  ResourceIdentifier,
  SharedExistence,
  ToMany,
  ToManyMutable,
  Updatable,
  WriteValues,
} from 'jsonapi-gen';
import type { Column } from 'drizzle-orm';
import type { Model, Relation, Resources, TableResource } from './resource.js';
import {
  type ToManyWrite,
  type WriteTable,
  changeToMany,
  createRow,
  deleteRow,
  drizzleExistence,
  updateRow,
} from './writes.js';

/** The writes of one data layer. */
export type WriteLayer = Creatable<Model> & Updatable<Model> & Deletable<Model> & ToManyMutable<Model>;

/** One existence check for the whole store: one statement for every type linked to, each within its scope. */
export function storeExistence(db: object, resources: Resources): SharedExistence {
  return drizzleExistence(
    db,
    Object.fromEntries(
      [...resources.values()].map((r) => [
        r.type,
        { id: r.id, parseId: r.parseId, ...(r.mapping.scope && { scope: r.mapping.scope }) },
      ]),
    ),
  );
}

/** How a to-many relation is written. */
function toManyWrite(relation: Relation): ToManyWrite {
  const { related } = relation;
  const common = {
    related: related.id,
    parseId: related.parseId,
    ...(related.mapping.scope && { scope: related.mapping.scope }),
  };
  if (relation.kind === 'through') return { ...common, through: { from: relation.from, to: relation.to } };
  if (relation.kind === 'toMany') return { ...common, foreignKey: relation.foreignKey };
  throw new TypeError(`defineStore: a to-one relationship of ${related.type} is written as to-many`);
}

/** The type the linkage sent names, if it names any. */
function typeOf(linkage: Linkage): string | undefined {
  return Array.isArray(linkage) ? linkage[0]?.type : (linkage?.type ?? undefined);
}

/** The writes of `resource`'s data layer on `db`, each on the request's transaction (`databaseFor`). */
export function writeLayer(db: object, resources: Resources, resource: TableResource): WriteLayer {
  const { mapping } = resource;
  const base: WriteTable = {
    type: resource.type,
    table: resource.table,
    id: resource.id,
    parseId: resource.parseId,
    attributes: {},
    ...(mapping.version !== undefined && { version: resource.columns[mapping.version]! }),
    ...(mapping.serverColumns && { serverSet: mapping.serverColumns }),
  };
  /** `base` with the attributes and relationships `values` sends. */
  const tableFor = (values: WriteValues): WriteTable => {
    const attributes: Record<string, Column> = {};
    for (const name of Object.keys(values.attributes)) attributes[name] = resource.column(name);
    const toOne: Record<string, { foreignKey: Column; parseId: (id: string) => unknown }> = {};
    const toMany: Record<string, ToManyWrite> = {};
    for (const [name, linkage] of Object.entries(values.relationships)) {
      const relation = resource.writeRelation(name, resources, typeOf(linkage));
      if (relation.kind === 'toOne')
        toOne[name] = { foreignKey: relation.foreignKey, parseId: relation.related.parseId };
      else toMany[name] = toManyWrite(relation);
    }
    return { ...base, attributes, toOne, toMany };
  };
  const model = (row: Model) => resource.toModels([row])[0]!;
  const change = (
    current: Model,
    relationship: ToMany,
    identifiers: readonly ResourceIdentifier[],
    remove: boolean,
    context: Context,
  ) => {
    const relation = resource.writeRelation(relationship.name, resources, relationship.relatedType);
    const table = { ...base, toMany: { [relationship.name]: toManyWrite(relation) } };
    return changeToMany(db, table, resource.toRow(current), relationship.name, identifiers, remove, context);
  };
  return {
    create: async (values: WriteValues, context: Context) =>
      model(await createRow(db, tableFor(values), values, context)),
    update: async (current: Model, values: WriteValues, context: Context) =>
      model(await updateRow(db, tableFor(values), resource.toRow(current), values, context)),
    delete: (current: Model, context: Context) => deleteRow(db, base, resource.toRow(current), context),
    addToRelationship: (current, relationship, identifiers, context) =>
      change(current, relationship, identifiers, false, context),
    removeFromRelationship: (current, relationship, identifiers, context) =>
      change(current, relationship, identifiers, true, context),
  };
}
