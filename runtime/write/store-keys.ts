/**
 * The 404s of ids that name no row, shared by the SQL stores (Kysely, Drizzle, Prisma); their
 * default id parser is `parseIntegerId` of `runtime/query/sql-conditions.ts`.
 */
import { NotFoundError } from '../core/errors.js';
import type { ResourceIdentifier } from '../core/vocabulary.js';
import { keyText } from '../query/sql-conditions.js';
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

/** One type's ids of an existence check, as keys: each id parsed (undefined: it names no row), and the distinct keys. */
export interface KeyLookup {
  readonly parsed: readonly unknown[];
  readonly keys: readonly unknown[];
}

/**
 * The existence check of the SQL stores (`SharedExistence.exist`), in one statement when every
 * id names a row: `count` counts, for the lookups with keys, how many of each one's keys name
 * a row the request may see (one statement for them all); only for a lookup whose count falls
 * short does `found` read which of its keys do (as `keyText`).
 *
 * @example
 * const lookups = [{ parsed: [1, 2], keys: [1, 2] }];
 * const exist = await countedExistence(lookups, async (counted) => counted.map(() => 1), async () => new Set(['1']));
 * // exist: [[true, false]]
 */
export async function countedExistence<L extends KeyLookup>(
  lookups: readonly L[],
  count: (counted: readonly L[]) => Promise<number[]>,
  found: (lookup: L) => Promise<ReadonlySet<string>>,
): Promise<boolean[][]> {
  const counted = lookups.filter(({ keys }) => keys.length > 0);
  const counts = counted.length === 0 ? [] : await count(counted);
  const answers: boolean[][] = [];
  for (const lookup of lookups) {
    const i = counted.indexOf(lookup);
    if (i === -1 || counts[i] === lookup.keys.length) {
      answers.push(lookup.parsed.map((key) => key !== undefined));
      continue;
    }
    const rows = await found(lookup);
    answers.push(lookup.parsed.map((key) => key !== undefined && rows.has(keyText(key))));
  }
  return answers;
}
