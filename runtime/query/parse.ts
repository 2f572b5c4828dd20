import { BadRequestError, invalidParameter } from '../core/errors.js';
import { DEFAULT_LIMITS, type Limits } from '../core/limits.js';
import { isMemberName } from '../core/member-name.js';
import { type FilterClauses, addFilterParameter, emptyClauses } from './filter-syntax.js';
import { splitList } from './filter-lists.js';
import { type SortTerm, parseSort } from '../dsl/sort-terms.js';

/** Include paths as a tree: `author,comments.author` is `{ author: {}, comments: { author: {} } }`. */
export type IncludeTree = Map<string, IncludeTree>;

/** The JSON:API query parameters of a request, checked for syntax only. */
export interface QueryParameters {
  include: IncludeTree | undefined;
  /** `fields[type]` lists by type. */
  fields: Map<string, Set<string>>;
  sort: SortTerm[] | undefined;
  /** `filter[...]`: its clauses, boolean groups included (`filter-syntax.ts`). */
  filter: FilterClauses;
  /** `withCount=comments,tags`: the to-many relationships whose counts the resource objects carry. */
  withCount: string[] | undefined;
  /** Offset pagination (`page[offset]`, `page[limit]`), or cursor pagination (`page[size]`, `page[after]`, `page[before]`). */
  page: { offset?: number; limit?: number; size?: number; after?: string; before?: string };
}

const KEY = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const ONLY_A_TO_Z = /^[a-z]+$/;
const UNSIGNED = /^\d+$/;

function tooMany(parameter: string, detail: string, limit: number): BadRequestError {
  return new BadRequestError({ detail, source: { parameter }, code: 'limit_exceeded', meta: { limit } });
}

function parseInclude(value: string, limits: Limits): IncludeTree {
  const tree: IncludeTree = new Map();
  if (value === '') return tree;
  const paths = value.split(',');
  if (paths.length > limits.includePaths)
    throw tooMany('include', `include may name at most ${limits.includePaths} paths`, limits.includePaths);
  for (const path of paths) {
    let node = tree;
    const names = path.split('.');
    if (names.length > limits.includeDepth)
      throw tooMany(
        'include',
        `include paths may be at most ${limits.includeDepth} relationships deep`,
        limits.includeDepth,
      );
    for (const name of names) {
      if (name === '') throw invalidParameter('include', `include path "${path}" has an empty relationship name`);
      let next = node.get(name);
      if (!next) node.set(name, (next = new Map<string, IncludeTree>()));
      node = next;
    }
  }
  return tree;
}

function parsePageNumber(key: string, value: string, min: number): number {
  const n = UNSIGNED.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw invalidParameter(key, `${key} must be an integer of at least ${min}, not "${value}"`);
  }
  return n;
}

/**
 * 400 for a query string with a `%` that does not start a valid escape, or escapes that are
 * not UTF-8 (`%zz`, a lone `%`, `%E0%A4%25A`): `URLSearchParams` would silently turn them into
 * U+FFFD and a filter would compare with a value the client never sent. `source.parameter`
 * names the parameter (as typed, when its name itself is the bad part). Only the raw text
 * says so, hence `search` (with or without its `?`); call it only when `search` holds a `%`.
 *
 * @example
 * checkQueryEncoding('?filter[title]=%E0%A4%25A'); // throws a 400 naming filter[title]
 */
export function checkQueryEncoding(search: string): void {
  for (const pair of (search.startsWith('?') ? search.slice(1) : search).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const key = strictDecode(rawKey);
    if (key === undefined || (eq >= 0 && strictDecode(pair.slice(eq + 1)) === undefined)) {
      throw invalidParameter(
        key ?? rawKey,
        `${key ?? rawKey} is not validly percent-encoded: every % must start an escape of UTF-8 (%C3%A9 for é)`,
      );
    }
  }
}

/** A query component decoded as `application/x-www-form-urlencoded` does, or undefined when it is not valid. */
function strictDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * Reads the JSON:API query parameters of `params`. Anything else is a 400: names that break
 * the spec's rules, and implementation-specific names the API was not told about (`allowed`).
 */
export function parseQuery(
  params: URLSearchParams,
  allowed: ReadonlySet<string> = new Set(),
  limits: Limits = DEFAULT_LIMITS,
): QueryParameters {
  const query: QueryParameters = {
    include: undefined,
    fields: new Map(),
    sort: undefined,
    filter: emptyClauses(),
    withCount: undefined,
    page: {},
  };
  const clauseCount = { clauses: 0 };
  const seen = new Set<string>();
  for (const [key, value] of params) {
    const repeated = seen.has(key);
    seen.add(key);
    const match = KEY.exec(key);
    const family = match?.[1] ?? key;
    const brackets = match?.[2] ? match[2].slice(1, -1).split('][') : [];
    if (repeated && !(family === 'filter' && brackets.length >= 2 && brackets.at(-1) === '')) {
      throw invalidParameter(key, `${key} is given more than once`);
    }
    if (family === 'include' && brackets.length === 0) {
      query.include = parseInclude(value, limits);
    } else if (family === 'sort' && brackets.length === 0) {
      query.sort = parseSort(value);
      if (query.sort.length > limits.sortKeys)
        throw tooMany(key, `sort may have at most ${limits.sortKeys} keys`, limits.sortKeys);
    } else if (family === 'fields' && brackets.length === 1) {
      query.fields.set(brackets[0]!, new Set(value === '' ? [] : value.split(',')));
    } else if (family === 'filter' && brackets.length > 0 && brackets[0] !== '') {
      addFilterParameter(query.filter, key, brackets, value, limits, clauseCount);
    } else if (family === 'withCount' && brackets.length === 0) {
      query.withCount = value === '' ? [] : splitList(value, 'withCount', limits.includePaths);
    } else if (family === 'page' && brackets.length === 1 && brackets[0] === 'offset') {
      query.page.offset = parsePageNumber(key, value, 0);
      if (query.page.offset > limits.pageOffset)
        throw tooMany(key, `page[offset] may be at most ${limits.pageOffset}`, limits.pageOffset);
    } else if (family === 'page' && brackets.length === 1 && brackets[0] === 'limit') {
      query.page.limit = parsePageNumber(key, value, 1);
    } else if (family === 'page' && brackets.length === 1 && brackets[0] === 'size') {
      query.page.size = parsePageNumber(key, value, 1);
    } else if (family === 'page' && brackets.length === 1 && (brackets[0] === 'after' || brackets[0] === 'before')) {
      query.page[brackets[0]] = value;
    } else if (['include', 'sort', 'fields', 'filter', 'page'].includes(family)) {
      throw invalidParameter(key, `${key} is not a query parameter this API understands`);
    } else if (!isMemberName(family) || ONLY_A_TO_Z.test(family)) {
      throw invalidParameter(key, `${key} is not a legal JSON:API query parameter name`);
    } else if (!allowed.has(family)) {
      throw invalidParameter(key, `${key} is not a query parameter this API understands`);
    }
  }
  return query;
}
