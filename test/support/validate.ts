/**
 * Validation of JSON:API response documents against the official JSON:API 1.1 JSON Schema
 * (`test/schemas/1.1-draft/schema.json`, draft 2020-12).
 *
 * @example
 * const doc = await json(response);           // asserts Content-Type, parses, validates
 * expectValidDocument({ jsonapi: { version: '1.1' }, data: null });
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { expect } from 'vitest';

const MEDIA_TYPE = 'application/vnd.api+json';

const schema = JSON.parse(readFileSync(new URL('../schemas/1.1-draft/schema.json', import.meta.url), 'utf8')) as object;

// ajv-formats is CommonJS: under NodeNext its default export arrives as `.default` of the module.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const formats = ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } };
const addFormats: FormatsPlugin = typeof formats.default === 'function' ? formats.default : formats.default.default;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validateDocument = ajv.compile(schema);

/** Any JSON:API document, loosely typed for assertions. */
export type Doc = Record<string, any>;

/** The schema's complaints about `document`, or an empty list when it is a valid response document. */
export function documentErrors(document: unknown): string[] {
  if (validateDocument(document)) return [];
  return (validateDocument.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

/** Fails the test unless `document` is a valid JSON:API 1.1 response document. */
export function expectValidDocument(document: unknown): void {
  const errors = documentErrors(document);
  expect(errors, `not a valid JSON:API document:\n${JSON.stringify(document, null, 2)}`).toEqual([]);
}

/**
 * Reads a response's JSON:API document: asserts `Content-Type: application/vnd.api+json`,
 * parses the body and validates it against the schema.
 */
export async function json(response: Response): Promise<Doc> {
  expect(response.headers.get('content-type'), `Content-Type of a ${response.status} response`).toBe(MEDIA_TYPE);
  const text = await response.text();
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new Error(`response body is not JSON: ${text.slice(0, 200)}`);
  }
  expectValidDocument(document);
  return document as Doc;
}

/**
 * Reads an errors document and asserts its status (the response's and every error object's
 * agree on the HTTP status class); returns the document.
 */
export async function jsonError(response: Response, status: number): Promise<Doc> {
  expect(response.status).toBe(status);
  const document = await json(response);
  expect(document.errors, 'an errors document').toBeInstanceOf(Array);
  expect(document.errors.length).toBeGreaterThan(0);
  expect(document.data).toBeUndefined();
  return document;
}
