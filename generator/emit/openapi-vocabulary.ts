/**
 * The OpenAPI emitters' small vocabulary: media types, `$ref`s into `components`, and the
 * named error responses every operation points at.
 */
import type { ReferenceObject, ResponsesObject, SchemaObject } from 'openapi3-ts/oas31';

export const MEDIA_TYPE = 'application/vnd.api+json';

/** The Atomic Operations extension's URI, and the media type its documents travel under. */
export const ATOMIC_URI = 'https://jsonapi.org/ext/atomic';
export const ATOMIC_MEDIA_TYPE = `${MEDIA_TYPE}; ext="${ATOMIC_URI}"`;

/** `#/components/schemas/<name>`. */
export const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/** `#/components/parameters/<name>`. */
export const parameterRef = (name: string): ReferenceObject => ({ $ref: `#/components/parameters/${name}` });

/** A body or response content of one media type. */
export const content = (schema: SchemaObject | ReferenceObject, mediaType = MEDIA_TYPE) => ({
  [mediaType]: { schema },
});

/** The error statuses a JSON:API endpoint may answer, each a named response of an errors document. */
export const ERROR_RESPONSES = {
  '400': [
    'BadRequest',
    'Bad Request: a malformed document or query parameter (`source.pointer` or `source.parameter` names it).',
  ],
  '403': [
    'Forbidden',
    'Forbidden: the request is not allowed (an endpoint callback, a read-only field, a client-generated id).',
  ],
  '404': [
    'NotFound',
    'Not Found: the resource, or a related resource the document names (`source.pointer`), does not exist.',
  ],
  '406': ['NotAcceptable', 'Not Acceptable: the Accept header allows no media type the server answers.'],
  '409': ['Conflict', 'Conflict: a type or id that does not match the endpoint, or a value that must be unique.'],
  '413': ['ContentTooLarge', 'Content Too Large: the request body is larger than the server accepts.'],
  '415': [
    'UnsupportedMediaType',
    'Unsupported Media Type: the body is not sent as the JSON:API media type (with only supported extensions).',
  ],
  '422': [
    'UnprocessableContent',
    'Unprocessable Content: field values that fail validation, each error pointing at its member.',
  ],
  '500': ['Error', 'An unexpected error; the errors document says nothing of it.'],
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

const errorRef = (status: ErrorStatus): ReferenceObject => ({
  $ref: `#/components/responses/${ERROR_RESPONSES[status][0]}`,
});

/** The success responses, then each error status by reference, and always 500. */
export function responses(success: ResponsesObject, errors: readonly ErrorStatus[]): ResponsesObject {
  return {
    ...success,
    ...Object.fromEntries(errors.map((status) => [status, errorRef(status)])),
    '500': errorRef('500'),
  };
}
