/** RFC 3339, section 5.6: `date-time`, with `T`/`Z` in either case and any number of fraction digits. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time as UTC with millisecond precision (`2024-01-01T10:00:00+02:00` gives
 * `2024-01-01T08:00:00.000Z`), so that stored texts sort as the instants they name; undefined
 * when `value` is not one. Digits past milliseconds are cut; a leap second (`:60`) and an
 * instant outside the years 0000-9999 are refused (a JavaScript Date holds neither).
 *
 * @example
 * normalizeDateTime('2024-01-01T10:00:00+02:00'); // '2024-01-01T08:00:00.000Z'
 */
export function normalizeDateTime(value: string): string | undefined {
  const m = DATE_TIME.exec(value);
  if (!m || !isRealDate(m[1]!, m[2]!, m[3]!) || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59)
    return undefined;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return undefined;
  // The ECMAScript date-time format has exactly three fraction digits: pad or cut to them.
  const fraction = (m[7] ?? '.').padEnd(4, '0').slice(0, 4);
  const time = Date.parse(`${value.slice(0, 19)}${fraction}${value.slice(19 + (m[7]?.length ?? 0))}`.toUpperCase());
  if (Number.isNaN(time)) return undefined;
  const iso = new Date(time).toISOString();
  return iso.length === 24 ? iso : undefined;
}

/** Whether the digits name a day of the calendar (not 2024-02-30). `setUTCFullYear` keeps years 0-99 as they are (`Date.UTC` would read 1900-1999). */
export function isRealDate(year: string, month: string, day: string): boolean {
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  return (
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day)
  );
}

/**
 * A date-time attribute value in its JSON form: a Date as its ISO text, stored text in the
 * normalized form (text written before normalization, or by other writers, may carry an
 * offset), text that is no date-time as it is, `undefined` as `null`. Text already normalized
 * costs three character tests.
 *
 * @example
 * dateTimeJson('2024-01-01T10:00:00+02:00'); // '2024-01-01T08:00:00.000Z'
 */
export function dateTimeJson(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? dateTimeText(value) : (value ?? null);
}

/**
 * Stored date-time text as responses carry it: normalized (UTC, milliseconds), or as it is when
 * it is no date-time. What generated serializers call.
 *
 * @example
 * dateTimeText('2024-01-01 10:00:00+02'); // as it is: not RFC 3339
 * dateTimeText('2024-01-01T10:00:00+02:00'); // '2024-01-01T08:00:00.000Z'
 */
export function dateTimeText(value: string): string {
  // 'YYYY-MM-DDTHH:mm:ss.sssZ': 24 characters, '.' at 19, 'Z' at 23.
  if (value.length === 24 && value.charCodeAt(23) === 90 && value.charCodeAt(19) === 46) return value;
  return normalizeDateTime(value) ?? value;
}

/**
 * PostgreSQL's `timestamptz` text in a UTC session (`YYYY-MM-DD HH:MM:SS[.f…]+00`) as
 * `YYYY-MM-DDTHH:MM:SS.fffZ`; undefined for any other text. What the SQL stores read date-times as.
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

/** An RFC 3339 date-time with a zone (what the runtime hands a write or a filter: UTC, milliseconds). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * `value` as MySQL's `DATETIME` takes an instant (it has no time zone: the SQL stores keep UTC
 * in it): a `Date` or RFC 3339 text with a zone becomes UTC `YYYY-MM-DD HH:MM:SS.fff` (MariaDB
 * refuses `T...Z`); anything else is left as it is, for the database to judge.
 *
 * @example
 * mysqlDateTime('2024-01-01T10:00:00+02:00'); // '2024-01-01 08:00:00.000'
 */
export function mysqlDateTime(value: unknown): unknown {
  const date =
    value instanceof Date ? value : typeof value === 'string' && RFC3339.test(value) ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) return value;
  const iso = date.toISOString();
  // toISOString writes a year past 9999 with a sign, which DATETIME cannot hold anyway.
  return iso.length === 24 ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}` : value;
}
