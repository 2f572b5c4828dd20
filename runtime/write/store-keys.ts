/**
 * Keys as SQL stores read them from ids, and the 404s of ids that name no row, shared by the
 * Kysely and Drizzle stores.
 */
import { NotFoundError } from '../core/errors.js';
import type { ResourceIdentifier } from '../core/vocabulary.js';
import { escape } from './payload.js';

const INTEGER = /^(0|[1-9][0-9]{0,9})$/;

/**
 * The default `parseId`: integer keys that fit a 32-bit signed integer column; undefined (no
 * row) for anything else.
 *
 * @example
 * parseIntegerId('42'); // 42
 * parseIntegerId('042'); // undefined
 */
export function parseIntegerId(id: string): number | undefined {
  if (!INTEGER.test(id)) return undefined;
  const n = Number(id);
  return n <= 2_147_483_647 ? n : undefined;
}

/**
 * The key a related resource's id names (by `parseId`), or a 404 `related_not_found` at the
 * relationship `name` when it names none.
 *
 * @example
 * relatedKeyOf(parseIntegerId, { type: 'people', id: 'x' }, 'author'); // throws 404 at /data/relationships/author/data
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
