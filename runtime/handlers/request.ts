import type { HttpResult } from '../http/result.js';
import type { Context } from '../context.js';
import type { Limits } from '../limits.js';
import type { DocumentBuilder, ResourceLookup } from '../document.js';
import type { TopLevelDocument } from '../vocabulary.js';
import type { QueryParameters } from '../query.js';
import type { RegisteredResource } from '../registry.js';
import type { Route } from '../router.js';
import type { MaybePromise } from '../types.js';

/** Everything a handler needs about the request it serves. */
export interface RequestState {
  context: Context;
  route: Route;
  resource: RegisteredResource;
  query: QueryParameters;
  lookup: ResourceLookup;
  limits: Limits;
  /** Origin plus base path: the prefix of every link. */
  baseUrl: string;
  /** The request body as JSON, read once (400/413 for a bad one, thrown here); a promise until it has been read. */
  body(): MaybePromise<unknown>;
  /** A document builder for this request. */
  builder(): DocumentBuilder;
  /**
   * The response of a document; a successful read gets its `ETag` (304 when `If-None-Match`
   * names it), and so does any response given the `version` of its primary resource.
   */
  respond(document: Omit<TopLevelDocument, 'jsonapi'>, status?: number, headers?: Record<string, string>, version?: string): HttpResult;
}
