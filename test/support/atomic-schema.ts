/**
 * Validation of Atomic Operations documents against test/schemas/atomic-unofficial.
 *
 * @example
 * expectValidAtomicDocument(await response.json());
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

const schema = JSON.parse(
  readFileSync(new URL('../schemas/atomic-unofficial/atomic.schema.json', import.meta.url), 'utf8'),
) as object;
const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);

/** Fails the test unless `document` is a valid Atomic Operations document. */
export function expectValidAtomicDocument(document: unknown): void {
  const valid = validate(document);
  expect(valid ? [] : validate.errors, JSON.stringify(document)).toEqual([]);
}
