/**
 * Conditional requests (RFC 9110 §8.8.3, §13.1): every successful read carries a strong `ETag`
 * computed from the bytes it sends (and, for a versioned resource, its version), and
 * `If-None-Match` naming it answers 304; `If-Match` on writes names the version the client
 * read. The tag depends on nothing but the representation and the version (digest.ts), so every
 * process serving the same data gives the same tag (an included resource that changes changes the
 * body, and so the tag).
 */

import { JsonApiError } from '../core/errors.js';
import { bodyDigest } from './digest.js';

/**
 * The strong entity tag of a response body; with the version of a versioned resource (see
 * `Versioned`), the tag names it too, so that `If-Match` can be checked against the database.
 *
 * @example
 * entityTag('{"data":null}')      // '"gzFP2w4rIphw"'
 * entityTag('{"data":{…}}', '7')  // '"7~Ab3…"'
 */
export function entityTag(body: string, version?: string): string {
  return version === undefined ? `"${bodyDigest(body)}"` : `"${encodeURIComponent(version)}~${bodyDigest(body)}"`;
}

/**
 * What `If-Match` asks for: `'*'` (any current representation), or the versions its tags name.
 * Comparison is strong (RFC 9110 §13.1.1): a weak tag (`W/"…"`) never matches, nor a tag
 * without a version (one of a collection, or of a resource whose data layer has none).
 */
export function matchVersions(header: string): '*' | string[] {
  if (header.trim() === '*') return '*';
  const versions: string[] = [];
  for (const item of header.split(',')) {
    const tag = item.trim();
    const at = tag.lastIndexOf('~');
    if (!tag.startsWith('"') || !tag.endsWith('"') || at < 0) continue;
    try {
      versions.push(decodeURIComponent(tag.slice(1, at)));
    } catch {
      // Not a tag this server made.
    }
  }
  return versions;
}

/**
 * Whether `If-None-Match` (its header value, or null) names `tag`, so the client's copy is
 * current: `*`, or a list of tags compared weakly (a `W/` prefix is ignored, RFC 9110 §8.8.3.2).
 */
export function noneMatchHits(header: string | null, tag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  for (const item of header.split(',')) {
    const candidate = item.trim();
    if ((candidate.startsWith('W/') ? candidate.slice(2) : candidate) === tag) return true;
  }
  return false;
}

/**
 * 412 for a write whose `If-Match` names a version the resource no longer has: what the runtime
 * answers when it sees it, and what a versioned data layer throws when its conditional write
 * finds the row changed meanwhile.
 *
 * @example
 * import { db } from './db.js';
 * const updated = await db.updateTable('articles').set({ title: 'New' }).where('id', '=', 7).where('version', '=', 3).executeTakeFirst();
 * if (updated.numUpdatedRows === 0n) throw staleVersion('articles');
 */
export function staleVersion(
  type: string,
  detail = `This resource of type "${type}" has changed since that ETag: GET it again`,
): JsonApiError {
  return new JsonApiError(412, { detail, source: { header: 'If-Match' }, code: 'stale' });
}

/** `Cache-Control` of a read unless the host says otherwise: authorised content, revalidated each time. */
export const DEFAULT_CACHE_CONTROL = 'private, no-cache';
