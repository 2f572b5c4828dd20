import { ConflictError } from '../core/errors.js';

/**
 * The 409 `unique_violation` of a write that broke a unique constraint of a SQL data layer:
 * at `pointer` (`/data/id`, `/data/attributes/<name>`) when the data layer could tell which
 * member holds the taken value, naming it; otherwise without a source.
 *
 * @example
 * throw uniqueViolation('/data/attributes/name'); // 409: A resource with this name already exists
 */
export function uniqueViolation(pointer: string | undefined): ConflictError {
  return new ConflictError({
    detail: pointer
      ? `A resource with this ${pointer === '/data/id' ? 'id' : pointer.slice(pointer.lastIndexOf('/') + 1)} already exists`
      : 'A resource with these values already exists',
    ...(pointer && { source: { pointer } }),
    code: 'unique_violation',
  });
}
