/**
 * From a request's `filter[...]` parameters to what the data layer applies: conditions for its
 * `where` (each `Where` and `WhereCount` clause, operator checked against what the filter
 * allows, value read by the field's kind; boolean groups as `and`/`or`/`not` trees of them), and
 * custom filters' values for its `customFilters`.
 */
import type { Context } from '../dsl/context.js';
import { BadRequestError } from '../core/errors.js';
import {
  type ComparedKind,
  type Condition,
  type ConditionPath,
  type ConditionValue,
  COUNT_OPERATORS,
  type CountPath,
  type FilterCondition,
  LIST_OPERATORS,
  type Operator,
  TEXT_OPERATORS,
  defaultOperators,
  isConditionGroup,
} from '../dsl/operators.js';
import { readValue } from '../query/filter-values.js';
import { filterValue, splitList } from '../query/filter-lists.js';
import type { QueryParameters } from '../query/parse.js';
import { Attribute, Relationship } from '../dsl/fields.js';
import type { Filter, FilterValue } from '../dsl/filters.js';
import type { FilterClauses } from '../query/filter-syntax.js';
import { BoundWhere, type RegisteredResource, type ResourceLookup } from '../registry/registry.js';

/** The filters of one request, ready to apply: each of them holds. */
export interface RequestFilters {
  /** For the data layer's `where`, one call each: `Where` and count conditions, and boolean groups. */
  conditions: FilterCondition[];
  /** For the data layer's `customFilters`: custom filters outside any `or` or `not`. */
  custom: Array<{ filter: Filter; value: FilterValue }>;
}

function unknownFilter(resource: RegisteredResource, name: string, parameter: string): BadRequestError {
  return new BadRequestError({
    detail: `${resource.type} has no filter "${name}"`,
    source: { parameter },
    code: 'unknown_filter',
  });
}

/** A filter or sort named after a field the request may not see (its first segment, for a path) is as unknown as the field. */
export function hiddenField(resource: RegisteredResource, name: string, context: Context): boolean {
  const field = resource.fields.get(name.split('.')[0]!);
  return field !== undefined && field.isConditional && !field.isVisibleFor(undefined, context);
}

/**
 * What the field of a `Where` filter compares: an attribute's kind, a to-one relationship's id,
 * or the attribute a path names on the related resource (and whether it may be null); for a
 * `WhereCount`, an integer that is never null, and the relationship counted.
 */
export function comparedKind(
  resource: RegisteredResource,
  filter: BoundWhere,
  lookup: ResourceLookup,
): ComparedKind & { nullable: boolean; path?: ConditionPath; count?: CountPath } {
  const name = filter.name;
  if (filter.counted) return { kind: 'integer', nullable: false, count: filter.counted };
  const [first, path] = name.split('.') as [string, string | undefined];
  const field = resource.fields.get(first);
  if (path !== undefined && field instanceof Relationship) {
    const attribute = lookup(field.relatedType)?.fields.get(path);
    if (!(attribute instanceof Attribute))
      throw new TypeError(`${resource.type}: filter "${name}" names no attribute of ${field.relatedType}`);
    return {
      kind: attribute.kind,
      enumValues: attribute.enumValues,
      nullable: attribute.isNullable,
      path: { relationship: first, type: field.relatedType, attribute: path, many: field.cardinality === 'many' },
    };
  }
  if (field instanceof Attribute) return { kind: field.kind, enumValues: field.enumValues, nullable: field.isNullable };
  return { kind: 'id', nullable: !(field as Relationship).isRequired };
}

/** The operators a `Where` or `WhereCount` filter takes: as declared, else the defaults of what it compares. */
export function allowedOperators(
  filter: BoundWhere,
  compared: ComparedKind & { nullable: boolean },
): readonly Operator[] {
  return (
    filter.declaration.declaredOperators ??
    (filter.counted ? COUNT_OPERATORS : defaultOperators(compared.kind, compared.nullable))
  );
}

/**
 * Reads every `filter[...]` parameter of `query` against `resource`'s filters, boolean groups
 * included: 400 naming the exact parameter (`filter[or][1][createdAt][gte]`) for an unknown
 * filter (or one the request may not use), an operator the filter does not take, an operator
 * on a custom filter, a custom filter inside an `or` or `not` that its data layer cannot apply
 * there, a value its field's kind cannot hold, or a comma list of more than `maxValues` values
 * (`limits.filterValues`, as for `filter[x][]=`). Groups of `and` outside any `or` or `not`
 * are flattened: their clauses are the request's own.
 */
export async function requestFilters(
  resource: RegisteredResource,
  query: QueryParameters,
  lookup: ResourceLookup,
  context: Context,
  maxValues: number,
): Promise<RequestFilters> {
  const result: RequestFilters = { conditions: [], custom: [] };
  const reader = new ClauseReader(resource, lookup, context, maxValues, result);
  const conditions = await reader.read(query.filter, true);
  // Counts last: a count is a subquery per row, and MySQL and MariaDB test a where's terms in
  // the order written, so the cheaper terms first spare it for the rows they reject.
  result.conditions = [...conditions.filter((condition) => !countsRows(condition)), ...conditions.filter(countsRows)];
  return result;
}

