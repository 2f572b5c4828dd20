import { documentJson } from '../document/serialize.js';
import type { RequestState } from './state.js';
import type { TopLevelDocument } from '../core/vocabulary.js';
import { DEFAULT_CACHE_CONTROL, entityTag, noneMatchHits } from '../http/conditional.js';
import { MEDIA_TYPE } from '../http/negotiate.js';
import type { HttpResult } from '../http/result.js';

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': MEDIA_TYPE, vary: 'Accept' });

/**
 * The result of a handler's document: a successful read gets its `ETag` and `Cache-Control`
 * (304 when `If-None-Match` names the tag), and so does any response given the `version` of its
 * primary resource; anything else is the document with the JSON:API headers.
 *
 * @example
 * import { documentBuilder, type RequestState } from './state.js';
 * declare const state: RequestState;
 * declare const article: unknown; // the model a data layer found
 * const [node] = documentBuilder(state).primary(state.resource, [article]);
 * const result = respond(state, { data: node!.object });
 */
export function respond(
  state: RequestState,
  document: Omit<TopLevelDocument, 'jsonapi'>,
  status = 200,
  headers?: Record<string, string>,
  version?: string,
): HttpResult {
  // Nobody is left to read a document that is not yet written.
  state.context.throwIfAborted();
  const serializing = state.trace?.begin('serialize');
  const result = written(state, document, status, headers, version);
  serializing?.end();
  return result;
}

/** The document as JSON text, with its headers (`respond` without the look and the trace). */
function written(
  state: RequestState,
  document: Omit<TopLevelDocument, 'jsonapi'>,
  status: number,
  headers: Record<string, string> | undefined,
  version: string | undefined,
): HttpResult {
  const full = { jsonapi: { version: '1.1' as const }, ...document };
  const read = state.method === 'GET' && status === 200;
  if (!read && version === undefined) return jsonResult(full, status, headers);
  const body = documentJson(full);
  const tag = entityTag(body, version);
  if (!read) return { status, headers: { ...withHeaders(headers), etag: tag }, body };
  const cacheControl = state.cacheControl?.(state.resource.type, state.context) ?? DEFAULT_CACHE_CONTROL;
  if (noneMatchHits(state.context.header('if-none-match'), tag)) {
    // 304 carries what a 200 would have said about caching, and no content headers (RFC 9110 §15.4.5).
    return { status: 304, headers: { etag: tag, 'cache-control': cacheControl, vary: JSON_HEADERS.vary! }, body: null };
  }
  return { status: 200, headers: { ...withHeaders(headers), etag: tag, 'cache-control': cacheControl }, body };
}

/**
 * A document with the JSON:API headers (and `headers`, names lower-cased).
 *
 * @example
 * jsonResult({ jsonapi: { version: '1.1' }, errors: [{ status: '404' }] }, 404);
 */
export function jsonResult(document: TopLevelDocument, status: number, headers?: Record<string, string>): HttpResult {
  return { status, headers: withHeaders(headers), body: documentJson(document) };
}

/** The JSON:API headers plus `headers` (names lower-cased). */
function withHeaders(headers: Record<string, string> | undefined): Readonly<Record<string, string>> {
  if (!headers) return JSON_HEADERS;
  const all: Record<string, string> = { ...JSON_HEADERS };
  for (const name in headers) all[name.toLowerCase()] = headers[name]!;
  return all;
}
