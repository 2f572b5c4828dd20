/**
 * Links as RFC 3986 URIs: the request's own URL, and prefixes of it, percent-encoded where a
 * WHATWG URL leaves characters raw.
 */
import type { RequestTarget } from './target.js';

/**
 * `url` as an RFC 3986 URI, as links must be: WHATWG URLs leave `[`, `]`, `|`, `^`, `{`, `}`,
 * backtick and stray `%` raw (`?filter[x]=a` stays as typed), so those are percent-encoded.
 */
export function uriOf(url: Pick<RequestTarget, 'origin' | 'pathname' | 'search'>): string {
  return toUri(url.origin + url.pathname + url.search);
}

/** Whether a text may hold a character to encode (a `%` may also start a valid escape). */
const MAYBE_NOT_IN_URI = /[[\]{}|\\^`%]/;

/** A WHATWG URL's text (or a prefix of it) as an RFC 3986 URI; see `uriOf`. */
export function toUri(text: string): string {
  // Most links have nothing to encode, the rest are short: a loop beats a replace with a callback.
  if (!MAYBE_NOT_IN_URI.test(text)) return text;
  let uri = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const bracketOrSymbol =
      c === 91 || c === 93 || c === 123 || c === 125 || c === 124 || c === 92 || c === 94 || c === 96;
    const strayPercent = c === 37 && !(isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2)));
    if (bracketOrSymbol || strayPercent) {
      uri += `${text.slice(start, i)}%${c.toString(16).toUpperCase()}`;
      start = i + 1;
    }
  }
  return start === 0 ? text : uri + text.slice(start);
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
