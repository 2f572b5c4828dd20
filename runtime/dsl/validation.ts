import type { Context } from './context.js';
import type { Attribute, AttributeValidator, StandardSchema } from './fields.js';
import { isRealDate, normalizeDateTime } from '../core/date-time.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** What validating one written value gives: the value to store, or what is wrong with it. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** Checks a value against its attribute's kind, nullability and constraints; no custom validators. */
export function checkKind(
  attribute: Pick<Attribute, 'kind' | 'isNullable' | 'constraints' | 'enumValues'>,
  value: unknown,
): string[] {
  if (value === null) return attribute.isNullable ? [] : ['must not be null'];
  const c = attribute.constraints;
  switch (attribute.kind) {
    case 'string': {
      if (typeof value !== 'string') return ['must be a string'];
      // JSON allows "\ud800"; no database stores it faithfully (SQLite and PostgreSQL replace or refuse it).
      if (LONE_SURROGATE.test(value)) return ['must be well-formed Unicode (it contains a lone surrogate)'];
      const problems: string[] = [];
      const length = c.minLength !== undefined || c.maxLength !== undefined ? codePoints(value) : 0;
      if (c.minLength !== undefined && length < c.minLength)
        problems.push(`must be at least ${c.minLength} characters long`);
      if (c.maxLength !== undefined && length > c.maxLength)
        problems.push(`must be at most ${c.maxLength} characters long`);
      if (c.pattern && !new RegExp(c.pattern.source, c.pattern.flags.replace('g', '')).test(value))
        problems.push(`must match ${c.pattern}`);
      return problems;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return ['must be an integer'];
      return bounds(value, c);
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return ['must be a number'];
      return bounds(value, c);
    case 'boolean':
      return typeof value === 'boolean' ? [] : ['must be true or false'];
    case 'date-time':
      return typeof value === 'string' && normalizeDateTime(value) !== undefined
        ? []
        : ['must be a date-time such as 2024-05-01T12:00:00Z or 2024-05-01T14:00:00+02:00 (RFC 3339)'];
    case 'date': {
      const m = typeof value === 'string' ? DATE.exec(value) : null;
      return m && isRealDate(m[1]!, m[2]!, m[3]!) ? [] : ['must be a date such as 2024-05-01'];
    }
    case 'enum':
      return typeof value === 'string' && attribute.enumValues.includes(value)
        ? []
        : [`must be one of ${attribute.enumValues.map((v) => JSON.stringify(v)).join(', ')}`];
    case 'array':
      return Array.isArray(value) ? [] : ['must be an array'];
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? [] : ['must be an object'];
  }
}

function bounds(value: number, c: Attribute['constraints']): string[] {
  const problems: string[] = [];
  if (c.min !== undefined && value < c.min) problems.push(`must be at least ${c.min}`);
  if (c.max !== undefined && value > c.max) problems.push(`must be at most ${c.max}`);
  return problems;
}

function codePoints(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

function isStandardSchema(validator: AttributeValidator): validator is StandardSchema {
  return typeof validator === 'object' && validator !== null && '~standard' in validator;
}

/**
 * Validates a written value: kind and constraints first, then custom validators and Standard
 * Schemas in order (a schema's output becomes the value).
 */
export async function validateValue(attribute: Attribute, value: unknown, context: Context): Promise<ValidationResult> {
  const problems = checkKind(attribute, value);
  if (problems.length > 0) return { ok: false, problems };
  // Stored in one form (UTC, milliseconds) so that the data layer compares and sorts instants.
  if (attribute.kind === 'date-time' && typeof value === 'string') value = normalizeDateTime(value);
  if (value === null || attribute.validators.length === 0) return { ok: true, value };
  let current: unknown = value;
  for (const validator of attribute.validators) {
    if (isStandardSchema(validator)) {
      const result: StandardResult = await validator['~standard'].validate(current);
      if (result.issues) return { ok: false, problems: result.issues.map((issue) => issue.message) };
      current = result.value;
    } else {
      const failure = validatorFailure(await validator(current, context));
      if (failure) return failure;
    }
  }
  return { ok: true, value: current };
}

/** What a Standard Schema's `validate` settles with. */
type StandardResult = Awaited<ReturnType<StandardSchema['~standard']['validate']>>;

/** A custom validator's answer as a failure: a message or a non-empty list of them; undefined when it passed. */
function validatorFailure(outcome: unknown): ValidationResult | undefined {
  if (typeof outcome === 'string') return { ok: false, problems: [outcome] };
  if (Array.isArray(outcome) && outcome.length > 0) return { ok: false, problems: [...(outcome as string[])] };
  return undefined;
}

/** A surrogate code unit not paired with its other half (in `u` mode a pair is one code point). */
const LONE_SURROGATE = /\p{Cs}/u;
