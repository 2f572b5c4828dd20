import { BadRequestError } from '../core/errors.js';
import type { IncludeTree } from '../query/parse.js';
import { Relationship } from '../dsl/fields.js';
import type { RegisteredResource } from '../registry/registry.js';
import type { RequestState } from '../pipeline/state.js';

/**
 * What a read asks of the server, in resources: (1 + the relationships `include` names, at
 * every level) × the page size, the page as the Index serves it (`page[limit]` or `page[size]`,
 * else its default, at most its maximum); 1 for a single resource or a list without pagination.
 * Writes cost 1. The `requestCost` limit bounds it; the request gate serves cheap ones first.
 *
 * @example
 * import type { RequestState } from '../pipeline/state.js';
 * declare const state: RequestState; // GET /articles?include=author,comments.author&page[limit]=50
 * readCost(state); // (1 + 3) × 50 = 200
 */
export function readCost(state: RequestState): number {
  const size = pageSize(state);
  const include = state.query.include;
  return include === undefined ? size : (1 + relationshipsIn(include)) * size;
}

/**
 * Refuses a read that costs more than `limits.requestCost` (400, `limit_exceeded`, pointing at
 * `include`, or at the page size when nothing is included), saying how to ask for less.
 */
export function checkCost(state: RequestState, cost: number): void {
  const budget = state.limits.requestCost;
  if (cost <= budget) return;
  const size = pageSize(state);
  const include = state.query.include;
  const relationships = include === undefined ? 0 : relationshipsIn(include);
  const page = state.query.page.size !== undefined ? 'page[size]' : 'page[limit]';
  throw new BadRequestError({
    detail:
      `This request costs ${cost} ((1 + ${relationships} included relationships) × ${size} per page), more than the ${budget} allowed: ` +
      `include fewer relationships or ask for a smaller ${page}`,
    source: { parameter: relationships > 0 ? 'include' : page },
    code: 'limit_exceeded',
    meta: { limit: budget, cost },
  });
}

/** The relationships an include tree names, each level counted. */
function relationshipsIn(tree: IncludeTree): number {
  let n = 0;
  for (const subtree of tree.values()) n += 1 + relationshipsIn(subtree);
  return n;
}

/** The page size a read asks for: a list's, or 1. */
function pageSize(state: RequestState): number {
  const { route, resource } = state;
  let listed: RegisteredResource | undefined;
  if (route.id === undefined) listed = resource;
  else if (route.relationship !== undefined) {
    const field = resource.fields.get(route.relationship);
    if (field instanceof Relationship && field.cardinality === 'many') listed = state.lookup(field.relatedType);
  }
  const pagination = listed?.endpoint('index')?.pagination;
  if (!pagination) return 1;
  const page = state.query.page;
  return Math.min(page.limit ?? page.size ?? pagination.defaultLimit, pagination.maxLimit);
}
