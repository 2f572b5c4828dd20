/** Reading a request body as JSON, within the API's limits. */
import type { HttpRequest } from '../http/request.js';
import { BadRequestError, JsonApiError } from '../core/errors.js';
import { DEFAULT_LIMITS, type Limits } from '../core/limits.js';

/** 413: the body passes `limit` bytes. */
export function tooLarge(limit: number): JsonApiError {
  return new JsonApiError(413, {
    detail: `The request body may be at most ${limit} bytes`,
    source: { header: 'Content-Length' },
    code: 'limit_exceeded',
    meta: { limit },
  });
}

/**
 * Reads a request body as JSON: 413 past `limits.bodyBytes` (from `Content-Length` before
 * reading, else while streaming), 400 when it is empty, not UTF-8, malformed or nested deeper
 * than `limits.jsonDepth`.
 */
export async function readJson(request: HttpRequest, limits: Limits = DEFAULT_LIMITS): Promise<unknown> {
  const declared = request.header('content-length');
  if (declared !== null && Number(declared) > limits.bodyBytes) throw tooLarge(limits.bodyBytes);
  const bytes = await request.body(limits.bodyBytes);
  if (bytes === undefined) throw tooLarge(limits.bodyBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new BadRequestError({ detail: 'The request body is not valid UTF-8', code: 'invalid_json' });
  }
  if (text.trim() === '')
    throw new BadRequestError({
      detail: 'The request body is empty; a JSON:API document is required',
      code: 'invalid_json',
    });
  if (nestingDepth(text) > limits.jsonDepth) {
    throw new BadRequestError({
      detail: `The request body nests deeper than ${limits.jsonDepth} levels`,
      code: 'limit_exceeded',
      meta: { limit: limits.jsonDepth },
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError({
      detail: `The request body is not valid JSON: ${(error as Error).message}`,
      code: 'invalid_json',
    });
  }
}

/** One decoder for every body: making one costs more than decoding a typical document (each `decode` starts afresh). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The deepest nesting of arrays and objects in JSON text, counted without parsing (strings skipped). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}
