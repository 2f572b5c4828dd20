/**
 * Idempotent retries (the IETF httpapi `Idempotency-Key` draft) for `POST` to a collection and
 * to an extension (`/operations`): the first request's response is stored under its key, scoped
 * to the caller; a retry with the same key and the same request gets that response without
 * running the write again. The store is the host's (the Kysely integration keeps keys in a
 * table), so any process can answer the retry.
 */
import type { Context } from '../context.js';
import { entityTag } from '../http/conditional.js';
import { JsonApiError } from '../errors.js';
import { type HttpRequest, withBody } from '../http/request.js';
import type { HttpResult } from '../http/result.js';
import type { Limits } from '../limits.js';
import { tooLarge } from './body.js';

/** A response as the store keeps it: the runtime's result (status, lower-case headers, body text). */
export type StoredResponse = HttpResult;

/** What a claim of a key found. */
export type IdempotencyClaim =
  | { state: 'new' }
  | { state: 'in-flight' }
  | { state: 'mismatch' }
  | { state: 'done'; response: StoredResponse };

/**
 * Where keys and their responses live; each method is atomic across processes.
 *
 * @example
 * new JsonApi({ idempotency: { store: kyselyIdempotency(db), scope: (ctx) => ctx.getAttribute('user') } });
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for a request whose content is `fingerprint`: `new` when nobody had it (it is
   * now in flight), else what the earlier request left (`mismatch` when it was another request).
   */
  claim(key: string, fingerprint: string): Promise<IdempotencyClaim>;
  /** Stores the response of a claimed key. */
  complete(key: string, response: StoredResponse): Promise<void>;
  /** Forgets a claimed key whose request failed on the server's side, so that a retry runs. */
  release(key: string): Promise<void>;
}

/** The `idempotency` option of `JsonApi`. */
export interface IdempotencyOptions {
  store: IdempotencyStore;
  /**
   * Whose keys: a key is looked up per caller (e.g. the `user` context attribute), so two
   * callers never see each other's responses. Default: one scope for all.
   */
  scope?: (context: Context) => string | undefined;
}

/** Visible ASCII, at most 255 characters (the draft's sf-string, without its quotes). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Serves `request` (which carries `Idempotency-Key`) through `serve` at most once per key and
 * request content: a retry gets the stored response with `Idempotency-Replayed: true`; the
 * same key for another request is 422, while the first is still running 409.
 */
export async function serveIdempotently(
  request: HttpRequest,
  context: Context,
  options: IdempotencyOptions,
  limits: Limits,
  serve: (request: HttpRequest) => Promise<HttpResult>,
): Promise<HttpResult> {
  const header = request.header('idempotency-key')!.trim();
  const key = header.startsWith('"') && header.endsWith('"') && header.length > 1 ? header.slice(1, -1) : header;
  if (!KEY.test(key)) {
    throw new JsonApiError(400, { detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters', source: { header: 'Idempotency-Key' }, code: 'invalid_idempotency_key' });
  }
  const declared = request.header('content-length');
  if (declared !== null && Number(declared) > limits.bodyBytes) throw tooLarge(limits.bodyBytes);
  const bytes = await request.body(limits.bodyBytes);
  if (bytes === undefined) throw tooLarge(limits.bodyBytes);
  // Length-prefixed, so that no scope and key pair reads as another (and no NUL, which PostgreSQL text refuses).
  const scope = options.scope?.(context) ?? '';
  const scoped = `${scope.length}:${scope}:${key}`;
  const fingerprint = entityTag(`${request.method} ${request.url}\n${request.header('content-type') ?? ''}\n${new TextDecoder().decode(bytes)}`);
  const claim = await options.store.claim(scoped, fingerprint);
  if (claim.state === 'done') {
    return { ...claim.response, headers: { ...claim.response.headers, 'idempotency-replayed': 'true' } };
  }
  if (claim.state === 'mismatch') {
    throw new JsonApiError(422, { detail: 'This Idempotency-Key was used for another request', source: { header: 'Idempotency-Key' }, code: 'idempotency_key_reused' });
  }
  if (claim.state === 'in-flight') {
    throw new JsonApiError(409, { detail: 'A request with this Idempotency-Key is still being processed: retry later', source: { header: 'Idempotency-Key' }, code: 'idempotency_key_in_flight' });
  }
  let result: HttpResult;
  try {
    result = await serve(withBody(request, bytes, (name) => (name.toLowerCase() === 'idempotency-key' ? null : request.header(name))));
  } catch (error) {
    await options.store.release(scoped);
    throw error;
  }
  if (result.status >= 500) {
    await options.store.release(scoped);
    return result;
  }
  await options.store.complete(scoped, result);
  return result;
}
