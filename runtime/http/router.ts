import { BadRequestError } from '../core/errors.js';

/** What a request path addresses. */
export interface Route {
  type: string;
  id?: string;
  relationship?: string;
  /** `/relationships/{name}` (linkage) rather than `/{name}` (related resources). */
  linkage: boolean;
}

function decode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequestError({ detail: 'The path is not valid percent-encoded UTF-8', code: 'invalid_path' });
  }
}

/**
 * Matches a pathname below `basePath` to a route, or null when it addresses nothing this API
 * serves. A single trailing slash is ignored.
 */
export function matchRoute(pathname: string, basePath: string): Route | null {
  if (basePath && !(pathname === basePath || pathname.startsWith(basePath + '/'))) return null;
  let end = pathname.length;
  if (end - basePath.length > 1 && pathname.charCodeAt(end - 1) === 47) end--;
  // Segments by position, without the arrays of split/slice/map: this runs on every request.
  let start = basePath.length;
  const raw: string[] = [];
  while (start < end) {
    const slash = pathname.indexOf('/', start + 1);
    const stop = slash === -1 || slash > end ? end : slash;
    if (stop === start + 1 || raw.length === 4) return null;
    raw.push(pathname.slice(start + 1, stop));
    start = stop;
  }
  if (raw.length === 0) return null;
  const type = decode(raw[0]!);
  if (raw.length === 1) return { type, linkage: false };
  const id = decode(raw[1]!);
  if (raw.length === 2) return { type, id, linkage: false };
  const third = decode(raw[2]!);
  if (raw.length === 3) return { type, id, relationship: third, linkage: false };
  if (third !== 'relationships') return null;
  return { type, id, relationship: decode(raw[3]!), linkage: true };
}
