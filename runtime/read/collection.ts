import { respond } from '../pipeline/respond.js';
import type { HttpResult } from '../http/result.js';
import type { Index } from '../dsl/endpoints.js';
import { BadRequestError } from '../core/errors.js';
import { toUri, uriOf } from '../http/uri.js';
import { type RequestFilters, hiddenField, requestFilters } from './conditions.js';
import {
  CURSOR_PROFILE,
  type CursorRequest,
  asksForCursor,
  cursorRequest,
  cursorValues,
  dataLayerPage,
  encodeCursor,
} from './cursor.js';
import { parseSort } from '../dsl/sort-terms.js';
import type { RegisteredResource } from '../registry/registry.js';
import type { OffsetPagination } from '../dsl/resource.js';
import type { RequestTarget } from '../http/target.js';
import { checkDocumentParameters, mustBeVisible } from '../pipeline/checks.js';
import { onlyParameters } from '../query/checks.js';
import { type RequestState, documentBuilder } from '../pipeline/state.js';
import { documentMeta } from '../document/builder.js';

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
    await mustBeVisible(
      state.trace?.begin('authorize'),
      index.permits(context),
      `You may not list resources of type "${resource.type}"`,
    );
  }
  onlyParameters(
    query,
    source.identifiersOnly ? ['sort', 'filter', 'page'] : ['include', 'fields', 'sort', 'filter', 'page'],
    'this endpoint',
  );
  checkDocumentParameters(state, resource);

  const filters = await requestFilters(resource, query, state.lookup, context, state.limits.filterValues);

  const sorts = [];
  const terms = [];
  const requested = query.sort !== undefined;
  for (const term of query.sort ?? (index?.defaultSortValue ? parseSort(index.defaultSortValue) : [])) {
    const sort = resource.sorts.get(term.name);
    const permitted = sort !== undefined && !hiddenField(resource, term.name, context) && (await sort.permits(context));
    if (!sort || !permitted) {
      if (!requested) continue;
      throw new BadRequestError({
        detail: `${resource.type} cannot be sorted by "${term.name}"`,
        source: { parameter: 'sort' },
        code: 'unknown_sort',
      });
    }
    sorts.push({ sort, direction: term.direction });
    terms.push(term);
  }

  let page: OffsetPagination | undefined;
  const options = index?.pagination;
  if (asksForCursor(query)) {
    if (!index?.acceptsCursor) {
      const parameter = `page[${(['size', 'after', 'before'] as const).find((name) => query.page[name] !== undefined)!}]`;
      throw new BadRequestError({
        detail: `${parameter}: ${resource.type} is not paginated by cursor here`,
        source: { parameter },
        code: 'invalid_query_parameter',
      });
    }
    return serveCursorPage(state, source, filters, cursorRequest(resource, index, query, terms));
  } else if (options) {
    page = {
      offset: query.page.offset ?? 0,
      limit: Math.min(query.page.limit ?? options.defaultLimit, options.maxLimit),
    };
  } else {
    onlyParameters(query, ['include', 'fields', 'sort', 'filter'], `${resource.type}, which is not paginated`);
  }

  let q = await filtered(source, filters, context);
  for (const { sort, direction } of sorts) q = await sort.apply(q, direction, context);
  // Counting costs a query: only a paginated list of a resource that counts (`resource.counts`)
  // gets `last` and `meta.total`; without pages the document holds the whole collection. The count and the page do not depend on each other: the page is asked for before the count
  // is awaited, so a data layer with a connection pool (PostgreSQL) runs both at once.
  const counting =
    resource.counts && (page || index?.isCountable) ? Promise.resolve(definition.count!(q, context)) : undefined;
  // Awaited below; if a step in between throws first, its rejection is not left unhandled.
  counting?.catch(() => undefined);
  if (page) q = await definition.paginate!(q, page, context);
  const models = await definition.results!(q, context);
  const total = await counting;

  const links: Record<string, string | null> = { self: uriOf(context.target), ...source.links };
  if (page) Object.assign(links, paginationLinks(context.target, page, models.length, total));
  const meta = total === undefined ? undefined : { total };

  return collectionDocument(state, source, models, links, meta);
}

/** The source's query with the request's filters. */
async function filtered(
  source: CollectionSource,
  filters: RequestFilters,
  context: RequestState['context'],
): Promise<unknown> {
  let q = await source.start();
  for (const { filter, value } of filters.custom) q = await filter.apply(q, value, context);
  const where = source.resource.definition.where;
  for (const condition of filters.conditions) q = await where!(q, condition, context);
  return q;
}

