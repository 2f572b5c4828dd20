/**
 * A request's filter conditions as a Prisma `where`: pure, no client needed. What the store's
 * `where` will hand to `findMany`. Conditions Prisma cannot say in a `where` throw a
 * `TypeError` naming them (see `prismaWhere`).
 */
import type { Condition, ConditionValue, CustomCondition, FilterCondition } from 'jsonapi-gen';

/** A Prisma `where` object, of any model. */
export type PrismaWhere = { readonly [field: string]: unknown };

/** The databases a where is written for: Prisma's text filters differ between them. */
export type WhereProvider = 'sqlite' | 'postgresql' | 'mysql';

/** A relationship as a `where` reaches it. */
export interface WhereRelationship {
  /** The model's relation field (`author`, `comments`, `tags`). */
  readonly field: string;
  /**
   * For a to-many relationship through an explicit join model: the join model's relation field
   * to the related model (`tags` of articles: `ArticleTag.tag`).
   */
  readonly through?: string;
}

/** How the conditions on one resource type reach its Prisma model. */
export interface WhereMapping {
  /**
   * The Prisma scalar field of each attribute, of `id`, and of each to-one relationship
   * compared by its id (its foreign key: `author: 'authorId'`). Default: the same name.
   */
  readonly fields?: Readonly<Record<string, string>>;
  /** The Prisma fields that may be null (their conditions are guarded under `not`). */
  readonly nullable?: readonly string[];
  /** The relation of each relationship a path or count goes through. */
  readonly relationships?: Readonly<Record<string, WhereRelationship>>;
  /** A condition's value as Prisma takes it, by JSON:API field (an id read as text, a number column). Default: as is. */
  readonly value?: (field: string, value: ConditionValue) => unknown;
}

/** Options of `prismaWhere`. */
export interface WhereOptions {
  readonly provider: WhereProvider;
  /** The mapping of every type a condition names: the resource's own and the related ones. */
  readonly types: Readonly<Record<string, WhereMapping>>;
  /** A related type's scope, as a where on its model: a path or count matches only related rows in it. */
  readonly scope?: (type: string) => PrismaWhere | undefined;
  /**
   * A count Prisma cannot compare in a `where` (`commentCount gt 2`: relation counts filter
   * nothing but existence there) as a where the store worked out, e.g. `{ id: { in: ids } }`
   * from a grouped count. Without it such a count throws.
   */
  readonly count?: (condition: Condition) => PrismaWhere;
  /**
   * A leaf's where worked out by the store (the where on the model it is on: the related
   * model's, for a path), or undefined for the default. What Prisma cannot say (on SQLite a
   * case-sensitive text operator, or `%` or `_` in its value; on MySQL a case-insensitive one)
   * throws unless this gives a where,
   * e.g. `{ id: { in: ids } }`. A nullable field's guard under a negation still applies.
   */
  readonly leaf?: (condition: Condition) => PrismaWhere | undefined;
  /** A custom filter's condition as a where (the mapping's). Without it a custom condition throws. */
  readonly custom?: (condition: CustomCondition) => PrismaWhere;
}

const ORDERING = { lt: 'lt', lte: 'lte', gt: 'gt', gte: 'gte' } as const;

function mappingOf(options: WhereOptions, type: string): WhereMapping {
  const mapping = options.types[type];
  if (!mapping) throw new TypeError(`prismaWhere: no mapping for type ${type}`);
  return mapping;
}

