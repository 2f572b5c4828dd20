/**
 * The write side of a Prisma data layer, as functions over a client and a plain description
 * of the model (`WriteModel`): create, update, delete, to-many add and remove, `If-Match`
 * versions, and the existence check of related ids. Every call runs on the request's
 * transaction when there is one (`clientFor`), and what Prisma throws becomes the runtime's
 * errors (`prismaError`: 409 at the member for a unique violation, and so on).
 */
import {
  type Context,
  type ExistenceLookup,
  type Linkage,
  type ResourceIdentifier,
  type SharedExistence,
  staleVersion,
  type WriteValues,
} from 'jsonapi-gen';
import { goneError, relatedKeyOf } from 'jsonapi-gen/internal';
import { runPrisma, type Written } from './errors.js';
import { clientFor } from './transaction.js';

/** A row as Prisma returns it. */
export type Row = Record<string, unknown>;

/**
 * A to-many relationship as Prisma writes it: `connect` through the relation field (Prisma
 * sets the related rows' foreign key, or an implicit many-to-many's rows), or `through` an
 * explicit join model, whose rows are written (`to`: the join model's field naming the related row).
 */
export type ToManyWrite =
  | { relation: string; connect: true; relatedKey?: string; parse?: (id: string) => unknown }
  | { relation: string; through: { model: string; from: string; to: string }; parse?: (id: string) => unknown };

/** What the write functions need to know of a resource's Prisma model. */
export interface WriteModel {
  /** The resource type (for error messages). */
  type: string;
  /** The client's delegate, e.g. `article` for `prisma.article`. */
  model: string;
  /** The table (`@@map`), so that constraint names can be told apart (see `Written`). */
  table: string;
  /** The key field. Default `id`. */
  idField?: string;
  /** An id of the URL or document as the key field's value; undefined when it cannot be one. Default: integer ids. */
  parseId?: (id: string) => unknown;
  /** Attribute -> field. */
  attributes: Readonly<Record<string, string>>;
  /** Field -> column (`@map`), where they differ. */
  columns?: Readonly<Record<string, string>>;
  /** To-one relationship -> its foreign-key field on this model, and how to read its ids. */
  toOne?: Readonly<Record<string, { foreignKey: string; parse?: (id: string) => unknown }>>;
  /** To-many relationships. */
  toMany?: Readonly<Record<string, ToManyWrite>>;
  /** The version field (`Int`), added to by one on every write. */
  version?: string;
  /** Fields the server sets (timestamps, the owner), on create and on update. */
  serverSet?: (operation: 'create' | 'update', context: Context) => Row;
  /** Unique indexes and foreign keys by name -> the member they are about (see `Written`). */
  constraints?: Readonly<Record<string, string>>;
}

/** The delegate calls these functions make. */
interface Delegate {
  create(args: { data: Row }): PromiseLike<Row>;
  findUnique(args: { where: Row }): PromiseLike<Row | null>;
  findMany(args: { where: Row; select: Record<string, true> }): PromiseLike<Row[]>;
  update(args: { where: Row; data: Row }): PromiseLike<Row>;
  updateMany(args: { where: Row; data: Row }): PromiseLike<{ count: number }>;
  deleteMany(args: { where: Row }): PromiseLike<{ count: number }>;
  createMany(args: { data: Row[] }): PromiseLike<{ count: number }>;
}

function delegate(client: object, name: string): Delegate {
  const found = (client as Record<string, unknown>)[name];
  if (typeof found !== 'object' || found === null) throw new TypeError(`prisma: the client has no model "${name}"`);
  return found as Delegate;
}

/** Integer ids: `"7"` is 7; anything else names no row. */
export function integerId(id: string): number | undefined {
  return /^-?[0-9]{1,15}$/.test(id) ? Number(id) : undefined;
}

const idOf = (m: WriteModel) => m.idField ?? 'id';
const parse = (m: WriteModel, id: string) => (m.parseId ?? integerId)(id);
const column = (m: WriteModel, field: string) => m.columns?.[field] ?? field;

/** What a write of `values` is about, for the error mapping. */
function written(m: WriteModel, values: WriteValues): Written {
  return {
    table: m.table,
    idColumn: column(m, idOf(m)),
    attributes: Object.fromEntries(
      Object.keys(values.attributes).flatMap((a) => (m.attributes[a] ? [[a, column(m, m.attributes[a])]] : [])),
    ),
    relationships: Object.fromEntries(
      Object.keys(values.relationships).flatMap((r) =>
        m.toOne?.[r] ? [[r, column(m, m.toOne[r].foreignKey)]] : m.toMany?.[r] ? [[r, r]] : [],
      ),
    ),
    ...(m.constraints && { constraints: m.constraints }),
    values: values.attributes,
  };
}

