/**
 * Text as JSON writes it: whether a string goes out as it is, between quotes. Shared by the
 * registry (which checks a resource's link parts once) and the document writer.
 */

/** A character `JSON.stringify` writes escaped: a control character, `"`, `\`, or half of a surrogate pair (lone halves are escaped). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
export const MAY_NEED_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * Whether JSON writes `text` as it is, between quotes. Link parts that pass need no look when
 * written: a look at a link (a concatenation) costs more than writing it, as it must be flattened first.
 */
export function plainInJson(text: string): boolean {
  return !MAY_NEED_ESCAPE.test(text);
}
