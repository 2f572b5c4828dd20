import type { Context } from '../dsl/context.js';
import { DocumentBuilder } from '../document/builder.js';
import type { Limits } from '../core/limits.js';
import type { Outbox } from '../dsl/outbox.js';
import type { QueryParameters } from '../query/parse.js';
import type { RegisteredResource, ResourceLookup } from '../registry/registry.js';
import type { Route } from '../http/router.js';
import type { Trace } from './trace.js';

/** What a promise settled with. */
export type Settled<T> = { value: T } | { error: unknown };

/**
 * Everything a handler needs about the request it serves: plain values the pipeline worked out
 * before the handler runs (the route, the parsed query, the body being read).
 */
export interface RequestState {
  context: Context;
  /** GET for HEAD. */
  method: string;
  route: Route;
  resource: RegisteredResource;
  query: QueryParameters;
  lookup: ResourceLookup;
  limits: Limits;
  /** Origin plus base path: the prefix of every link. */
  baseUrl: string;
  /**
   * The request body as JSON, read before the handler runs (settled: a bad body's 400 or 413 is
   * thrown where the handler asks for it, see `requestBody`); undefined for a request without one.
   */
  body: Settled<unknown> | Promise<Settled<unknown>> | undefined;
  /** The `Cache-Control` of a successful read (the API's `cacheControl` option). */
  cacheControl: ((type: string, context: Context) => string) | undefined;
  /**
   * What runs once the request's unit of work committed (`saved`, `deleted` hooks); shared by
   * the operations of an Atomic Operations batch, run after the batch.
   */
  afterCommit: AfterCommit;
  /** The request's trace, when the API traces (`instrument`, `serverTiming`). */
  trace?: Trace | undefined;
  /** The API's `outbox` option: successful writes of its types are recorded in the transaction. */
  outbox?: Outbox | undefined;
}

/** Tasks queued to run after commit, in order; failures go to the API's `onError`. */
export type AfterCommit = Array<() => unknown>;

/**
 * The request body as JSON (400/413 for a bad one, thrown here); a promise until it has been read.
 *
 * @example
 * declare const state: RequestState;
 * const body = await requestBody(state);
 */
export function requestBody(state: RequestState): unknown {
  const body = state.body;
  if (!body) throw new TypeError(`${state.method} requests have no body to read`);
  return body instanceof Promise ? body.then(valueOf) : valueOf(body);
}

/** A document builder for this request's links and sparse fieldsets. */
export function documentBuilder(state: RequestState): DocumentBuilder {
  return new DocumentBuilder(state.context, state.lookup, state.baseUrl, state.query.fields, state.query.withCount);
}

/** A promise that never rejects: its value, or what it threw, for whoever asks later. */
export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/** The value a promise settled with, or what it threw, thrown again. */
function valueOf<T>(settled: Settled<T>): T {
  if ('error' in settled) throw settled.error;
  return settled.value;
}
