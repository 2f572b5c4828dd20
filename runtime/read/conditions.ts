/**
 * From a request's `filter[...]` parameters to what the data layer applies: for each `Where`
 * filter, its conditions (operator checked against what the filter allows, values read by the
 * field's kind); for each custom filter, its value.
 */
import type { Context } from '../dsl/context.js';
import { BadRequestError } from '../core/errors.js';
import {
  type ComparedKind,
  type Condition,
  type ConditionPath,
  type ConditionValue,
  LIST_OPERATORS,
  type Operator,
  TEXT_OPERATORS,
  defaultOperators,
} from '../dsl/operators.js';
import { readValue } from '../query/filter-values.js';
import { filterValue, splitList } from '../query/filter-lists.js';
import type { QueryParameters } from '../query/parse.js';
import { Attribute, Relationship } from '../dsl/fields.js';
import type { Filter, FilterValue } from '../dsl/filters.js';
import { BoundWhere, type RegisteredResource, type ResourceLookup } from '../registry/registry.js';

/** The filters of one request, ready to apply. */
export interface RequestFilters {
  conditions: Array<{ filter: BoundWhere; condition: Condition }>;
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
 * or the attribute a path names on the related resource (and whether it may be null).
 */
export function comparedKind(
  resource: RegisteredResource,
  name: string,
  lookup: ResourceLookup,
): ComparedKind & { nullable: boolean; path?: ConditionPath } {
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

/** The operators a `Where` filter takes: as declared, else the defaults of its field's kind. */
export function allowedOperators(
  filter: BoundWhere,
  compared: ComparedKind & { nullable: boolean },
): readonly Operator[] {
  return filter.declaration.declaredOperators ?? defaultOperators(compared.kind, compared.nullable);
}

/**
 * Reads every `filter[...]` parameter of `query` against `resource`'s filters: 400 naming the
 * exact parameter for an unknown filter, an operator the filter does not take, an operator on a
 * custom filter, a value its field's kind cannot hold, or a comma list of more than
 * `maxValues` values (`limits.filterValues`, as for `filter[x][]=`).
 */
export async function requestFilters(
  resource: RegisteredResource,
  query: QueryParameters,
  lookup: ResourceLookup,
  context: Context,
  maxValues: number,
): Promise<RequestFilters> {
  const result: RequestFilters = { conditions: [], custom: [] };
  const names = new Set([...query.filter.keys(), ...query.operators.keys()]);
  for (const name of names) {
    const value = query.filter.get(name);
    const operators = query.operators.get(name);
    const first = value !== undefined ? `filter[${name}]` : `filter[${name}][${operators!.keys().next().value}]`;
    const filter = resource.filters.get(name);
    if (!filter || hiddenField(resource, name, context) || !(await filter.permits(context)))
      throw unknownFilter(resource, name, first);
    if (!(filter instanceof BoundWhere)) {
      if (operators) {
        const op = operators.keys().next().value!;
        throw new BadRequestError({
          detail: `filter[${name}] takes no operator`,
          source: { parameter: `filter[${name}][${op}]` },
          code: 'unsupported_operator',
        });
      }
      result.custom.push({ filter, value: filterValue(resource, name, value!, maxValues) });
      continue;
    }
    const compared = comparedKind(resource, name, lookup);
    const allowed = allowedOperators(filter, compared);
    const add = (op: Operator, parameter: string, text: FilterValue) => {
      if (!allowed.includes(op)) {
        throw new BadRequestError({
          detail: `filter[${name}] does not take the operator ${op}; it takes ${allowed.join(', ')}`,
          source: { parameter },
          code: 'unsupported_operator',
        });
      }
      const read = condition(name, op, parameter, compared, text, filter.declaration.isCaseInsensitive, maxValues);
      result.conditions.push({ filter, condition: compared.path ? { ...read, path: compared.path } : read });
    };
    if (value !== undefined) {
      // `filter[x]=v` is eq; a list (`filter[x][]`, or a comma list where the field holds ids or enum members) is in.
      const list =
        typeof value !== 'string'
          ? value
          : (compared.kind === 'id' || compared.kind === 'enum') && value.includes(',')
            ? splitList(value, `filter[${name}]`, maxValues)
            : undefined;
      add(
        list ? 'in' : 'eq',
        list && typeof value !== 'string' ? `filter[${name}][]` : `filter[${name}]`,
        list ?? value,
      );
    }
    for (const [op, text] of operators ?? []) add(op, `filter[${name}][${op}]`, text);
  }
  return result;
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