/** The document of a page of `models`: identifiers (a relationship) or resources with their includes. */
async function collectionDocument(
  state: RequestState,
  source: CollectionSource,
  models: readonly unknown[],
  links: Record<string, string | null>,
  meta: Record<string, unknown> | undefined,
  headers?: Record<string, string>,
): Promise<HttpResult> {
  const { resource } = source;
  const builder = documentBuilder(state);
  if (source.identifiersOnly) {
    return respond(
      state,
      { links, data: models.map((m) => builder.identifier(resource, m)), ...(meta && { meta }) },
      200,
      headers,
    );
  }
  const nodes = builder.primary(resource, models);
  await builder.complete(resource, nodes, state.query.include);
  // The Index's own document meta belongs to `GET /{type}`, not to a related collection.
  const declared = state.route.relationship === undefined ? source.index?.documentMeta : undefined;
  meta = documentMeta(await declared?.(models, state.context), meta);
  return respond(
    state,
    {
      links,
      data: nodes.map((n) => n.object),
      ...(state.query.include && { included: builder.included }),
      ...(meta && { meta }),
    },
    200,
    headers,
  );
}

/**
 * A page by cursor: the data layer reads one item more than the size by keyset (backward for
 * `page[before]`), which tells whether the page has a neighbour in that direction; `next` and
 * `prev` carry the cursors of the page's last and first items (null where the profile says the
 * server knows there is nothing); `meta.page` has `maxSize` and, on a countable Index, `total`.
 */
async function serveCursorPage(
  state: RequestState,
  source: CollectionSource,
  filters: RequestFilters,
  request: CursorRequest,
): Promise<HttpResult> {
  const { context } = state;
  const { resource } = source;
  const definition = resource.definition;
  let q = await filtered(source, filters, context);
  const counting = resource.counts ? Promise.resolve(definition.count!(q, context)) : undefined;
  counting?.catch(() => undefined);
  q = await definition.paginateCursor!(q, dataLayerPage(request), context);
  const read = await definition.results!(q, context);
  const total = await counting;
  const more = read.length > request.size;
  const models = read.slice(0, request.size);
  if (request.before !== undefined) models.reverse();
  const first = models[0];
  const last = models.at(-1);
  const edges = first === undefined ? [] : first === last ? [first] : [first, last];
  const values = await cursorValues(resource, request, edges, context);
  const cursorOf = (model: unknown) => encodeCursor(request, values[model === first ? 0 : 1]!);
  const at = cursorLink(context.target, request.size);
  const links: Record<string, string | null> = {
    self: uriOf(context.target),
    ...source.links,
    // Without page[before] the server knows whether there is a next page; without page[after], a previous one.
    prev:
      request.before !== undefined
        ? more && first !== undefined
          ? at('before', cursorOf(first))
          : null
        : request.after === undefined || first === undefined
          ? null
          : at('before', cursorOf(first)),
    next:
      request.before === undefined
        ? more && last !== undefined
          ? at('after', cursorOf(last))
          : null
        : last === undefined
          ? null
          : at('after', cursorOf(last)),
  };
  const meta = { page: { maxSize: request.maxSize, ...(total !== undefined && { total }) } };
  const accept = context.header('accept') ?? '';
  // The profile named in the response's media type when the client asked for it.
  const headers = accept.includes(CURSOR_PROFILE)
    ? { 'content-type': `application/vnd.api+json; profile="${CURSOR_PROFILE}"` }
    : undefined;
  return collectionDocument(state, source, models, links, meta, headers);
}

/** A cursor link: the request's URI without its page parameters, then `page[size]` and the cursor. */
function cursorLink(url: RequestTarget, size: number): (side: 'after' | 'before', cursor: string) => string {
  const rest = withoutPage(url.search);
  const prefix = `${toUri(url.origin + url.pathname)}?${rest ? `${rest}&` : ''}page%5Bsize%5D=${size}&`;
  return (side, cursor) => `${prefix}page%5B${side}%5D=${cursor}`;
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
  const at = (offset: number): string =>
    offset > 0 ? `${prefix}page%5Boffset%5D=${offset}&${limitParameter}` : prefix + limitParameter;
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
  for (const name of ['offset', 'limit', 'size', 'after', 'before']) params.delete(`page[${name}]`);
  return params.toString();
}
