/** The HTTP statuses a JSON:API error may carry. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 406 | 409 | 412 | 413 | 414 | 415 | 422 | 428 | 500 | 503;

/** Where an error comes from: a JSON Pointer into the request body, a query parameter or a header. */
export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

/** One error object as it appears in an errors document. */
export interface ErrorObject {
  status: string;
  code?: string;
  title: string;
  detail?: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
  /** `type`: a link to what this kind of error means (a profile's error type). */
  links?: { type?: string };
}

/** What an error is made of. */
export interface ErrorInit {
  code?: string;
  detail?: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
  /** `links.type` of the error object: the URI of the error type it is (JSON:API 1.1), such as a profile's. */
  type?: string;
  /** Extra response headers, such as `Allow` on a 405. */
  headers?: Record<string, string>;
}

const TITLES: Record<ErrorStatus, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * An error that knows how to become a JSON:API errors document. Throw it from a data layer,
 * a filter or a callback and `api.error()` answers with its status.
 *
 * @example
 * throw new JsonApiError(404, { detail: 'No article 7', source: { parameter: 'id' } });
 */
export class JsonApiError extends Error {
  readonly status: ErrorStatus;
  readonly title: string;
  readonly code: string | undefined;
  readonly detail: string | undefined;
  readonly source: ErrorSource | undefined;
  readonly meta: Record<string, unknown> | undefined;
  readonly type: string | undefined;
  readonly headers: Record<string, string>;

  constructor(status: ErrorStatus, init: ErrorInit = {}) {
    super(init.detail ?? TITLES[status]);
    this.name = 'JsonApiError';
    this.status = status;
    this.title = TITLES[status];
    this.code = init.code;
    this.detail = init.detail;
    this.source = init.source;
    this.meta = init.meta;
    this.type = init.type;
    this.headers = init.headers ?? {};
  }

  /** The error object of an errors document. */
  toObject(): ErrorObject {
    const object: ErrorObject = { status: String(this.status), title: this.title };
    if (this.code !== undefined) object.code = this.code;
    if (this.detail !== undefined) object.detail = this.detail;
    if (this.source !== undefined) object.source = this.source;
    if (this.meta !== undefined) object.meta = this.meta;
    if (this.type !== undefined) object.links = { type: this.type };
    return object;
  }
}

/** 400: the request is malformed (a bad query parameter, an unreadable body). */
export class BadRequestError extends JsonApiError {
  constructor(init: ErrorInit = {}) {
    super(400, init);
  }
}

/**
 * The 400 of a query parameter that cannot be read (`code: 'invalid_query_parameter'`).
 *
 * @example
 * throw invalidParameter('sort', '"title," has an empty sort field');
 */
export function invalidParameter(parameter: string, detail: string): BadRequestError {
  return new BadRequestError({ detail, source: { parameter }, code: 'invalid_query_parameter' });
}

/** 403: the action is understood but refused (an invisible endpoint, an unsupported write). */
export class ForbiddenError extends JsonApiError {
  constructor(init: ErrorInit = {}) {
    super(403, init);
  }
}

/** 404: no such resource, relationship or route. */
export class NotFoundError extends JsonApiError {
  constructor(init: ErrorInit = {}) {
    super(404, init);
  }
}

/** 405: the route exists but not for this method; `allow` fills the `Allow` header. */
export class MethodNotAllowedError extends JsonApiError {
  constructor(allow: readonly string[], init: ErrorInit = {}) {
    super(405, { ...init, headers: { ...init.headers, allow: allow.join(', ') } });
  }
}

/** 406: the `Accept` header leaves no JSON:API media type the server can send. */
export class NotAcceptableError extends JsonApiError {
  constructor(init: ErrorInit = {}) {
    super(406, init);
  }
}

/** 409: the request conflicts with the server's state or the URL (a wrong `type`, a duplicate id). */
export class ConflictError extends JsonApiError {
  constructor(init: ErrorInit = {}) {
    super(409, init);
  }
}

/** 415: the request body's `Content-Type` is not the JSON:API media type the server accepts. */
export class UnsupportedMediaTypeError extends JsonApiError {
  constructor(init: ErrorInit = {}) {
    super(415, init);
  }
}

/** 422: the document is well formed but its values are not acceptable. */
export class UnprocessableEntityError extends JsonApiError {
  constructor(init: ErrorInit = {}) {
    super(422, init);
  }
}

/**
 * Several errors answered together, under the most general status they share
 * (all 422 stay 422; a mix of 4xx becomes 400).
 *
 * @example
 * throw new JsonApiErrors([new UnprocessableEntityError({ source: { pointer: '/data/attributes/title' } })]);
 */
export class JsonApiErrors extends Error {
  readonly errors: readonly JsonApiError[];

  constructor(errors: readonly JsonApiError[]) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'JsonApiErrors';
    this.errors = errors;
  }

  /** The status of the whole response. */
  get status(): ErrorStatus {
    const statuses = new Set(this.errors.map((e) => e.status));
    if (statuses.size === 1) return [...statuses][0]!;
    return [...statuses].some((s) => s >= 500) ? 500 : 400;
  }
}

/**
 * The last error of a list cut at `limit`: `more` errors were left out, or (no `more`) checking
 * stopped there and there are more. It carries `status`, the status of the errors it stands for.
 *
 * @example
 * declare const errors: JsonApiError[]; // 422s, more than 100 of them
 * new JsonApiErrors([...errors.slice(0, 100), tooManyErrors(422, 100, errors.length - 100)]);
 */
export function tooManyErrors(status: ErrorStatus, limit: number, more?: number): JsonApiError {
  const detail =
    more === undefined
      ? `Checking the request stopped after finding more than ${limit} errors; not all of them are listed`
      : `${more} more error${more === 1 ? ' was' : 's were'} found and not listed: an answer lists at most ${limit}`;
  return new JsonApiError(status, {
    detail,
    code: 'too_many_errors',
    meta: more === undefined ? { limit } : { limit, more },
  });
}

/**
 * `errors` as one `JsonApiErrors` of at most `limit` errors and, past it, a `tooManyErrors` one:
 * with the count left out, or (when `stopped`: the check gave up early) saying there are more.
 *
 * @example
 * declare const errors: JsonApiError[]; // what checking a request document found
 * declare const stoppedEarly: boolean; // whether the check gave up before the end
 * if (errors.length > 0) throw cappedErrors(errors, DEFAULT_LIMITS.errors, stoppedEarly);
 */
export function cappedErrors(errors: readonly JsonApiError[], limit: number, stopped = false): JsonApiErrors {
  if (errors.length <= limit && !stopped) return new JsonApiErrors(errors);
  const listed = errors.slice(0, limit);
  const status = errors[Math.min(limit, errors.length - 1)]!.status;
  return new JsonApiErrors([...listed, tooManyErrors(status, limit, stopped ? undefined : errors.length - limit)]);
}
