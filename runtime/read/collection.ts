import { respond } from '../http/respond.js';
import type { HttpResult } from '../http/result.js';
import type { Index } from '../schema/endpoints.js';
import { BadRequestError } from '../errors.js';
import { toUri, uriOf } from '../document/builder.js';
import { requestFilters } from './conditions.js';
import { parseSort } from '../query/parse.js';
import type { RegisteredResource } from '../schema/registry.js';
import type { OffsetPagination } from '../schema/resource.js';
import type { RequestTarget } from '../http/target.js';
import { checkDocumentParameters, mustBeVisible, onlyParameters } from '../checks.js';
import { type RequestState, documentBuilder } from '../state.js';

/** What a collection is served from: the resource listed, the query to start from, how to render. */
export interface CollectionSource {
  resource: RegisteredResource;
  /** The Index whose pagination and default sort apply, if any. */
  index: Index | undefined;
  start(): unknown;
  /** Resource identifiers only (a relationship endpoint) rather than resource objects. */
  identifiersOnly: boolean;
  /** Links besides `self` and pagination (a relationship document's `related`). */
  links?: Record<string, string>;
}

/**
 * Serves a collection: checks every parameter first, then runs the seed's order: `query`,
 * filters, sorts, `count` (when Countable), `paginate`, `results`; then the document.
 */
export async function serveCollection(state: RequestState, source: CollectionSource): Promise<HttpResult> {
  const { context, query } = state;
  const { resource, index } = source;
  const definition = resource.definition;
  // GET /{type}: the Index's callbacks decide, as Show's do for a single resource.
  if (state.route.relationship === undefined && index) {
    await mustBeVisible(index.permits(context), `You may not list ${resource.type}`);
  }
  onlyParameters(query, source.identifiersOnly ? ['sort', 'filter', 'page'] : ['include', 'fields', 'sort', 'filter', 'page'], 'this endpoint');
  checkDocumentParameters(state, resource);

  const filters = await requestFilters(resource, query, state.lookup, context);

  const sorts = [];
  const requested = query.sort !== undefined;
  for (const term of query.sort ?? (index?.defaultSortValue ? parseSort(index.defaultSortValue) : [])) {
    const sort = resource.sorts.get(term.name);
    const permitted = sort !== undefined && !hiddenField(resource, term.name, context) && (await sort.permits(context));
    if (!sort || !permitted) {
      if (!requested) continue;
      throw new BadRequestError({ detail: `${resource.type} cannot be sorted by "${term.name}"`, source: { parameter: 'sort' }, code: 'unknown_sort' });
    }
    sorts.push({ sort, direction: term.direction });
  }

  let page: OffsetPagination | undefined;
  const options = index?.pagination;
  if (options) {
    page = { offset: query.page.offset ?? 0, limit: Math.min(query.page.limit ?? options.defaultLimit, options.maxLimit) };
  } else {
    onlyParameters(query, ['include', 'fields', 'sort', 'filter'], `${resource.type}, which is not paginated`);
  }

  let q = await source.start();
  for (const { filter, value } of filters.custom) q = await filter.apply(q, value, context);
  for (const { filter, condition } of filters.conditions) q = await filter.where(q, condition, context);
  for (const { sort, direction } of sorts) q = await sort.apply(q, direction, context);
  // Counting costs a query: only an Index declared countable() gets `last` and `meta.total`.
  // The count and the page do not depend on each other: the page is asked for before the count
  // is awaited, so a data layer with a connection pool (PostgreSQL) runs both at once.
  const counting = index?.isCountable && definition.count ? Promise.resolve(definition.count(q, context)) : undefined;
  // Awaited below; if a step in between throws first, its rejection is not left unhandled.
  counting?.catch(() => undefined);
  if (page) q = await definition.paginate!(q, page, context);
  const models = await definition.results!(q, context);
  const total = await counting;

  const links: Record<string, string | null> = { self: uriOf(context.target), ...source.links };
  if (page) Object.assign(links, paginationLinks(context.target, page, models.length, total));
  const meta = total === undefined ? undefined : { total };

  const builder = documentBuilder(state);
  if (source.identifiersOnly) {
    return respond(state, { links, data: models.map((m) => builder.identifier(resource, m)), ...(meta && { meta }) });
  }
  const nodes = builder.primary(resource, models);
  await builder.expand(resource, nodes, query.include);
  return respond(state, {
    links,
    data: nodes.map((n) => n.object),
    ...(query.include && { included: builder.included }),
    ...(meta && { meta }),
  });
}

/** A filter or sort named after a field the request may not see is as unknown as the field. */
function hiddenField(resource: RegisteredResource, name: string, context: RequestState['context']): boolean {
  const field = resource.fields.get(name.split('.')[0]!);
  return field !== undefined && field.isConditional && !field.isVisibleFor(undefined, context);
}

/**
 * first / prev / next / last for offset pagination, each keeping every other query parameter.
 * Without a total, `next` appears when the page is full; `last` needs the total.
 */
export function paginationLinks(
  url: RequestTarget,
  page: OffsetPagination,
  count: number,
  total: number | undefined,
): Record<string, string | null> {
  // Every link is the request's URI with its page parameters moved to the end: the prefix and
  // the other parameters are encoded once (URLSearchParams' form encoding leaves nothing that
  // uriOf would change), not once per link.
  const rest = onlyPage(url.searchParams) ? '' : withoutPage(url.search);
  const prefix = `${toUri(url.origin + url.pathname)}?${rest ? `${rest}&` : ''}`;
  const limitParameter = `page%5Blimit%5D=${page.limit}`;
  const at = (offset: number): string => (offset > 0 ? `${prefix}page%5Boffset%5D=${offset}&${limitParameter}` : prefix + limitParameter);
  const { offset, limit } = page;
  const hasNext = total === undefined ? count >= limit : offset + limit < total;
  const links: Record<string, string | null> = {
    first: at(0),
    prev: offset > 0 ? at(Math.max(0, offset - limit)) : null,
    next: hasNext ? at(offset + limit) : null,
  };
  if (total !== undefined) links.last = at(total === 0 ? 0 : Math.floor((total - 1) / limit) * limit);
  return links;
}

/** Whether a query has no parameters but the page's (the request parsed it already: nothing to copy). */
function onlyPage(parameters: URLSearchParams): boolean {
  for (const name of parameters.keys()) if (name !== 'page[offset]' && name !== 'page[limit]') return false;
  return true;
}

/** A query string without its page parameters, form-encoded. */
function withoutPage(search: string): string {
  const params = new URLSearchParams(search);
  params.delete('page[offset]');
  params.delete('page[limit]');
  return params.toString();
}
