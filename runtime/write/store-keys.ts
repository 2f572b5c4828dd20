/**
 * The 404s of ids that name no row, shared by the SQL stores (Kysely, Drizzle, Prisma); their
 * default id parser is `parseIntegerId` of `runtime/query/sql-conditions.ts`.
 */
import { NotFoundError } from '../core/errors.js';
import type { ResourceIdentifier } from '../core/vocabulary.js';
import { escape } from './payload.js';

/**
 * The key a related resource's id names (by `parseId`), or a 404 `related_not_found` at the
 * relationship `name` when it names none.
 *
 * @example
 * const parseId = (id: string) => (/^[1-9][0-9]*$/.test(id) ? Number(id) : undefined);
 * relatedKeyOf(parseId, { type: 'people', id: 'x' }, 'author'); // throws 404 at /data/relationships/author/data
 */
export function relatedKeyOf(parseId: (id: string) => unknown, identifier: ResourceIdentifier, name: string): unknown {
  const key = parseId(identifier.id);
  if (key === undefined)
    throw new NotFoundError({
      detail: `There is no resource of type "${identifier.type}" with id "${identifier.id}"`,
      source: { pointer: `/data/relationships/${escape(name)}/data` },
      code: 'related_not_found',
    });
  return key;
}

/**
 * The 404 of a row another request deleted after this one found it.
 *
 * @example
 * throw goneError('articles', 7);
 */
export function goneError(type: string, key: unknown): NotFoundError {
  return new NotFoundError({ detail: `There is no resource of type "${type}" with id "${String(key)}"` });
}
