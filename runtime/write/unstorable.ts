import { UnprocessableEntityError } from '../core/errors.js';
import { escape } from './payload.js';

/**
 * The 422 for a value the database would not store, for SQL data layers, pointing at the
 * attribute most likely to hold it: by the SQLSTATE `code` (PostgreSQL: 22021 a NUL character,
 * 54000 and 22001 a value too long for the column or its index; any other class 22 code a value
 * the column cannot hold), among the attribute `values` the write sent.
 *
 * @example
 * unstorable('22021', { title: 'a\u0000b' }); // 422 at /data/attributes/title, code invalid_value
 */
export function unstorable(code: string, values: Readonly<Record<string, unknown>>): UnprocessableEntityError {
  const strings = Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  const at = (name: string | undefined, why: string, problem: string) =>
    new UnprocessableEntityError({
      detail: name ? `${name} ${why}` : `A value ${why}`,
      source: { pointer: name ? `/data/attributes/${escape(name)}` : '/data/attributes' },
      code: problem,
    });
  // 22021: PostgreSQL's text cannot hold U+0000.
  const nul = strings.find(([, value]) => value.includes('\u0000'));
  if (code === '22021' && nul)
    return at(nul[0], 'contains a NUL character (U+0000), which the database cannot store', 'invalid_value');
  if (code === '54000' || code === '22001') {
    const longest = strings.sort((a, b) => b[1].length - a[1].length)[0];
    return at(longest?.[0], 'is too long for the database to store (or index)', 'value_too_large');
  }
  return at(nul?.[0], 'cannot be stored in its column', 'invalid_value');
}
