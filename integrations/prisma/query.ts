/**
 * An Index query of the Prisma store as a plain value (`PrismaQuery`), and what the runtime's
 * conditions and counts become on it: `where` parts, `orderBy` entries, a page.
 */
import {
  BadRequestError,
  type Condition,
  type Context,
  type CountPath,
  type CustomCondition,
  type FilterCondition,
} from 'jsonapi-gen';
import { likeText } from 'jsonapi-gen/internal';
import { type PrismaWhere, prismaWhere } from './conditions.js';
import { type IdList, filterParameter } from './id-lists.js';
import { type ModelResource, allOf } from './resource.js';

/**
 * A list query of one model: `where` parts that all hold (the scope is added when it runs),
 * `orderBy` entries in order, and a page (`skip`/`take`). Every step returns a new value.
 *
 * @example
 * const page: PrismaQuery = { where: [{ status: { equals: 'published' } }], orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: 20 };
 */
export interface PrismaQuery {
  readonly where: readonly PrismaWhere[];
  readonly orderBy: readonly PrismaWhere[];
  readonly skip?: number;
  readonly take?: number;
  /** The lists of ids `where` binds, worked out from the request's filters (see `conditionWhere`). */
  readonly lists?: readonly IdList[];
}

/** The store's resources by type, as conditions through relationships reach them. */
export type Resources = ReadonlyMap<string, ModelResource>;

