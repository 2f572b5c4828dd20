/**
 * Filter operators: `filter[field][op]=value`. Which operators a field takes (by the kind of the
 * attribute it names, or as its `Where` declares), and the plain description of a condition the
 * data layer's `where` receives. How a request's value is read by that kind: `query/filter-values.ts`.
 */
import type { AttributeKind } from './fields.js';

/** Every operator of `filter[field][op]`. */
export const OPERATORS = [
  'eq',
  'ne',
  'in',
  'nin',
  'lt',
  'lte',
  'gt',
  'gte',
  'contains',
  'startsWith',
  'endsWith',
  'null',
] as const;

/** An operator of `filter[field][op]`; `filter[field]=v` is `eq`, a list (`filter[field][]`, a comma list) `in`. */
export type Operator = (typeof OPERATORS)[number];

/** The operators that compare text. */
export const TEXT_OPERATORS: readonly Operator[] = ['contains', 'startsWith', 'endsWith'];
/** The operators a count (`WhereCount`) compares with: equality and ordering of integers. */
export const COUNT_OPERATORS: readonly Operator[] = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'];
/** The operators that take a list of values. */
export const LIST_OPERATORS: readonly Operator[] = ['in', 'nin'];

/** A value a condition compares with, read by the field's kind: text (date-times in UTC), a number, a boolean. */
export type ConditionValue = string | number | boolean;

/**
 * One condition of a request's filters, as the data layer's `where` receives it: the field (an
 * attribute, a to-one relationship's id, or a path `relationship.attribute`), the operator, and
 * the value read by the field's kind (a list for `in`/`nin`, a boolean for `null`: `true` keeps
 * resources whose field is null).
 *
 * @example
 * const conditions: Condition[] = [
 *   { field: 'createdAt', op: 'gte', value: '2024-01-01T00:00:00.000Z' },
 *   { field: 'status', op: 'in', value: ['draft', 'published'] },
 *   { field: 'author.name', op: 'eq', value: 'Ada Lovelace' },
 *   { field: 'title', op: 'contains', value: 'ts', caseInsensitive: true },
 * ];
 */
export interface Condition<F extends string = string> {
  readonly field: F;
  /** For a path (`author.name`): the relationship, the related resource's type, its attribute compared, and whether the relationship is to-many. */
  readonly path?: ConditionPath;
  /** For a count filter (`WhereCount`: `commentCount`): the to-many relationship whose related resources are counted; `value` is an integer. */
  readonly count?: CountPath;
  readonly op: Operator;
  readonly value: ConditionValue | readonly ConditionValue[];
  /** For `contains`, `startsWith`, `endsWith`: whether letter case is ignored (the filter declares it). */
  readonly caseInsensitive?: boolean;
}

/** The relationship a path condition goes through (`author.name`: author, people, name, to-one). */
export interface ConditionPath {
  readonly relationship: string;
  readonly type: string;
  readonly attribute: string;
  readonly many: boolean;
}

/**
 * The to-many relationship a count filter or sort counts (`commentCount`: comments, of type
 * comments). The count is of the related resources the request may see (the related data
 * layer's scope), as a correlated subquery or a grouped join.
 */
export interface CountPath {
  readonly relationship: string;
  readonly type: string;
}

/**
 * A custom filter standing in a boolean group (`filter[or][0][search]=ts`): the data layer's
 * `where` receives it only when it listed the filter in `composableFilters` (it can apply it
 * as one clause of an `or` or a `not`); elsewhere custom filters go to `customFilters`.
 */
export interface CustomCondition<N extends string = string> {
  readonly op: 'custom';
  readonly field: N;
  readonly value: string | readonly string[];
}

/**
 * A boolean group of a request's filters (`filter[or][0][status]=draft&filter[or][1][author.name]=Ada`):
 * `and` holds when every condition holds, `or` when one does, `not` when they do not all hold
 * (`filter[not][tags.name]=x`: no related tag named x; a resource without tags too). A leaf
 * whose field is null is false, so `not` of it is true.
 *
 * @example
 * const draftsOrAda: ConditionGroup = {
 *   op: 'or',
 *   conditions: [
 *     { field: 'status', op: 'eq', value: 'draft' },
 *     { field: 'author.name', op: 'eq', value: 'Ada', path: { relationship: 'author', type: 'people', attribute: 'name', many: false } },
 *   ],
 * };
 */
export interface ConditionGroup<F extends string = string, N extends string = string> {
  readonly op: 'and' | 'or' | 'not';
  readonly conditions: ReadonlyArray<FilterCondition<F, N>>;
}

/**
 * What the data layer's `where` receives: one condition, a custom filter inside a group, or a
 * group of them. The request's top-level clauses come one call each (together they all hold;
 * counts, and groups that hold one, after the others), so a request without groups gives plain
 * `Condition`s only.
 */
export type FilterCondition<F extends string = string, N extends string = string> =
  Condition<F> | CustomCondition<N> | ConditionGroup<F, N>;

/** Whether `condition` is a group (`and`, `or`, `not`). */
export function isConditionGroup<F extends string, N extends string>(
  condition: FilterCondition<F, N>,
): condition is ConditionGroup<F, N> {
  return condition.op === 'and' || condition.op === 'or' || condition.op === 'not';
}

/** What a field compares: the kind of its value, and an enum's members. */
export interface ComparedKind {
  readonly kind: AttributeKind | 'id';
  readonly enumValues?: readonly string[];
}

/**
 * The operators a field of `kind` takes unless its `Where` says otherwise: equality and lists
 * for every kind; ordering for numbers, dates and date-times; text operators for strings; `null`
 * for attributes that may be null (`nullable`).
 *
 * @example
 * defaultOperators('date-time', false); // ['eq', 'ne', 'in', 'nin', 'lt', 'lte', 'gt', 'gte']
 */
export function defaultOperators(kind: ComparedKind['kind'], nullable: boolean): Operator[] {
  const ops: Operator[] = ['eq', 'in'];
  if (kind === 'id' || kind === 'enum' || kind === 'boolean') return nullable ? [...ops, 'null'] : ops;
  ops.push('ne', 'nin');
  if (kind === 'integer' || kind === 'number' || kind === 'date' || kind === 'date-time')
    ops.push('lt', 'lte', 'gt', 'gte');
  if (kind === 'string') ops.push(...TEXT_OPERATORS);
  if (nullable) ops.push('null');
  return ops;
}

/** The operators that order values. */
const ORDERING_OPERATORS: readonly Operator[] = ['lt', 'lte', 'gt', 'gte'];

/**
 * Whether `op` applies to a field of `kind`, which `Where.operators(...)` may declare: text
 * operators compare strings only, ordering operators strings, numbers, dates and date-times;
 * equality, lists and `null` apply to every kind. Every default of `defaultOperators` applies.
 *
 * @example
 * operatorApplies('contains', 'integer'); // false: an integer column has no text to search
 */
export function operatorApplies(op: Operator, kind: ComparedKind['kind']): boolean {
  if (TEXT_OPERATORS.includes(op)) return kind === 'string';
  if (ORDERING_OPERATORS.includes(op))
    return kind === 'string' || kind === 'integer' || kind === 'number' || kind === 'date' || kind === 'date-time';
  return true;
}

/** Whether `name` is an operator word. */
export function isOperator(name: unknown): name is Operator {
  return (OPERATORS as readonly unknown[]).includes(name);
}
