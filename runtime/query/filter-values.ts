/**
 * A filter's value read by the kind of the field it compares (`filter[createdAt][gte]=...`):
 * numbers, booleans, date-times in UTC, dates, enum members (400 naming the parameter).
 */
import { BadRequestError } from '../core/errors.js';
import { normalizeDateTime, isRealDate } from '../core/date-time.js';
import type { ComparedKind, ConditionValue } from '../dsl/operators.js';

function badValue(parameter: string, detail: string): BadRequestError {
  return new BadRequestError({ detail, source: { parameter }, code: 'invalid_filter_value' });
}

/**
 * One value of `parameter` read by the field's kind: a number for integer and number fields, a
 * boolean for booleans, a date-time normalized to UTC with milliseconds, a calendar date, an enum
 * member; 400 naming `parameter` for anything else.
 *
 * @example
 * readValue('filter[createdAt][gte]', { kind: 'date-time' }, '2024-01-01T10:00:00+02:00'); // '2024-01-01T08:00:00.000Z'
 */
export function readValue(parameter: string, compared: ComparedKind, text: string): ConditionValue {
  switch (compared.kind) {
    case 'integer':
    case 'number': {
      const number = text.trim() === '' ? Number.NaN : Number(text);
      if (!Number.isFinite(number) || (compared.kind === 'integer' && !Number.isInteger(number))) {
        throw badValue(
          parameter,
          `${parameter} must be ${compared.kind === 'integer' ? 'an integer' : 'a number'}, not "${text}"`,
        );
      }
      return number;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        throw badValue(parameter, `${parameter} must be true or false, not "${text}"`);
      return text === 'true';
    case 'date-time': {
      const normalized = normalizeDateTime(text);
      if (normalized === undefined)
        throw badValue(
          parameter,
          `${parameter} must be an RFC 3339 date-time, such as 2024-01-01T10:00:00Z, not "${text}"`,
        );
      return normalized;
    }
    case 'date': {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      if (!m || !isRealDate(m[1]!, m[2]!, m[3]!))
        throw badValue(parameter, `${parameter} must be a date, such as 2024-01-31, not "${text}"`);
      return text;
    }
    case 'enum':
      if (!compared.enumValues?.includes(text))
        throw badValue(parameter, `${parameter} must be one of ${compared.enumValues?.join(', ')}, not "${text}"`);
      return text;
    default:
      return text;
  }
}
