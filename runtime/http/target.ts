/**
 * The parts of a request URL the pipeline reads, as `URL` gives them (a `URL` is one).
 *
 * @example
 * Show.make().visible((ctx) => ctx.target.searchParams.get('preview') === null);
 */
export interface RequestTarget {
  readonly origin: string;
  readonly pathname: string;
  readonly search: string;
  readonly searchParams: URLSearchParams;
}

/**
 * A path, and a query, that the URL parser keeps as they are: nothing it percent-encodes, no
 * dot segments (no `.` or `%` in the path), no backslash, no fragment. Anything else is parsed
 * by `URL`.
 */
const PLAIN_PATH_AND_QUERY = /^\/[\w\-~!$&()*+,;=:@/[\]|^]*(?:\?[\w\-.~!$&()*+,;=:@/?%[\]|^]*)?$/;

/** Origins by the scheme-and-authority text they were parsed from (null: not a plain one). A request's Host picks the text: the map starts over once it holds a few. */
const origins = new Map<string, string | null>();
const MAX_ORIGINS = 64;

function originOf(prefix: string): string | null {
  let origin = origins.get(prefix);
  if (origin === undefined) {
    try {
      const url = new URL(`${prefix}/`);
      origin = url.pathname === '/' && url.search === '' && url.hash === '' ? url.origin : null;
    } catch {
      origin = null;
    }
    if (origins.size >= MAX_ORIGINS) origins.clear();
    origins.set(prefix, origin);
  }
  return origin;
}

/** A request target read without the URL parser; `searchParams` is made when first read. */
class PlainTarget implements RequestTarget {
  #searchParams: URLSearchParams | undefined;

  constructor(
    readonly origin: string,
    readonly pathname: string,
    readonly search: string,
  ) {}

  get searchParams(): URLSearchParams {
    return (this.#searchParams ??= new URLSearchParams(this.search));
  }
}

/**
 * The origin, path and query of a request URL. The common `http(s)://host/path?query`, whose
 * path and query the URL parser would keep as they are, is split as text (a `URL` costs a
 * parse of about 4,500 instructions, a fifth of a small request's own work); anything else is
 * a `URL`. Either gives what `new URL(href)` gives for these members.
 *
 * @example
 * parseTarget('http://localhost:3000/articles?page[limit]=5').pathname; // '/articles'
 */
export function parseTarget(href: string): RequestTarget {
  const start = href.startsWith('http://') ? 7 : href.startsWith('https://') ? 8 : -1;
  const slash = start === -1 ? -1 : href.indexOf('/', start);
  if (slash !== -1) {
    const rest = href.slice(slash);
    const origin = PLAIN_PATH_AND_QUERY.test(rest) ? originOf(href.slice(0, slash)) : null;
    if (origin !== null) {
      const question = rest.indexOf('?');
      if (question === -1) return new PlainTarget(origin, rest, '');
      return new PlainTarget(origin, rest.slice(0, question), question === rest.length - 1 ? '' : rest.slice(question));
    }
  }
  return new URL(href);
}
