/**
 * `timestamptz` read from PostgreSQL as the text responses carry (RFC 3339, UTC, milliseconds)
 * instead of a `Date`: node-postgres's default parses the wire text into a Date, which the
 * serializer then prints back; this reads the text once. Public node-postgres API only: the
 * `types` option of a Pool or Client.
 */

/** node-postgres's type parsers (`pg.types`), or the subset a `types` option needs. */
export interface PgTypeParsers {
  getTypeParser(oid: number, format?: 'text' | 'binary'): unknown;
}

/** PostgreSQL's type OID of `timestamptz` (pg_type). */
const TIMESTAMPTZ = 1184;

/**
 * node-postgres type parsers that read `timestamptz` as RFC 3339 UTC text with milliseconds
 * (`2024-01-05T04:00:00.000Z`), the form JSON:API responses carry, and every other type as
 * `fallback` does. The session's wire form for UTC (`2024-01-05 04:00:00+00`, with up to six
 * fraction digits, cut to three) is rewritten by slicing; another offset goes through
 * `fallback`'s parser and back to text; what RFC 3339 cannot write (BC, a year past 9999,
 * `infinity`) stays what `fallback` gives. Set the session's time zone to UTC
 * (`options: '-c TimeZone=UTC'`) for the fast path. Your own queries through that pool then get
 * such text, not Dates, for `timestamptz` columns.
 *
 * @example
 * import pg from 'pg';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, options: '-c TimeZone=UTC', types: dateTimeText(pg.types) });
 */
export function dateTimeText(fallback: PgTypeParsers): PgTypeParsers {
  const slow = fallback.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown;
  const timestamptz = (text: string): unknown => utcText(text) ?? rfc3339(slow(text));
  return {
    getTypeParser: (oid, format) =>
      oid === TIMESTAMPTZ && format !== 'binary' ? timestamptz : fallback.getTypeParser(oid, format),
  };
}

/** A parsed Date as RFC 3339 text when its year has four digits; anything else as it is. */
function rfc3339(value: unknown): unknown {
  if (!(value instanceof Date)) return value;
  const year = value.getUTCFullYear();
  return year >= 0 && year <= 9999 ? value.toISOString() : value;
}

/**
 * `YYYY-MM-DD HH:MM:SS[.f…]+00` as `YYYY-MM-DDTHH:MM:SS.fffZ`; undefined for any other text.
 *
 * @example
 * utcText('2024-01-05 04:00:00.5+00'); // '2024-01-05T04:00:00.500Z'
 */
export function utcText(text: string): string | undefined {
  const n = text.length;
  // Date at 0-9 (four-digit year), a space at 10, time at 11-18, '+00' at the end: nothing else
  // (another offset, '+00:30', ' BC', a five-digit year) takes this path.
  if (n < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58) return undefined;
  if (text.charCodeAt(n - 3) !== 43 || text.charCodeAt(n - 2) !== 48 || text.charCodeAt(n - 1) !== 48) return undefined;
  const date = text.slice(0, 10);
  const time = text.slice(11, 19);
  if (n === 22) return `${date}T${time}.000Z`;
  if (text.charCodeAt(19) !== 46 || n > 29) return undefined;
  return `${date}T${time}.${text
    .slice(20, n - 3)
    .padEnd(3, '0')
    .slice(0, 3)}Z`;
}