/** The scalar fields a write sets: sent attributes, sent to-ones (their foreign keys), server-set fields. */
function scalarData(m: WriteModel, values: WriteValues, operation: 'create' | 'update', context: Context): Row {
  const data: Row = {};
  for (const [name, value] of Object.entries(values.attributes)) {
    const field = m.attributes[name];
    if (field === undefined) throw new TypeError(`prisma: ${m.type}.${name} is not mapped to a field`);
    data[field] = value;
  }
  for (const [name, linkage] of Object.entries(values.relationships)) {
    const toOne = m.toOne?.[name];
    if (!toOne) continue;
    if (Array.isArray(linkage)) throw new TypeError(`prisma: ${m.type}.${name} is to-one`);
    data[toOne.foreignKey] = linkage === null ? null : relatedKeyOf(toOne.parse ?? integerId, linkage, name);
  }
  return { ...data, ...m.serverSet?.(operation, context) };
}

/** The nested writes of the to-many relationships sent: on create they add, on update they replace. */
function toManyData(m: WriteModel, relationships: Record<string, Linkage>, replace: boolean): Row {
  const data: Row = {};
  for (const [name, linkage] of Object.entries(relationships)) {
    const write = m.toMany?.[name];
    if (!write) {
      if (!m.toOne?.[name]) throw new TypeError(`prisma: ${m.type}.${name} is not mapped to a relation`);
      continue;
    }
    if (!Array.isArray(linkage)) throw new TypeError(`prisma: ${m.type}.${name} is to-many`);
    const keys = linkage.map((identifier) => relatedKeyOf(write.parse ?? integerId, identifier, name));
    if ('connect' in write) {
      const ids = keys.map((key) => ({ [write.relatedKey ?? 'id']: key }));
      data[write.relation] = replace ? { set: ids } : { connect: ids };
    } else {
      const create = keys.map((key) => ({ [write.through.to]: key }));
      data[write.relation] = replace ? { deleteMany: {}, create } : { create };
    }
  }
  return data;
}

/**
 * Creates a row from checked values (`Creatable.create`): attributes into their fields, to-ones
 * by their foreign keys, to-manys by `connect` or join-model rows, the server's fields, a
 * client-generated id when sent. Returns the row as stored.
 *
 * @example
 * import { prisma } from './db.js';
 * declare const ctx: Context;
 * const articles = { type: 'articles', model: 'article', table: 'articles', attributes: { title: 'title' }, toOne: { author: { foreignKey: 'authorId' } } };
 * const row = await createRecord(prisma, articles, { attributes: { title: 'Hi' }, relationships: { author: { type: 'people', id: '1' } } }, ctx);
 */
export async function createRecord(client: object, m: WriteModel, values: WriteValues, context: Context): Promise<Row> {
  const data = { ...scalarData(m, values, 'create', context), ...toManyData(m, values.relationships, false) };
  if (values.id !== undefined) data[idOf(m)] = parse(m, values.id) ?? values.id;
  return runPrisma(() => delegate(clientFor(client, context), m.model).create({ data }), written(m, values));
}

/**
 * Changes a row (`Updatable.update`): only the members sent; a to-many sent is replaced. The
 * version (if any) moves on by one; under `If-Match` (`context.ifMatch`) the row changes only
 * while its version is still the one `current` holds (a conditional `updateMany`), else 412
 * and nothing changes. Returns the row as stored.
 *
 * @example
 * import { prisma } from './db.js';
 * declare const ctx: Context;
 * declare const articles: WriteModel;
 * declare const current: Row; // what `find` read
 * await updateRecord(prisma, articles, current, { attributes: { title: 'New' }, relationships: {} }, ctx);
 */
export async function updateRecord(
  client: object,
  m: WriteModel,
  current: Row,
  values: WriteValues,
  context: Context,
): Promise<Row> {
  const on = delegate(clientFor(client, context), m.model);
  const key = { [idOf(m)]: current[idOf(m)] };
  const about = written(m, values);
  const scalars = scalarData(m, values, 'update', context);
  if (m.version) scalars[m.version] = { increment: 1 };
  // The conditional part first, with the scalars (updateMany takes no nested writes): a stale
  // version changes nothing.
  await conditionally(on, m, current, scalars, context, about);
  const relations = toManyData(m, values.relationships, true);
  if (Object.keys(relations).length > 0) await runPrisma(() => on.update({ where: key, data: relations }), about);
  const row = await runPrisma(() => on.findUnique({ where: key }));
  if (!row) throw goneError(m.type, current[idOf(m)]);
  return row;
}

/** Sets `data` on the row of `current`, only at its version under If-Match: 412 when it moved on, 404 when it is gone. */
async function conditionally(
  on: Delegate,
  m: WriteModel,
  current: Row,
  data: Row,
  context: Context,
  about?: Written,
): Promise<void> {
  if (Object.keys(data).length === 0) return;
  const where: Row = { [idOf(m)]: current[idOf(m)] };
  if (m.version && context.ifMatch) where[m.version] = current[m.version];
  const { count } = await runPrisma(() => on.updateMany({ where, data }), about);
  if (count === 0) throw m.version && context.ifMatch ? staleVersion(m.type) : goneError(m.type, current[idOf(m)]);
}

