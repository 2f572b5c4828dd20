import { BadRequestError } from './errors.js';

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
  let rest = pathname.slice(basePath.length);
  if (rest.length > 1 && rest.endsWith('/')) rest = rest.slice(0, -1);
  const segments = rest.split('/').slice(1);
  if (segments.length === 0 || segments.length > 4 || segments.includes('')) return null;
  const [type, id, third, fourth] = segments.map(decode);
  if (segments.length === 1) return { type: type!, linkage: false };
  if (segments.length === 2) return { type: type!, id: id!, linkage: false };
  if (segments.length === 3) return { type: type!, id: id!, relationship: third!, linkage: false };
  if (third !== 'relationships') return null;
  return { type: type!, id: id!, relationship: fourth!, linkage: true };
}
