/**
 * What the pipeline answers: status, headers and body text. `api.handle` and `api.fetch` make a
 * Fetch `Response` of it; the Node adapter writes it to the socket as it is.
 */

/**
 * A response as the runtime makes it.
 *
 * @example
 * const result: HttpResult = { status: 204, headers: {}, body: null };
 */
export interface HttpResult {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body text, or null for none. */
  readonly body: string | null;
}

/**
 * The Fetch `Response` of a result.
 *
 * @example
 * declare const api: JsonApi;
 * declare const request: Request;
 * const response = toResponse(await api.serve(fromFetch(request)));
 */
export function toResponse(result: HttpResult): Response {
  return new Response(result.body, { status: result.status, headers: result.headers });
}

/** 204 No Content. */
export const NO_CONTENT: HttpResult = Object.freeze({ status: 204, headers: Object.freeze({}), body: null });

/** The same result without its body (HEAD), headers kept. */
export function withoutBody(result: HttpResult): HttpResult {
  return result.body === null ? result : { status: result.status, headers: result.headers, body: null };
}
