/**
 * The syntax of `filter`, boolean groups included, read into clause sets before any resource is
 * known: `filter[status]=draft`, `filter[createdAt][gte]=...`, `filter[author][]=1`, and groups
 * that nest them, `filter[or][0][status]=draft&filter[or][1][author.name]=Ada`,
 * `filter[not][tags.name]=x`, `filter[and][1][or][0][title][contains]=a`. The resource's filters
 * give the clauses their meaning in `read/conditions.ts`.
 */
import { BadRequestError, invalidParameter } from '../core/errors.js';
import type { Limits } from '../core/limits.js';
import type { FilterValue } from '../dsl/filters.js';
import { OPERATORS, type Operator, isOperator } from '../dsl/operators.js';

/** The words that open a group. */
export const GROUP_WORDS = ['and', 'or', 'not'] as const;
/** A group word. */
export type GroupWord = (typeof GROUP_WORDS)[number];

const LABEL = /^\d+$/;

/**
 * One set of clauses, all of which must hold: the top of `filter`, an item of an `and` or `or`
 * group, the body of a `not`.
 */
export interface FilterClauses {
  /** How its parameters begin: `filter`, `filter[or][1]`, `filter[not]`. */
  readonly prefix: string;
  /** `<prefix>[name]=v` and `<prefix>[name][]=v`, by name. */
  readonly values: Map<string, FilterValue>;
  /** `<prefix>[name][op]=v`: the operator values by name. */
  readonly operators: Map<string, Map<Operator, string>>;
  /** Its groups: `<prefix>[and]`, `<prefix>[or]`, `<prefix>[not]`, and `<prefix>[0]...` (items ANDed, `digits`). */
  readonly groups: Map<GroupWord | 'digits', FilterGroupSyntax>;
}

/** A group as written: its word, its items by label (`0`, `1`, or any name), each a clause set. */
export interface FilterGroupSyntax {
  readonly op: GroupWord;
  /** `<prefix>[or]`; the `digits` group of a clause set has the clause set's own prefix. */
  readonly prefix: string;
  /** A `not` has one item, its body, labelled `''`. */
  readonly items: Map<string, FilterClauses>;
}

/** A clause set with nothing in it. */
export function emptyClauses(prefix = 'filter'): FilterClauses {
  return { prefix, values: new Map(), operators: new Map(), groups: new Map() };
}

/** Whether a clause set holds no clause. */
export function isEmptyClauses(clauses: FilterClauses): boolean {
  return clauses.values.size === 0 && clauses.operators.size === 0 && clauses.groups.size === 0;
}

/** How many clauses a request's `filter` holds so far, to refuse more than `limits.filterClauses`. */
export interface ClauseCount {
  clauses: number;
}

function limitExceeded(parameter: string, detail: string, limit: number): BadRequestError {
  return new BadRequestError({ detail, source: { parameter }, code: 'limit_exceeded', meta: { limit } });
}

/**
 * Adds the parameter `key` (`filter` followed by `brackets`) with `value` to `top`: through the
 * groups its brackets open, to the clause set they reach. 400 naming `key` for a bracket that is
 * neither a group, a filter name nor an operator, a group without an item label, nesting deeper
 * than `limits.filterDepth`, more than `limits.filterClauses` clauses, or a value given twice.
 *
 * @example
 * const top = emptyClauses();
 * addFilterParameter(top, 'filter[or][0][status]', ['or', '0', 'status'], 'draft', DEFAULT_LIMITS, { clauses: 0 });
 * top.groups.get('or')?.items.get('0')?.values.get('status'); // 'draft'
 */
export function addFilterParameter(
  top: FilterClauses,
  key: string,
  brackets: readonly string[],
  value: string,
  limits: Limits,
  count: ClauseCount,
): void {
  let clauses = top;
  let depth = 0;
  let i = 0;
  for (; i < brackets.length; i++) {
    const word = brackets[i]!;
    const grouping = word === 'and' || word === 'or' || word === 'not' || LABEL.test(word);
    if (!grouping) break;
    if (++depth > limits.filterDepth)
      throw limitExceeded(key, `filter groups may nest at most ${limits.filterDepth} deep`, limits.filterDepth);
    if (word === 'not') {
      clauses = itemOf(group(clauses, 'not', `${clauses.prefix}[not]`), '');
      continue;
    }
    if (LABEL.test(word)) {
      clauses = itemOf(group(clauses, 'digits', clauses.prefix), word);
      continue;
    }
    const label = brackets[i + 1];
    if (label === undefined || label === '')
      throw invalidParameter(
        key,
        `${key}: a filter[${word}] group holds its clauses under an index or a label, such as ${clauses.prefix}[${word}][0][title]=...`,
      );
    clauses = itemOf(group(clauses, word as 'and' | 'or', `${clauses.prefix}[${word}]`), label);
    i++;
  }
  const [name, op, ...rest] = brackets.slice(i);
  if (name === undefined || name === '' || rest.length > 0)
    throw invalidParameter(key, `${key} is not a query parameter this API understands`);
  const countClause = () => {
    if (++count.clauses > limits.filterClauses)
      throw limitExceeded(key, `filter may hold at most ${limits.filterClauses} clauses`, limits.filterClauses);
  };
  if (op === undefined) {
    if (clauses.values.has(name)) throw invalidParameter(key, `${key} is given both as a list and as a value`);
    countClause();
    clauses.values.set(name, value);
  } else if (op === '') {
    const existing = clauses.values.get(name);
    const parameter = `${clauses.prefix}[${name}]`;
    if (typeof existing === 'string')
      throw invalidParameter(key, `${parameter} is given both as a value and as a list`);
    if ((existing?.length ?? 0) >= limits.filterValues)
      throw limitExceeded(key, `${parameter} may have at most ${limits.filterValues} values`, limits.filterValues);
    if (existing === undefined) countClause();
    clauses.values.set(name, [...(existing ?? []), value]);
  } else {
    if (!isOperator(op)) {
      throw new BadRequestError({
        detail: `"${op}" is not a filter operator; the operators are ${OPERATORS.join(', ')}`,
        source: { parameter: key },
        code: 'unknown_operator',
      });
    }
    let byOperator = clauses.operators.get(name);
    if (!byOperator) clauses.operators.set(name, (byOperator = new Map<Operator, string>()));
    countClause();
    byOperator.set(op, value);
  }
}

function group(clauses: FilterClauses, key: GroupWord | 'digits', prefix: string): FilterGroupSyntax {
  let found = clauses.groups.get(key);
  if (!found) clauses.groups.set(key, (found = { op: key === 'digits' ? 'and' : key, prefix, items: new Map() }));
  return found;
}

function itemOf(group: FilterGroupSyntax, label: string): FilterClauses {
  let item = group.items.get(label);
  if (!item) group.items.set(label, (item = emptyClauses(label === '' ? group.prefix : `${group.prefix}[${label}]`)));
  return item;
}

/** The first parameter of a clause set, as written (for a message about `filter` as a whole). */
export function firstFilterParameter(clauses: FilterClauses): string | undefined {
  const name = clauses.values.keys().next().value;
  if (name !== undefined) return `${clauses.prefix}[${name}]`;
  const [opName, ops] = clauses.operators.entries().next().value ?? [];
  if (opName !== undefined) return `${clauses.prefix}[${opName}][${ops!.keys().next().value}]`;
  for (const group of clauses.groups.values())
    for (const item of group.items.values()) {
      const first = firstFilterParameter(item);
      if (first !== undefined) return first;
    }
  return undefined;
}
