/**
 * Idempotent retries (the IETF httpapi `Idempotency-Key` draft) for `POST` to a collection and
 * to an extension (`/operations`): the first request's response is stored under its key, scoped
 * to the caller; a retry with the same key and the same request gets that response without
 * running the write again. The store is the host's (the Kysely integration keeps keys in a
 * table), so any process can answer the retry.
 */
import type { Context } from '../dsl/context.js';
import { entityTag } from '../http/conditional.js';
import { JsonApiError } from '../core/errors.js';
import { type HttpRequest, withBody } from '../http/request.js';
import type { HttpResult } from '../http/result.js';
import type { Limits } from '../core/limits.js';
import { tooLarge } from './body.js';

/** A response as the store keeps it: the runtime's result (status, lower-case headers, body text). */
export type StoredResponse = HttpResult;

/** What a claim of a key found. */
export type IdempotencyClaim =
  { state: 'new' } | { state: 'in-flight' } | { state: 'mismatch' } | { state: 'done'; response: StoredResponse };

/**
 * Where keys and their responses live; each method is atomic across processes.
 *
 * @example
 * import { kyselyIdempotency } from '@jsonapi-gen/kysely';
 * import { db } from './db.js';
 * new JsonApi({ idempotency: { store: kyselyIdempotency(db), scope: (ctx) => ctx.getAttribute('user') } });
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for a request whose content is `fingerprint`: `new` when nobody had it (it is
   * now in flight), else what the earlier request left (`mismatch` when it was another request).
   */
  claim(key: string, fingerprint: string): Promise<IdempotencyClaim>;
  /**
   * Stores the response of a claimed key. `claim`: what `claim` answered this request (a store
   * whose claims can be taken over stores only while its claim holds).
   */
  complete(key: string, response: StoredResponse, claim: IdempotencyClaim): Promise<void>;
  /**
   * Forgets a claimed key whose request failed on the server's side, so that a retry runs. When
   * it fails too (the store is down), the request's own failure is what the client gets, and the
   * key is left to the store: a store should let a retry take over a claim whose request ended
   * without writing (the Kysely store: after its lease).
   */
  release(key: string, claim: IdempotencyClaim): Promise<void>;
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

/**
 * The 409 for a key another request holds: what the runtime answers for an `in-flight` claim,
 * and what a store throws when a retry took its claim over (the request outlived its lease).
 *
 * @example
 * throw keyInFlight();
 */
export function keyInFlight(): JsonApiError {
  return new JsonApiError(409, {
    detail: 'A request with this Idempotency-Key is still being processed: retry later',
    source: { header: 'Idempotency-Key' },
    code: 'idempotency_key_in_flight',
  });
}

/** A key this process has claimed, for the request being served under it. */
export interface HeldKey {
  store: IdempotencyStore;
  /** The key as the store knows it (scoped to the caller). */
  key: string;
  /** What `claim` answered (`state: 'new'`), as the store made it: stores may tell their claims apart by it. */
  claim: IdempotencyClaim;
}

/** The inner request `serveIdempotently` serves -> the key it holds, for the request's transaction (see `heldKeyOf`). */
const held = new WeakMap<HttpRequest, HeldKey>();

/**
 * The idempotency key the request (`ctx.http`) is served under, while it is: a store that keeps
 * keys in the request's database marks its claim inside the request's transaction, so that a
 * claim whose write committed is never taken over (the Kysely integration's `kyselyTransaction`).
 *
 * @example
 * declare const ctx: Context;
 * const held = heldKeyOf(ctx.http); // undefined without an Idempotency-Key
 */
export function heldKeyOf(request: HttpRequest): HeldKey | undefined {
  return held.get(request);
}

/** Forgets a key after a failure; failing to (the store is unreachable) leaves it to the store's lease. */
async function releaseQuietly(store: IdempotencyStore, key: string, claim: IdempotencyClaim): Promise<void> {
  try {
    await store.release(key, claim);
  } catch {
    // The store is down too: what the client gets is the request's own failure.
  }
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
    throw new JsonApiError(400, {
      detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
      source: { header: 'Idempotency-Key' },
      code: 'invalid_idempotency_key',
    });
  }
  const declared = request.header('content-length');
  if (declared !== null && Number(declared) > limits.bodyBytes) throw tooLarge(limits.bodyBytes);
  const bytes = await request.body(limits.bodyBytes);
  if (bytes === undefined) throw tooLarge(limits.bodyBytes);
  // Length-prefixed, so that no scope and key pair reads as another (and no NUL, which PostgreSQL text refuses).
  const scope = options.scope?.(context) ?? '';
  const scoped = `${scope.length}:${scope}:${key}`;
  const fingerprint = entityTag(
    `${request.method} ${request.url}\n${request.header('content-type') ?? ''}\n${new TextDecoder().decode(bytes)}`,
  );
  const claim = await options.store.claim(scoped, fingerprint);
  if (claim.state === 'done') {
    return { ...claim.response, headers: { ...claim.response.headers, 'idempotency-replayed': 'true' } };
  }
  if (claim.state === 'mismatch') {
    throw new JsonApiError(422, {
      detail: 'This Idempotency-Key was used for another request',
      source: { header: 'Idempotency-Key' },
      code: 'idempotency_key_reused',
    });
  }
  if (claim.state === 'in-flight') throw keyInFlight();
  let result: HttpResult;
  const inner = withBody(request, bytes, (name) =>
    name.toLowerCase() === 'idempotency-key' ? null : request.header(name),
  );
  held.set(inner, { store: options.store, key: scoped, claim });
  try {
    result = await serve(inner);
  } catch (error) {
    await releaseQuietly(options.store, scoped, claim);
    throw error;
  }
  if (result.status >= 500) {
    await releaseQuietly(options.store, scoped, claim);
    return result;
  }
  try {
    await options.store.complete(scoped, result, claim);
  } catch {
    // The write is done: its response is the truth, though the store could not keep it for a retry.
  }
  return result;
}
