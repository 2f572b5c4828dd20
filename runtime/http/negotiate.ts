import type { HttpRequest } from './request.js';
import { NotAcceptableError, UnsupportedMediaTypeError } from '../core/errors.js';

/** The JSON:API media type. */
export const MEDIA_TYPE = 'application/vnd.api+json';

interface MediaType {
  type: string;
  params: Map<string, string>;
  /** A parameter without a name or a value (`;ext`, `;=x`, `;ext=`): not `name=value` as RFC 9110 has it. */
  malformed: boolean;
}

/** Splits a header into media types, honouring quoted parameter values (`ext="a b"`). */
function parseMediaTypes(header: string): MediaType[] {
  const result: MediaType[] = [];
  let i = 0;
  const n = header.length;
  while (i < n) {
    let end = i;
    let quoted = false;
    while (end < n && (quoted || header[end] !== ',')) {
      if (header[end] === '"') quoted = !quoted;
      else if (header[end] === '\\' && quoted) end++;
      end++;
    }
    const parts = splitParams(header.slice(i, end));
    const type = (parts.shift() ?? '').trim().toLowerCase();
    const params = new Map<string, string>();
    let malformed = false;
    for (const part of parts) {
      // `type/subtype;` is allowed: RFC 9110 lets a parameter between semicolons be empty.
      if (part.trim() === '') continue;
      const eq = part.indexOf('=');
      const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
      let value = eq < 0 ? '' : part.slice(eq + 1).trim();
      // A value is a token (one character or more) or a quoted string (which may be empty: `""`).
      if (!name || value === '') malformed = true;
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2)
        value = value.slice(1, -1).replace(/\\(.)/g, '$1');
      if (name) params.set(name, value);
    }
    if (type) result.push({ type, params, malformed });
    i = end + 1;
  }
  return result;
}

function splitParams(mediaType: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < mediaType.length; i++) {
    const c = mediaType[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && quoted) i++;
    else if (c === ';' && !quoted) {
      parts.push(mediaType.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(mediaType.slice(start));
  return parts;
}

function extensions(params: Map<string, string>): string[] {
  const ext = params.get('ext');
  return ext ? ext.split(' ').filter(Boolean) : [];
}

/**
 * Checks a request body's `Content-Type` (JSON:API 1.1, "Server Responsibilities"): 415 unless
 * it is the JSON:API media type with at most `ext` and `profile`, every `ext` supported.
 * Returns the extensions the request applies.
 */
export function negotiateContentType(header: string | null, supported: ReadonlySet<string>): string[] {
  // The plain media type, what JSON:API clients send: no parameters, no extensions.
  if (header === MEDIA_TYPE) return [];
  const source = { header: 'Content-Type' };
  const all = header ? parseMediaTypes(header) : [];
  // Content-Type holds one media type (RFC 9110, section 8.3); a list is a malformed header.
  if (all.length > 1) {
    throw new UnsupportedMediaTypeError({
      detail: `Content-Type must be one media type, not a list: ${header}`,
      source,
      code: 'malformed_header',
    });
  }
  const [media] = all;
  if (media?.malformed) {
    throw new UnsupportedMediaTypeError({
      detail: `Content-Type has a parameter that is not name=value: ${header}`,
      source,
      code: 'malformed_header',
    });
  }
  if (!media || media.type !== MEDIA_TYPE) {
    throw new UnsupportedMediaTypeError({
      detail: `Request bodies must be sent as ${MEDIA_TYPE}, not ${header ?? 'without a Content-Type'}`,
      source,
    });
  }
  for (const name of media.params.keys()) {
    if (name !== 'ext' && name !== 'profile') {
      throw new UnsupportedMediaTypeError({ detail: `The media type parameter "${name}" is not allowed`, source });
    }
  }
  const ext = extensions(media.params);
  const unsupported = ext.filter((uri) => !supported.has(uri));
  if (unsupported.length > 0) {
    throw new UnsupportedMediaTypeError({ detail: `Unsupported extension: ${unsupported.join(' ')}`, source });
  }
  return ext;
}

/**
 * Checks `Accept`: 406 when it names the JSON:API media type only with parameters other than
 * `ext` and `profile`, or only with unsupported extensions. A header that does not name the
 * JSON:API media type at all is served anyway (browsers, `curl`).
 */
export function negotiateAccept(header: string | null, supported: ReadonlySet<string>): void {
  // The plain media type, what JSON:API clients send, is acceptable as it is.
  if (!header || header === MEDIA_TYPE) return;
  // Media types are case-insensitive (RFC 9110, section 8.3.1).
  if (!header.toLowerCase().includes(MEDIA_TYPE)) return;
  const instances = parseMediaTypes(header).filter((m) => m.type === MEDIA_TYPE);
  if (instances.length === 0) return;
  for (const media of instances) {
    const q = media.params.get('q');
    if (q !== undefined && Number(q) === 0) continue;
    const names = [...media.params.keys()].filter((name) => name !== 'q');
    if (!names.every((name) => name === 'ext' || name === 'profile')) continue;
    if (extensions(media.params).every((uri) => supported.has(uri))) return;
  }
  throw new NotAcceptableError({
    detail: `No acceptable ${MEDIA_TYPE} in Accept: parameters other than ext and profile, or unsupported extensions`,
    source: { header: 'Accept' },
  });
}

/**
 * For an extension's own endpoint: the request must be sent with the extension (415
 * otherwise), and an `Accept` that names the JSON:API media type must accept it (406).
 */
export function negotiateExtension(request: HttpRequest, uri: string): void {
  const contentType = request.header('content-type');
  const [media] = contentType ? parseMediaTypes(contentType) : [];
  if (!media || media.type !== MEDIA_TYPE || !extensions(media.params).includes(uri)) {
    throw new UnsupportedMediaTypeError({
      detail: `This endpoint takes ${MEDIA_TYPE}; ext="${uri}"`,
      source: { header: 'Content-Type' },
    });
  }
  negotiateContentType(contentType, new Set([uri]));
  const accept = request.header('accept');
  if (!accept || !accept.includes(MEDIA_TYPE)) return;
  const acceptable = parseMediaTypes(accept).some(
    (m) =>
      m.type === MEDIA_TYPE &&
      Number(m.params.get('q') ?? 1) > 0 &&
      [...m.params.keys()].every((name) => name === 'ext' || name === 'profile' || name === 'q') &&
      extensions(m.params).includes(uri),
  );
  if (!acceptable) {
    throw new NotAcceptableError({
      detail: `This endpoint answers ${MEDIA_TYPE}; ext="${uri}": accept it`,
      source: { header: 'Accept' },
    });
  }
}
