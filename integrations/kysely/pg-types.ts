/**
 * `timestamptz` read from PostgreSQL as the text responses carry (RFC 3339, UTC, milliseconds)
 * instead of a `Date`: node-postgres's default parses the wire text into a Date, which the
 * serializer then prints back; this reads the text once. Public node-postgres API only: the
 * `types` option of a Pool or Client.
 */
import { utcText } from 'jsonapi-gen/internal';

export { utcText } from 'jsonapi-gen/internal';

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
