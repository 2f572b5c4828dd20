import { describe, expect, test } from 'vitest';
import { toJsonValue } from './builder.js';

describe('toJsonValue', () => {
  const when = new Date(Date.UTC(2024, 1, 29, 23, 59, 1));
  test.each([
    ['date-time', when, '2024-02-29T23:59:01.000Z'],
    ['date', when, '2024-02-29'],
    ['string', undefined, null],
    ['integer', 0, 0],
    ['array', ['a'], ['a']],
    // Number text, as node-postgres reads bigint and numeric columns, as the declared number.
    ['integer', '42', 42],
    ['integer', '-7', -7],
    ['integer', '9007199254740991', 9007199254740991],
    ['integer', '9007199254740993', '9007199254740993'], // past 2^53: kept whole, as text
    ['integer', '1.5', '1.5'], // not an integer: left as the data layer gave it
    ['integer', '42.00', 42],
    ['integer', '1.0000000000000001', '1.0000000000000001'],
    ['integer', '1e3', '1e3'],
    ['number', '1.50', 1.5],
    ['number', '-0.25e2', -25],
    ['number', '19.90', 19.9],
    ['number', '123456789012345', 123456789012345],
    ['number', '0.000', 0],
    // More digits than a double holds, or a value it cannot hold: kept whole, as text.
    ['number', '9007199254740993', '9007199254740993'],
    ['number', '0.30000000000000001', '0.30000000000000001'],
    ['number', '1234567890.1234567891', '1234567890.1234567891'],
    ['number', '1e-400', '1e-400'],
    ['number', '1e999', '1e999'],
    ['number', 'NaN', 'NaN'],
    ['number', ' 42', ' 42'],
    ['string', '42', '42'],
  ] as const)('%s %j', (kind, value, json) => {
    expect(toJsonValue(kind, value)).toEqual(json);
  });
});
