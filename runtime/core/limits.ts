/**
 * Bounds on what one request may ask of the server. Every one has a default; each is
 * configurable with `new JsonApi({ limits: { ... } })`. Exceeding one is a 4xx errors document
 * naming the limit (`code`, `meta.limit`) and pointing at the parameter, header or member.
 */
export interface Limits {
  /** Request body bytes; refused from `Content-Length` before reading, or as soon as the stream passes it (413). */
  bodyBytes: number;
  /** Characters in the request URL (414). */
  urlLength: number;
  /** Relationship paths in `include` (400). */
  includePaths: number;
  /** Relationships in one `include` path, such as 3 for `a.b.c` (400). */
  includeDepth: number;
  /** Keys in `sort` (400). */
  sortKeys: number;
  /** Values of one list filter: `filter[x][]=...`, a comma list `filter[x]=a,b` or `filter[x][in]=a,b`, counted after splitting (400). */
  filterValues: number;
  /** Clauses of `filter`, every level of its boolean groups counted: each `filter[...][name]` or `filter[...][name][op]` is one (400). */
  filterClauses: number;
  /** How deep `filter[and]`, `filter[or]` and `filter[not]` groups nest: `filter[or][0][not][status]` is 2 (400). */
  filterDepth: number;
  /** Largest `page[offset]` (400): deep offsets make databases scan. */
  pageOffset: number;
  /** Nesting depth of a JSON request body (400). */
  jsonDepth: number;
  /** Operations in one Atomic Operations request (400), when the extension does not set its own. */
  operations: number;
  /**
   * The cost a read may ask for (400): (1 + relationships `include` names, at every level) ×
   * the page size (`page[limit]` or `page[size]` as the Index clamps it; 1 for a single resource
   * or an unpaginated list).
   */
  requestCost: number;
  /** Requests served at once; more wait in the queue, cheapest first (by `requestCost`'s measure; a write costs 1). */
  concurrentRequests: number;
  /** Requests that may wait for a turn; past it, the most expensive one is refused (503). */
  queuedRequests: number;
  /** How long a request may wait for a turn, in milliseconds, before it is refused (503). */
  queueTimeoutMs: number;
  /**
   * Requests that cost more always take their turn from the queue, one started per turn of the
   * event loop, so that cheaper ones arriving meanwhile are served between them.
   */
  heavyCost: number;
  /**
   * Errors one errors document lists. Past it the answer lists the first ones and ends with one
   * more error (`code: 'too_many_errors'`) saying how many were left out, or that there are
   * more when checking a request document stopped there (it stops once it has found more).
   */
  errors: number;
}

/** The defaults. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  bodyBytes: 1024 * 1024,
  urlLength: 8 * 1024,
  includePaths: 20,
  includeDepth: 4,
  sortKeys: 5,
  filterValues: 100,
  filterClauses: 32,
  filterDepth: 6,
  pageOffset: 100_000,
  jsonDepth: 32,
  operations: 100,
  requestCost: 500,
  concurrentRequests: 64,
  queuedRequests: 100,
  queueTimeoutMs: 10_000,
  heavyCost: 250,
  errors: 100,
});
