/**
 * Cursor pagination (the JSON:API cursor pagination profile) of an Index declared `cursor()`:
 * reading `page[size]`, `page[after]`, `page[before]`, the keyset the data layer pages by, the
 * cursors of the items, and the profile's links and errors.
 */
import type { Context } from '../dsl/context.js';
import { BadRequestError } from '../core/errors.js';
import type { QueryParameters } from '../query/parse.js';
import type { SortTerm } from '../dsl/sort-terms.js';
import type { Index } from '../dsl/endpoints.js';
import { Attribute, type ToMany } from '../dsl/fields.js';
import { BoundSort, type RegisteredResource } from '../registry/registry.js';
import { SortBy } from '../dsl/filters.js';
import type { CursorPage, CursorValue } from '../dsl/resource.js';
import { toJsonValue } from '../document/builder.js';

/** The profile's URI, as clients name it in `profile` media type parameters. */
export const CURSOR_PROFILE = 'https://jsonapi.org/profiles/ethanresnick/cursor-pagination/';
const ERROR_TYPE = (name: string) => `https://jsonapi.org/profiles/ethanresnick/cursor-pagination/${name}`;

/** A cursor request, checked: the used size, the forward sort (id last), and the boundary it starts from. */
export interface CursorRequest {
  size: number;
  maxSize: number;
  /** The order of the results, the id last (ascending) as the tie-breaker. */
  sorts: CursorPage['sorts'];
  after: readonly CursorValue[] | undefined;
  before: readonly CursorValue[] | undefined;
}

/** Whether the request asks for cursor pagination (sends `page[size]`, `page[after]` or `page[before]`). */
export function asksForCursor(query: QueryParameters): boolean {
  const { size, after, before } = query.page;
  return size !== undefined || after !== undefined || before !== undefined;
}

/**
 * The cursor request of `query` on an Index that accepts cursors, checked as the profile says:
 * a size past the maximum (400 `max-size-exceeded`, with `meta.page.maxSize`), both cursors (400
 * `range-pagination-not-supported`), a sort the keyset cannot follow (400 `unsupported-sort`:
 * a custom sort, or an attribute that may be null), offset parameters beside cursor ones, or a
 * cursor this server did not make for this sort (400 naming the parameter).
 */
export function cursorRequest(
  resource: RegisteredResource,
  index: Index,
  query: QueryParameters,
  terms: readonly SortTerm[],
): CursorRequest {
  const { page } = query;
  const maxSize = index.pagination!.maxLimit;
  if (page.offset !== undefined || page.limit !== undefined) {
    const parameter = page.offset !== undefined ? 'page[offset]' : 'page[limit]';
    throw new BadRequestError({
      detail: `${parameter} (offset pagination) cannot be combined with page[size], page[after] or page[before]`,
      source: { parameter },
    });
  }
  if (page.size !== undefined && page.size > maxSize) {
    throw new BadRequestError({
      detail: `page[size] may be at most ${maxSize}, not ${page.size}`,
      source: { parameter: 'page[size]' },
      meta: { page: { maxSize } },
      type: ERROR_TYPE('max-size-exceeded'),
      code: 'max_size_exceeded',
    });
  }
  if (page.after !== undefined && page.before !== undefined) {
    throw new BadRequestError({
      detail: 'page[after] and page[before] together (range pagination) are not supported',
      source: { parameter: 'page[before]' },
      type: ERROR_TYPE('range-pagination-not-supported'),
      code: 'range_pagination_not_supported',
    });
  }
  const sorts: Array<CursorPage['sorts'][number]> = [];
  for (const term of terms) {
    const field = resource.fields.get(term.name);
    const sort = resource.sorts.get(term.name);
    const byField = sort instanceof BoundSort && sort.declaration instanceof SortBy;
    // A count is never null: its keyset is as sound as an attribute's.
    if (sort instanceof BoundSort && sort.counted) {
      sorts.push({ field: term.name, direction: term.direction, count: sort.counted });
      continue;
    }
    if (!(field instanceof Attribute) || field.isNullable || field.getter || !byField) {
      throw new BadRequestError({
        detail: `Cursor pagination cannot sort by "${term.name}"${field instanceof Attribute && field.isNullable ? ', which may be null' : ''}`,
        source: { parameter: 'sort' },
        type: ERROR_TYPE('unsupported-sort'),
        code: 'unsupported_sort',
      });
    }
    sorts.push({ field: term.name, direction: term.direction });
  }
  sorts.push({ field: 'id', direction: 'asc' });
  const signature = sorts.map((s) => `${s.field}:${s.direction}`).join(',');
  const read = (parameter: 'page[after]' | 'page[before]', cursor: string | undefined) =>
    cursor === undefined ? undefined : decodeCursor(parameter, cursor, signature, sorts.length);
  return {
    size: page.size ?? index.pagination!.defaultLimit,
    maxSize,
    sorts,
    after: read('page[after]', page.after),
    before: read('page[before]', page.before),
  };
}

/** The page the data layer reads: forward from `after`, or backward (every direction reversed) from `before`; one more than the size, to know whether there are more. */
export function dataLayerPage(request: CursorRequest): CursorPage {
  if (request.before === undefined)
    return { sorts: request.sorts, ...(request.after && { after: request.after }), limit: request.size + 1 };
  return {
    sorts: request.sorts.map((s) => ({
      ...s,
      direction: s.direction === 'asc' ? ('desc' as const) : ('asc' as const),
    })),
    after: request.before,
    limit: request.size + 1,
  };
}

/**
 * The values the cursors of `models` hold (a page's first and last, or fewer): each one's sort
 * fields as served, then its id. A count sort's value is the count the data layer's
 * `countRelated` gives for those models, one call per counted relationship.
 */
export async function cursorValues(
  resource: RegisteredResource,
  request: CursorRequest,
  models: readonly unknown[],
  context: Context,
): Promise<CursorValue[][]> {
  const counts = new Map<string, readonly number[]>();
  for (const sort of request.sorts) {
    if (!sort.count || counts.has(sort.field) || models.length === 0) continue;
    const relationship = resource.fields.get(sort.count.relationship) as ToMany;
    counts.set(sort.field, await resource.definition.countRelated!(relationship, models, context));
  }
  return models.map((model, i) =>
    request.sorts.map(({ field, count }) => {
      if (count) return Number(counts.get(field)![i]);
      if (field === 'id') return resource.getId(model, context);
      const attribute = resource.fields.get(field) as Attribute;
      return toJsonValue(attribute.kind, (model as Record<string, unknown>)[attribute.name]) as CursorValue;
    }),
  );
}

/** An opaque cursor: the sort it belongs to and the values of the item it falls on, base64url JSON. */
export function encodeCursor(request: CursorRequest, values: readonly CursorValue[]): string {
  const json = JSON.stringify({ s: request.sorts.map((s) => `${s.field}:${s.direction}`).join(','), v: values });
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function decodeCursor(parameter: string, cursor: string, signature: string, length: number): CursorValue[] {
  const invalid = () =>
    new BadRequestError({
      detail: `${parameter} is not a cursor of this collection and sort`,
      source: { parameter },
      code: 'invalid_cursor',
    });
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw invalid();
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    parsed = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))),
    );
  } catch {
    throw invalid();
  }
  const { s, v } = (parsed ?? {}) as { s?: unknown; v?: unknown };
  if (
    s !== signature ||
    !Array.isArray(v) ||
    v.length !== length ||
    !v.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)))
  ) {
    throw invalid();
  }
  return v as CursorValue[];
}
