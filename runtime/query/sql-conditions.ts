/**
 * What SQL data layers (the Kysely and Drizzle stores) share of a filter condition, whatever
 * builds their SQL: the values a condition binds (LIKE and GLOB patterns that match a term
 * literally, SQLite's booleans as 1 and 0), what its SQL text depends on, the comparison of each
 * operator, and the keys and ids of batched reads. Dependency-free, dialect by a flag.
 */
import type { Condition, ConditionValue } from '../dsl/operators.js';

/** Where a LIKE pattern's term may sit in the text it matches. */
export type LikePosition = 'contains' | 'startsWith' | 'endsWith' | 'equals';

/** The part of a condition its SQL reads. */
export type ConditionParts = Pick<Condition, 'op' | 'value' | 'caseInsensitive'>;

/** The SQL comparison of each ordering and equality operator. */
export const SQL_COMPARISON = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/**
 * The LIKE pattern text that matches `term` literally: `%`, `_` and `\` escaped (for
 * `escape '\'`), wildcards where `position` says.
 *
 * @example
 * likeText('50%', 'contains'); // '%50\\%%'
 */
export function likeText(term: string, position: LikePosition): string {
  const escaped = term.replace(/[\\%_]/g, (c) => `\\${c}`);
  return position === 'contains'
    ? `%${escaped}%`
    : position === 'startsWith'
      ? `${escaped}%`
      : position === 'endsWith'
        ? `%${escaped}`
        : escaped;
}

/**
 * A GLOB pattern (SQLite's case-sensitive match; its LIKE ignores ASCII case) that matches
 * `term` literally where `position` says.
 *
 * @example
 * globPattern('a*b', 'startsWith'); // 'a[*]b*'
 */
export function globPattern(term: string, position: 'contains' | 'startsWith' | 'endsWith'): string {
  const escaped = term.replace(/[*?[]/g, (c) => `[${c}]`);
  return position === 'contains' ? `*${escaped}*` : position === 'startsWith' ? `${escaped}*` : `*${escaped}`;
}

/**
 * A value as the driver binds it: SQLite has no booleans (1 and 0).
 *
 * @example
 * boundValue(true, true); // 1
 */
export function boundValue(value: ConditionValue, sqlite: boolean): ConditionValue {
  return sqlite && typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/**
 * What a condition's SQL text depends on (not its values): the operator, a list's length, the
 * case rule.
 *
 * @example
 * conditionShape({ op: 'in', value: ['a', 'b'] }); // 'in2'
 */
export function conditionShape(condition: ConditionParts): string {
  const { op, value } = condition;
  if (op === 'in' || op === 'nin') return `${op}${(value as readonly unknown[]).length}`;
  if (op === 'null') return `null${String(value)}`;
  return condition.caseInsensitive ? `${op}/i` : op;
}

/**
 * The values a condition binds, in order: none for `null` and empty lists; for text operators
 * the pattern (`lower(column) like` case-insensitively; case-sensitively `like` on PostgreSQL
 * and `glob` on SQLite).
 *
 * @example
 * conditionValues({ op: 'contains', value: 'Joins' }, true); // ['*Joins*']
 */
export function conditionValues(condition: ConditionParts, sqlite: boolean): unknown[] {
  const { op, value } = condition;
  if (op === 'null') return [];
  if (op === 'in' || op === 'nin') return (value as readonly ConditionValue[]).map((v) => boundValue(v, sqlite));
  if (op === 'contains' || op === 'startsWith' || op === 'endsWith') {
    const text = String(value);
    if (condition.caseInsensitive) return [likeText(text.toLowerCase(), op)];
    return [sqlite ? globPattern(text, op) : likeText(text, op)];
  }
  return [boundValue(value as ConditionValue, sqlite)];
}

/**
 * The text by which a store's maps hold a key: that of a key parsed from an id and that of a
 * row's key column must match. A number, a bigint or a string is its own text; anything else
 * (a Date, bytes, a decimal) its JSON, which keeps what `String` drops (a Date's milliseconds,
 * the bytes of a byte array).
 *
 * @example
 * keyText(7); // '7'
 * keyText(new Date(Date.UTC(2024, 0, 1))); // '"2024-01-01T00:00:00.000Z"'
 */
export function keyText(key: unknown): string {
  return (typeof key === 'object' && key !== null && JSON.stringify(key)) || String(key);
}

/**
 * The keys among `values`, each once, without null or undefined.
 *
 * @example
 * distinctKeys([1, 2, 1, null]); // [1, 2]
 */
export function distinctKeys(values: readonly unknown[]): unknown[] {
  const seen = new Set<unknown>();
  const keys: unknown[] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    // The keys of one column share a type: a number or a string is itself, anything else (a Date) its text.
    const key = typeof value === 'number' || typeof value === 'string' ? value : keyText(value);
    if (seen.has(key)) continue;
    seen.add(key);
    keys.push(value);
  }
  return keys;
}

const INTEGER = /^(0|[1-9][0-9]{0,9})$/;

/**
 * The default id parser of the SQL stores: integer keys that fit a 32-bit signed integer
 * column, undefined for any other text (then 404).
 *
 * @example
 * parseIntegerId('42'); // 42
 * parseIntegerId('042'); // undefined
 */
export function parseIntegerId(id: string): number | undefined {
  if (!INTEGER.test(id)) return undefined;
  const n = Number(id);
  return n <= 2_147_483_647 ? n : undefined;
}
