/**
 * JSON:API member names, restricted to the spec's recommended characters so every document
 * also passes the official JSON Schema: ASCII letters and digits, with `-` and `_` inside.
 */
const MEMBER_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9_-]*[a-zA-Z0-9])?$/;

/** Whether `name` is a legal member name. */
export function isMemberName(name: string): boolean {
  return MEMBER_NAME.test(name);
}