/** Whether `condition` is a count, or a group that holds one. */
function countsRows(condition: FilterCondition): boolean {
  if (isConditionGroup(condition)) return condition.conditions.some(countsRows);
  return condition.op !== 'custom' && condition.count !== undefined;
}

/** Reads clause sets into conditions; `hoist` while no `or` or `not` is above (custom filters go to `customFilters`). */
class ClauseReader {
  constructor(
    readonly resource: RegisteredResource,
    readonly lookup: ResourceLookup,
    readonly context: Context,
    readonly maxValues: number,
    readonly result: RequestFilters,
  ) {}

  async read(clauses: FilterClauses, hoist: boolean): Promise<FilterCondition[]> {
    const { resource, context, maxValues } = this;
    const out: FilterCondition[] = [];
    const { prefix } = clauses;
    const names = new Set([...clauses.values.keys(), ...clauses.operators.keys()]);
    for (const name of names) {
      const value = clauses.values.get(name);
      const operators = clauses.operators.get(name);
      const first =
        value !== undefined ? `${prefix}[${name}]` : `${prefix}[${name}][${operators!.keys().next().value}]`;
      const filter = resource.filters.get(name);
      if (!filter || hiddenField(resource, name, context) || !(await filter.permits(context)))
        throw unknownFilter(resource, name, first);
      if (!(filter instanceof BoundWhere)) {
        if (operators) {
          const op = operators.keys().next().value!;
          throw new BadRequestError({
            detail: `${prefix}[${name}] takes no operator`,
            source: { parameter: `${prefix}[${name}][${op}]` },
            code: 'unsupported_operator',
          });
        }
        const read = filterValue(resource, name, value!, maxValues, `${prefix}[${name}]`);
        if (hoist) this.result.custom.push({ filter, value: read });
        else if (resource.composableFilters.has(name)) out.push({ op: 'custom', field: name, value: read });
        else
          throw new BadRequestError({
            detail: `${first}: the filter "${name}" applies to the whole query only; it cannot stand inside filter[or] or filter[not]`,
            source: { parameter: first },
            code: 'unsupported_filter',
          });
        continue;
      }
      const compared = comparedKind(resource, filter, this.lookup);
      const allowed = allowedOperators(filter, compared);
      const add = (op: Operator, parameter: string, text: FilterValue) => {
        if (!allowed.includes(op)) {
          throw new BadRequestError({
            detail: `${prefix}[${name}] does not take the operator ${op}; it takes ${allowed.join(', ')}`,
            source: { parameter },
            code: 'unsupported_operator',
          });
        }
        const read = condition(name, op, parameter, compared, text, filter.isCaseInsensitive, maxValues);
        out.push(
          compared.path ? { ...read, path: compared.path } : compared.count ? { ...read, count: compared.count } : read,
        );
      };
      if (value !== undefined) {
        // `filter[x]=v` is eq; a list (`filter[x][]`, or a comma list where the field holds ids or enum members) is in.
        const list =
          typeof value !== 'string'
            ? value
            : (compared.kind === 'id' || compared.kind === 'enum') && value.includes(',')
              ? splitList(value, `${prefix}[${name}]`, maxValues)
              : undefined;
        add(
          list ? 'in' : 'eq',
          list && typeof value !== 'string' ? `${prefix}[${name}][]` : `${prefix}[${name}]`,
          list ?? value,
        );
      }
      for (const [op, text] of operators ?? []) add(op, `${prefix}[${name}][${op}]`, text);
    }
    for (const group of clauses.groups.values()) {
      const flatten = hoist && group.op === 'and';
      const items: FilterCondition[][] = [];
      for (const item of group.items.values()) items.push(await this.read(item, flatten));
      if (flatten) out.push(...items.flat());
      else if (group.op === 'or') out.push({ op: 'or', conditions: items.map(allOf) });
      else out.push({ op: group.op, conditions: items.flat() });
    }
    return out;
  }
}

/** The conditions of one clause set as one: itself when it is one, else their `and`. */
function allOf(conditions: FilterCondition[]): FilterCondition {
  return conditions.length === 1 ? conditions[0]! : { op: 'and', conditions };
}

function condition(
  field: string,
  op: Operator,
  parameter: string,
  compared: ComparedKind,
  text: FilterValue,
  caseInsensitive: boolean,
  maxValues: number,
): Condition {
  if (op === 'null') {
    if (text !== 'true' && text !== 'false') {
      throw new BadRequestError({
        detail: `${parameter} must be true or false`,
        source: { parameter },
        code: 'invalid_filter_value',
      });
    }
    return { field, op, value: text === 'true' };
  }
  let value: ConditionValue | ConditionValue[];
  if (LIST_OPERATORS.includes(op)) {
    const items = typeof text === 'string' ? splitList(text, parameter, maxValues) : text;
    value = items.map((item) => readValue(parameter, compared, item));
  } else {
    value = readValue(parameter, compared, typeof text === 'string' ? text : text[0]!);
  }
  return TEXT_OPERATORS.includes(op) ? { field, op, value, caseInsensitive } : { field, op, value };
}