/**
 * Deletes the row `find` returned (`Deletable.delete`); under `If-Match` only at the version
 * it read (412 otherwise, nothing deleted). 404 when another request deleted it meanwhile.
 *
 * @example
 * import { prisma } from './db.js';
 * declare const ctx: Context;
 * declare const articles: WriteModel;
 * declare const current: Row;
 * await deleteRecord(prisma, articles, current, ctx);
 */
export async function deleteRecord(client: object, m: WriteModel, current: Row, context: Context): Promise<void> {
  const where: Row = { [idOf(m)]: current[idOf(m)] };
  if (m.version && context.ifMatch) where[m.version] = current[m.version];
  const { count } = await runPrisma(() => delegate(clientFor(client, context), m.model).deleteMany({ where }));
  if (count === 0) throw m.version && context.ifMatch ? staleVersion(m.type) : goneError(m.type, current[idOf(m)]);
}

/**
 * Adds members to (or, with `remove`, removes them from) a to-many relationship
 * (`ToManyMutable`): `connect`/`disconnect`, or join-model rows written or deleted. A change of
 * members is a write of the owner: its version moves on (conditionally under `If-Match`).
 *
 * @example
 * import { prisma } from './db.js';
 * declare const ctx: Context;
 * declare const articles: WriteModel;
 * declare const current: Row;
 * await changeToMany(prisma, articles, current, 'tags', [{ type: 'tags', id: '2' }], false, ctx);
 */
export async function changeToMany(
  client: object,
  m: WriteModel,
  current: Row,
  name: string,
  identifiers: readonly ResourceIdentifier[],
  remove: boolean,
  context: Context,
): Promise<void> {
  const write = m.toMany?.[name];
  if (!write) throw new TypeError(`prisma: ${m.type}.${name} is not mapped as to-many`);
  const tx = clientFor(client, context);
  const on = delegate(tx, m.model);
  if (m.version) await conditionally(on, m, current, { [m.version]: { increment: 1 } }, context);
  if (identifiers.length === 0) return;
  const owner = current[idOf(m)];
  const keys = identifiers.map((identifier) => relatedKeyOf(write.parse ?? integerId, identifier, name));
  const about: Written = { table: m.table, attributes: {}, relationships: { [name]: name } };
  if ('connect' in write) {
    const ids = keys.map((key) => ({ [write.relatedKey ?? 'id']: key }));
    await runPrisma(
      () =>
        on.update({
          where: { [idOf(m)]: owner },
          data: { [write.relation]: { [remove ? 'disconnect' : 'connect']: ids } },
        }),
      about,
    );
    return;
  }
  const join = delegate(tx, write.through.model);
  const { from, to } = write.through;
  if (remove) await runPrisma(() => join.deleteMany({ where: { [from]: owner, [to]: { in: keys } } }));
  else await runPrisma(() => join.createMany({ data: keys.map((key) => ({ [from]: owner, [to]: key })) }), about);
}

/** A member of a `prismaExistence`: the model its ids name, and the rows the request may see. */
export interface ExistenceMember {
  model: string;
  idField?: string;
  parseId?: (id: string) => unknown;
  /** The resource's scope as a Prisma `where` (row visibility), if it has one. */
  scope?: (context: Context) => Row;
}

/**
 * The existence check the data layers of one store share (`Findable.existence`): for each
 * type, one `findMany` of the ids that name a row the request may see (within the type's
 * scope), the types' queries sent together.
 *
 * @example
 * import { prisma } from './db.js';
 * const check = prismaExistence(prisma, { people: { model: 'person' }, tags: { model: 'tag' } });
 * const tags = { existence: { check, member: 'tags' } };
 */
export function prismaExistence(client: object, members: Readonly<Record<string, ExistenceMember>>): SharedExistence {
  return {
    async exist(lookups: readonly ExistenceLookup[], context: Context): Promise<boolean[][]> {
      const on = clientFor(client, context);
      return Promise.all(
        lookups.map(async ({ member, ids }) => {
          const m = members[member];
          if (!m) throw new TypeError(`prismaExistence: no member "${member}"`);
          const field = m.idField ?? 'id';
          const parsed = ids.map((id) => (m.parseId ?? integerId)(id));
          const keys = [...new Set(parsed.filter((key) => key !== undefined))];
          if (keys.length === 0) return parsed.map(() => false);
          const where: Row = { [field]: { in: keys } };
          const scoped = m.scope ? { AND: [where, m.scope(context)] } : where;
          const rows = await runPrisma(() =>
            delegate(on, m.model).findMany({ where: scoped, select: { [field]: true } }),
          );
          const found = new Set(rows.map((row) => row[field]));
          return parsed.map((key) => key !== undefined && found.has(key));
        }),
      );
    },
  };
}