/** The Prisma filter of a count compared by `op` (`having` of a grouped count). */
const NEGATED = { eq: 'not', ne: 'equals', lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' } as const;
const PRISMA_OP = { eq: 'equals', ne: 'not', lt: 'lt', lte: 'lte', gt: 'gt', gte: 'gte' } as const;
type CountOp = keyof typeof PRISMA_OP;

function compare(a: number, op: CountOp, b: number): boolean {
  return op === 'eq'
    ? a === b
    : op === 'ne'
      ? a !== b
      : op === 'lt'
        ? a < b
        : op === 'lte'
          ? a <= b
          : op === 'gt'
            ? a > b
            : a >= b;
}

/**
 * The rows of `resource` whose number of related rows (through `count`, within the related
 * type's scope) compares with `n` by `op`, as `{ id: { in | notIn: ids } }`: one `groupBy` of
 * the related (or join) model by its foreign key, `having` the count. Owners with no related
 * row are in no group: when `0 op n` holds, the ids of the groups where it does not are left out.
 */
export async function countWhere(
  resources: Resources,
  resource: ModelResource,
  count: CountPath,
  op: CountOp,
  n: number,
  context: Context,
): Promise<PrismaWhere> {
  const relation = resource.relation(count.relationship);
  const related = resources.get(count.type);
  if (!related) throw new TypeError(`defineStore: ${count.type} is not in the store`);
  if (!relation.through && relation.model === undefined)
    throw new TypeError(`defineStore: ${resource.type}.${count.relationship} is counted but is a to-one relation`);
  const scope = related.scope(context);
  const [model, key, where] = relation.through
    ? [relation.through.model, relation.through.from, scope && { [relation.through.relation]: { is: scope } }]
    : [relation.model, relation.foreignKey, scope];
  const zero = compare(0, op, n);
  const rows = await related.delegate(context, model).groupBy({
    by: [key],
    ...(where && { where }),
    having: { [key]: { _count: { [zero ? NEGATED[op] : PRISMA_OP[op]]: n } } },
  });
  const ids = rows.map((row) => row[key]);
  return { [resource.idField]: zero ? { notIn: ids } : { in: ids } };
}

/** ASCII letters lowered, as SQLite's `lower` and `LIKE` have them. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** A name quoted for MySQL. */
const quoted = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/**
 * A case-insensitive text condition on MySQL, which Prisma cannot say (its `mode` is
 * PostgreSQL's), as `{ id: { in: ids } }` on `target`: one statement of the request's client
 * or transaction, `lower(column) like` the lowered term (its `%`, `_` and `\` literal), as the
 * Kysely store says it. The table and column names are the mapping's `table` and `columns`.
 */
async function mysqlFoldedWhere(
  target: ModelResource,
  field: string,
  op: 'contains' | 'startsWith' | 'endsWith',
  term: string,
  context: Context,
): Promise<PrismaWhere> {
  const { table, columns } = target.mapping;
  if (table === undefined)
    throw new TypeError(
      `defineStore: ${target.type} needs its table in the mapping for a case-insensitive ${op} on MySQL`,
    );
  const column = columns?.[field] ?? field;
  const idColumn = columns?.[target.idField] ?? target.idField;
  const client = target.clientFor(context) as {
    $queryRawUnsafe(sql: string, ...values: unknown[]): Promise<Array<{ id: unknown }>>;
  };
  // The SQL reads escape '\\': MySQL's string literal of one backslash.
  const rows = await client.$queryRawUnsafe(
    `select ${quoted(idColumn)} as id from ${quoted(table)} where lower(${quoted(column)}) like ? escape '\\\\'`,
    likeText(term.toLowerCase(), op),
  );
  return { [target.idField]: { in: rows.map((row) => row.id) } };
}

/**
 * A text condition Prisma cannot say on SQLite (case-sensitive, or `%`/`_` in the value) as
 * `{ id: { in: ids } }` on the model it is on: Prisma's `LIKE` (ASCII case ignored, `%` and `_`
 * wildcards) reads a superset of the matching rows' ids and text, which the exact comparison
 * then narrows. On MySQL (a case-insensitive one): `mysqlFoldedWhere`.
 */
export async function textWhere(
  resources: Resources,
  resource: ModelResource,
  condition: Condition,
  context: Context,
): Promise<PrismaWhere> {
  const target = condition.path ? resources.get(condition.path.type) : resource;
  if (!target) throw new TypeError(`defineStore: ${condition.path!.type} is not in the store`);
  const field = target.field(condition.path ? condition.path.attribute : condition.field);
  const op = condition.op as 'contains' | 'startsWith' | 'endsWith';
  if (target.provider === 'mysql') return mysqlFoldedWhere(target, field, op, String(condition.value), context);
  const fold = condition.caseInsensitive ? asciiLower : (text: string) => text;
  const term = fold(String(condition.value));
  const rows = await target.delegate(context).findMany({
    where: { [field]: { [op]: String(condition.value) } },
    select: { [target.idField]: true, [field]: true },
  });
  const holds = (text: string) =>
    op === 'contains' ? text.includes(term) : op === 'startsWith' ? text.startsWith(term) : text.endsWith(term);
  const ids = rows
    .filter((row) => typeof row[field] === 'string' && holds(fold(row[field])))
    .map((r) => r[target.idField]);
  return { [target.idField]: { in: ids } };
}

/**
 * A date-time condition on SQLite, where date-times are ISO 8601 text: the demo's (and the
 * Kysely store's) end in `Z`, Prisma's adapter binds and writes `+00:00`. Both forms of one
 * millisecond sort before the next millisecond's, so each comparison becomes a range of
 * whole milliseconds, bound as Prisma binds them (`= t` is `>= t and < t + 1ms`).
 */
export function sqliteDateTime(field: string, condition: Pick<Condition, 'op' | 'value'>): PrismaWhere | undefined {
  const at = (value: unknown) => new Date(String(value));
  const next = (value: unknown) => new Date(at(value).getTime() + 1);
  const equal = (value: unknown) => ({ [field]: { gte: at(value), lt: next(value) } });
  const unequal = (value: unknown) => ({ OR: [{ [field]: { lt: at(value) } }, { [field]: { gte: next(value) } }] });
  const { op, value } = condition;
  switch (op) {
    case 'eq':
      return equal(value);
    case 'ne':
      return unequal(value);
    case 'lt':
      return { [field]: { lt: at(value) } };
    case 'lte':
      return { [field]: { lt: next(value) } };
    case 'gt':
      return { [field]: { gte: next(value) } };
    case 'gte':
      return { [field]: { gte: at(value) } };
    case 'in':
    case 'nin': {
      const list = value as readonly unknown[];
      if (list.length === 0) return undefined;
      return op === 'in' ? { OR: list.map(equal) } : { AND: list.map(unequal) };
    }
    default:
      return undefined;
  }
}

/**
 * A leaf on an id (`id`, or a to-one relationship's foreign key) whose value is not an id of
 * the field (`filter[author]=x`): Prisma would refuse the value, so the ids that cannot name
 * a row are left out (`eq` of one matches nothing, `ne` every row that has a key). Undefined
 * when every value is an id, or the leaf is on another field.
 */
function idWhere(target: ModelResource, attribute: string, c: Condition): PrismaWhere | undefined {
  let field: string;
  if (attribute === 'id') field = target.idField;
  else {
    const relation = target.mapping.relationships?.[attribute];
    if (!relation || relation.through || relation.model !== undefined) return undefined;
    field = relation.foreignKey;
  }
  const values = Array.isArray(c.value) ? (c.value as unknown[]) : [c.value];
  const keys = values.map((v) => target.parseId(String(v)));
  if (keys.every((key) => key !== undefined)) return undefined;
  const valid = keys.filter((key) => key !== undefined);
  switch (c.op) {
    case 'eq':
    case 'in':
      return { [field]: { in: valid } };
    case 'ne':
    case 'nin':
      return valid.length === 0 ? { [field]: { not: null } } : { [field]: { notIn: valid } };
    default:
      return undefined;
  }
}

/** Whether Prisma's where can say text leaf `leaf` on `provider`. */
function sayableText(leaf: Condition, provider: ModelResource['provider']): boolean {
  if (provider === 'sqlite') return leaf.caseInsensitive === true && !/[%_]/.test(String(leaf.value));
  return provider === 'mysql' ? leaf.caseInsensitive !== true : true;
}

/** The leaves of `condition` Prisma's where cannot say, each once, and its custom conditions. */
function unsayable(
  condition: FilterCondition,
  provider: ModelResource['provider'],
  out: Condition[],
  customs: CustomCondition[],
): Condition[] {
  if (condition.op === 'and' || condition.op === 'or' || condition.op === 'not') {
    for (const c of condition.conditions) unsayable(c, provider, out, customs);
  } else if (condition.op === 'custom') customs.push(condition);
  else {
    const leaf = condition as Condition;
    const text = leaf.op === 'contains' || leaf.op === 'startsWith' || leaf.op === 'endsWith';
    if (leaf.count && !existence(leaf)) out.push(leaf);
    else if (text && !sayableText(leaf, provider)) out.push(leaf);
  }
  return out;
}

/** Whether a count condition asks for existence only (`> 0`, `= 0`), which Prisma's `some`/`none` say. */
function existence(condition: Condition): boolean {
  const n = Number(condition.value);
  const { op } = condition;
  return (
    (op === 'gt' && n === 0) ||
    (op === 'gte' && n === 1) ||
    (op === 'ne' && n === 0) ||
    (op === 'eq' && n === 0) ||
    (op === 'lt' && n === 1) ||
    (op === 'lte' && n === 0)
  );
}

/** How many ids a worked-out where (`{ id: { in | notIn: ids } }`) binds. */
function listSize(where: PrismaWhere): number {
  const [filter] = Object.values(where) as Array<{ in?: unknown[]; notIn?: unknown[] }>;
  return (filter?.in ?? filter?.notIn ?? []).length;
}

/**
 * The where of a filter condition on `resource`: `prismaWhere`, with the counts and (on SQLite)
 * text leaves it cannot say worked out first (`countWhere`, `textWhere`: one query each, each a
 * list of ids, given in `lists` with the filter parameter it came from), and the mapping's
 * custom filters.
 */
export async function conditionWhere(
  resources: Resources,
  resource: ModelResource,
  condition: FilterCondition,
  context: Context,
): Promise<{ where: PrismaWhere; lists: IdList[] }> {
  const sqlite = resource.provider === 'sqlite';
  const customs: CustomCondition[] = [];
  const leaves = unsayable(condition, resource.provider, [], customs);
  // Custom filters may work their where out with a query of their own: each is awaited first.
  const customWheres = new Map<CustomCondition, PrismaWhere>();
  for (const custom of customs) {
    const filter = resource.mapping.filters?.[custom.field];
    if (!filter) throw new TypeError(`defineStore: ${resource.type} has no custom filter ${custom.field}`);
    customWheres.set(custom, await filter(custom.value as string | string[], context));
  }
  const resolved = new Map<Condition, PrismaWhere>();
  for (const leaf of leaves)
    resolved.set(
      leaf,
      leaf.count
        ? await countWhere(resources, resource, leaf.count, leaf.op as CountOp, Number(leaf.value), context)
        : await textWhere(resources, resource, leaf, context),
    );
  const leaf = (c: Condition): PrismaWhere | undefined => {
    if (resolved.has(c)) return resolved.get(c);
    if (c.count) return undefined;
    const target = c.path ? resources.get(c.path.type) : resource;
    const ids = target && idWhere(target, c.path ? c.path.attribute : c.field, c);
    if (ids) return ids;
    if (!sqlite) return undefined;
    const field = target?.field(c.path ? c.path.attribute : c.field);
    return field !== undefined && target!.isDateTime(field, context) ? sqliteDateTime(field, c) : undefined;
  };
  const lists = leaves.map((c) => ({ parameter: filterParameter(context, c), size: listSize(resolved.get(c)!) }));
  const types = Object.fromEntries([...resources].map(([type, r]) => [type, r.whereMapping()]));
  const found = (leaf: Condition) => {
    const where = resolved.get(leaf);
    if (!where) throw new TypeError(`defineStore: ${leaf.field} ${leaf.op} was not worked out`);
    return where;
  };
  const where = prismaWhere(resource.type, condition, {
    provider: resource.provider,
    types,
    scope: (type) => resources.get(type)?.scope(context),
    count: found,
    leaf,
    custom: (custom) => customWheres.get(custom)!,
  });
  return { where, lists };
}

/** The `orderBy` entry of one sort: an attribute, a to-one relation's attribute, or a relation count. */
export function orderEntry(
  resources: Resources,
  resource: ModelResource,
  field: string,
  direction: 'asc' | 'desc',
  path: { relationship: string; type: string; attribute?: string } | undefined,
): PrismaWhere {
  if (!path) return { [resource.field(field)]: direction };
  const relation = resource.relation(path.relationship);
  const related = resources.get(path.type);
  if (!related) throw new TypeError(`defineStore: ${path.type} is not in the store`);
  if (path.attribute === undefined) {
    // Prisma's `_count` order takes no where: a scoped related type cannot be counted in it.
    // The spec's answer for a sort a server does not support is 400 at `sort`.
    if (related.mapping.scope)
      throw new BadRequestError({
        detail: `${resource.type} cannot be sorted by ${field} on this data layer: ${path.type} has a scope, which Prisma's _count order cannot apply`,
        source: { parameter: 'sort' },
        code: 'unsupported_sort',
      });
    return { [relation.field]: { _count: direction } };
  }
  if (relation.through || relation.model !== undefined)
    throw new TypeError(`defineStore: ${resource.type}.${path.relationship} is sorted by but is not a to-one relation`);
  return { [relation.field]: { [related.field(path.attribute)]: direction } };
}

/** The where a query runs with: the scope, then its parts. */
export function queryWhere(resource: ModelResource, query: PrismaQuery, context: Context): PrismaWhere {
  return allOf([resource.scope(context), ...query.where]);
}
