/**
 * Idempotent retries (the IETF httpapi `Idempotency-Key` draft) for `POST` to a collection and
 * to an extension (`/operations`): the first request's response is stored under its key, scoped
 * to the caller; a retry with the same key and the same request gets that response without
 * running the write again. The store is the host's (the Kysely integration keeps keys in a
 * table), so any process can answer the retry.
 */
import type { Context } from './context.js';
import { entityTag } from './conditional.js';
import { JsonApiError } from './errors.js';

/** A response as the store keeps it. */
export interface StoredResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | null;
}

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
  request: Request,
  context: Context,
  options: IdempotencyOptions,
  serve: (request: Request) => Promise<Response>,
): Promise<Response> {
  const header = request.headers.get('idempotency-key')!.trim();
  const key = header.startsWith('"') && header.endsWith('"') && header.length > 1 ? header.slice(1, -1) : header;
  if (!KEY.test(key)) {
    throw new JsonApiError(400, { detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters', source: { header: 'Idempotency-Key' }, code: 'invalid_idempotency_key' });
  }
  const body = await request.text();
  // Length-prefixed, so that no scope and key pair reads as another (and no NUL, which PostgreSQL text refuses).
  const scope = options.scope?.(context) ?? '';
  const scoped = `${scope.length}:${scope}:${key}`;
  const fingerprint = entityTag(`${request.method} ${request.url}\n${request.headers.get('content-type') ?? ''}\n${body}`);
  const claim = await options.store.claim(scoped, fingerprint);
  if (claim.state === 'done') {
    return new Response(claim.response.body, { status: claim.response.status, headers: { ...claim.response.headers, 'idempotency-replayed': 'true' } });
  }
  if (claim.state === 'mismatch') {
    throw new JsonApiError(422, { detail: 'This Idempotency-Key was used for another request', source: { header: 'Idempotency-Key' }, code: 'idempotency_key_reused' });
  }
  if (claim.state === 'in-flight') {
    throw new JsonApiError(409, { detail: 'A request with this Idempotency-Key is still being processed: retry later', source: { header: 'Idempotency-Key' }, code: 'idempotency_key_in_flight' });
  }
  let response: Response;
  try {
    const headers = new Headers(request.headers);
    headers.delete('idempotency-key');
    response = await serve(new Request(request.url, { method: request.method, headers, body, signal: request.signal }));
  } catch (error) {
    await options.store.release(scoped);
    throw error;
  }
  if (response.status >= 500) {
    await options.store.release(scoped);
    return response;
  }
  const stored: StoredResponse = { status: response.status, headers: Object.fromEntries(response.headers), body: response.status === 204 ? null : await response.text() };
  await options.store.complete(scoped, stored);
  return new Response(stored.body, { status: stored.status, headers: stored.headers });
}