/** A LIKE pattern's own characters made literal (PostgreSQL's and MySQL's default escape is `\`). */
function literal(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The where of `field op value` on one model's scalar field; `negated` guards a nullable field so SQL's NULL reads as false. */
function leaf(
  condition: Condition,
  attribute: string,
  mapping: WhereMapping,
  options: WhereOptions,
  negated: boolean,
): PrismaWhere {
  const field = mapping.fields?.[attribute] ?? attribute;
  const convert = (v: ConditionValue) => (mapping.value ? mapping.value(attribute, v) : v);
  const { op, value } = condition;
  const guard = (where: PrismaWhere) =>
    negated && mapping.nullable?.includes(field) ? { AND: [{ [field]: { not: null } }, where] } : where;
  const worked = options.leaf?.(condition);
  if (worked) return guard(worked);
  let where: PrismaWhere;
  switch (op) {
    case 'null':
      return { [field]: value === true ? null : { not: null } };
    case 'in':
    case 'nin':
      where = { [field]: { [op === 'in' ? 'in' : 'notIn']: (value as readonly ConditionValue[]).map(convert) } };
      // An empty `nin` holds for every row, a null field's too (as in SQL `1 = 1`).
      if (op === 'nin' && (value as readonly ConditionValue[]).length === 0) return where;
      break;
    case 'contains':
    case 'startsWith':
    case 'endsWith': {
      const text = String(value);
      if (options.provider === 'sqlite') {
        // Prisma writes SQLite's LIKE without ESCAPE and LIKE ignores ASCII case: neither a
        // literal `%`/`_` nor a case-sensitive match can be said.
        if (!condition.caseInsensitive)
          throw new TypeError(`prismaWhere: a case-sensitive ${op} (${condition.field}) has no Prisma where on SQLite`);
        if (/[%_]/.test(text))
          throw new TypeError(
            `prismaWhere: ${op} of a text with % or _ (${condition.field}) has no Prisma where on SQLite`,
          );
        where = { [field]: { [op]: text } };
      } else if (options.provider === 'mysql') {
        // Prisma's `mode` is PostgreSQL's only; the column's collation decides the case rule of
        // MySQL's LIKE, case-sensitive on a binary one (utf8mb4_bin, as the demo's tables have).
        if (condition.caseInsensitive)
          throw new TypeError(
            `prismaWhere: a case-insensitive ${op} (${condition.field}) has no Prisma where on MySQL`,
          );
        where = { [field]: { [op]: literal(text) } };
      } else
        where = { [field]: { [op]: literal(text), ...(condition.caseInsensitive ? { mode: 'insensitive' } : {}) } };
      break;
    }
    case 'eq':
      where = { [field]: { equals: convert(value as ConditionValue) } };
      break;
    case 'ne':
      where = { [field]: { not: convert(value as ConditionValue) } };
      break;
    default:
      where = { [field]: { [ORDERING[op]]: convert(value as ConditionValue) } };
  }
  return guard(where);
}

/** `inner` (a where on the related model) through relationship `name` of `mapping`, with `quantifier` for to-many. */
function through(
  mapping: WhereMapping,
  owner: string,
  name: string,
  relatedType: string,
  inner: PrismaWhere,
  quantifier: 'is' | 'some' | 'none',
  options: WhereOptions,
): PrismaWhere {
  const relation = mapping.relationships?.[name];
  if (!relation) throw new TypeError(`prismaWhere: ${owner}.${name} has no relation in the mapping`);
  const scope = options.scope?.(relatedType);
  const related = scope ? { AND: [scope, inner] } : inner;
  const target = relation.through ? { [relation.through]: { is: related } } : related;
  return { [relation.field]: { [quantifier]: target } };
}

/** Existence, as a count condition says it: `count > 0` is some, `count = 0` none. */
function existence(condition: Condition): 'some' | 'none' | undefined {
  const n = Number(condition.value);
  const { op } = condition;
  if ((op === 'gt' && n === 0) || (op === 'gte' && n === 1) || (op === 'ne' && n === 0)) return 'some';
  if ((op === 'eq' && n === 0) || (op === 'lt' && n === 1) || (op === 'lte' && n === 0)) return 'none';
  return undefined;
}

function translate(type: string, condition: FilterCondition, options: WhereOptions, negated: boolean): PrismaWhere {
  const mapping = mappingOf(options, type);
  switch (condition.op) {
    case 'and':
    case 'or':
    case 'not': {
      const inner = negated !== (condition.op === 'not');
      const parts = condition.conditions.map((c) => translate(type, c, options, inner));
      return condition.op === 'or' ? { OR: parts } : condition.op === 'and' ? { AND: parts } : { NOT: { AND: parts } };
    }
    case 'custom':
      if (options.custom) return options.custom(condition);
      throw new TypeError(`prismaWhere: the custom filter ${condition.field} is the store's to apply`);
  }
  if (condition.count) {
    const { relationship, type: relatedType } = condition.count;
    const quantifier = existence(condition);
    if (quantifier) return through(mapping, type, relationship, relatedType, {}, quantifier, options);
    if (options.count) return options.count(condition);
    throw new TypeError(
      `prismaWhere: Prisma filters relations by existence only; ${condition.field} ${condition.op} ${String(condition.value)} needs the count option`,
    );
  }
  if (condition.path) {
    const { relationship, type: relatedType, attribute, many } = condition.path;
    // The leaf sits inside the relation filter's subquery, where a null reads as no match: never negated.
    const inner = leaf(condition, attribute, mappingOf(options, relatedType), options, false);
    return through(mapping, type, relationship, relatedType, inner, many ? 'some' : 'is', options);
  }
  return leaf(condition, condition.field, mapping, options, negated);
}

/**
 * The Prisma `where` of one filter condition of resources of `type` (a leaf, a path, a count or
 * an `and`/`or`/`not` group), with the runtime's meaning: a leaf whose field is null is false,
 * so `not` of it is true (Prisma's `NOT` is SQL's, where `NOT (null)` is no match: nullable
 * fields are guarded with `not: null` under a negation). Paths are relation filters (`is` for
 * to-one, `some` for to-many, through a join model's relation), within the related type's
 * scope. Counts become `some`/`none` where they ask for existence, and `options.count`
 * otherwise. Throws a `TypeError` for what Prisma cannot say: other counts without
 * `options.count`, custom filters, on SQLite case-sensitive text operators or a text
 * operator's value holding `%` or `_` (Prisma's SQLite LIKE has no escape and ignores ASCII case),
 * and on MySQL case-insensitive text operators (Prisma's `mode` is PostgreSQL's only; the
 * column's collation decides, and is taken to be a case-sensitive one such as `utf8mb4_bin`).
 *
 * @example
 * const where = prismaWhere('articles', { field: 'author.name', op: 'eq', value: 'Ada',
 *   path: { relationship: 'author', type: 'people', attribute: 'name', many: false } }, {
 *   provider: 'sqlite',
 *   types: { articles: { relationships: { author: { field: 'author' } } }, people: {} },
 * });
 * // { author: { is: { name: { equals: 'Ada' } } } }
 */
export function prismaWhere(type: string, condition: FilterCondition, options: WhereOptions): PrismaWhere {
  return translate(type, condition, options, false);
}
