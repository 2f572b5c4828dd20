/**
 * The query parameters checked against what an endpoint takes and what the API declares: the
 * families an endpoint accepts, `include` paths, `fields[type]` names (400 naming the parameter).
 */
import type { Context } from '../dsl/context.js';
import { BadRequestError } from '../core/errors.js';
import type { RegisteredResource, ResourceLookup } from '../registry/registry.js';
import type { IncludeTree, QueryParameters } from './parse.js';
import { firstFilterParameter, isEmptyClauses } from './filter-syntax.js';

type Family = 'include' | 'fields' | 'sort' | 'filter' | 'page';

/** 400 for the query parameters an endpoint does not take (sort on a single resource, ...). */
export function onlyParameters(query: QueryParameters, allowed: readonly Family[], where: string): void {
  // Checked family by family, in this order, naming the first parameter given; nothing is built unless one is refused.
  if (query.include && !allowed.includes('include')) refuse('include', where);
  if (query.fields.size > 0 && !allowed.includes('fields')) refuse(`fields[${[...query.fields.keys()][0]}]`, where);
  if (query.sort && !allowed.includes('sort')) refuse('sort', where);
  if (!isEmptyClauses(query.filter) && !allowed.includes('filter')) refuse(firstFilterParameter(query.filter)!, where);
  // Counts go on resource objects: wherever they may be included.
  if (query.withCount !== undefined && !allowed.includes('include')) refuse('withCount', where);
  const page =
    query.page.offset !== undefined ? 'page[offset]' : query.page.limit !== undefined ? 'page[limit]' : undefined;
  if (page && !allowed.includes('page')) refuse(page, where);
}

function refuse(parameter: string, where: string): never {
  throw new BadRequestError({ detail: `${parameter} is not supported on ${where}`, source: { parameter } });
}

/**
 * Checks `include` against the includable relationships, level by level (400 otherwise).
 */
export function checkInclude(
  resource: RegisteredResource,
  tree: IncludeTree,
  lookup: ResourceLookup,
  context: Context,
  path = '',
): void {
  for (const [name, subtree] of tree) {
    const field = resource.fields.get(name);
    const full = path ? `${path}.${name}` : name;
    if (!field || !('cardinality' in field) || !field.isIncludable || !field.isVisibleFor(undefined, context)) {
      throw new BadRequestError({
        detail: `"${full}" is not an includable relationship of ${resource.type}`,
        source: { parameter: 'include' },
        code: 'invalid_include',
      });
    }
    checkInclude(lookup(field.relatedType)!, subtree, lookup, context, full);
  }
}

/** Checks `fields[type]`: known types, known fields (400 otherwise). */
export function checkFields(fields: QueryParameters['fields'], lookup: ResourceLookup, context: Context): void {
  for (const [type, names] of fields) {
    const resource = lookup(type);
    const parameter = `fields[${type}]`;
    if (!resource) throw new BadRequestError({ detail: `There is no resource type "${type}"`, source: { parameter } });
    for (const name of names) {
      if (!resource.fields.get(name)?.isVisibleFor(undefined, context)) {
        throw new BadRequestError({ detail: `${type} has no field "${name}"`, source: { parameter } });
      }
    }
  }
}
