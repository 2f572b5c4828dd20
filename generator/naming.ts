/** Identifier helpers: how resource types and member names become TypeScript names. */

const WORD = /[a-zA-Z0-9]+/g;

/** `blog-posts` → `BlogPosts`; a leading digit gets an underscore. */
export function pascalCase(name: string): string {
  const words = name.match(WORD) ?? [];
  const joined = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** `blog-posts` → `blogPosts`. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal.startsWith('_') ? pascal : pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Whether `name` can follow a dot or stand as a property key unquoted. */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** A property key: `title`, or `'first-name'` when it is not an identifier. */
export function propertyKey(name: string): string {
  return isIdentifier(name) ? name : quote(name);
}

/** `row.title` or `row['first-name']`. */
export function propertyAccess(object: string, name: string): string {
  return isIdentifier(name) ? `${object}.${name}` : `${object}[${quote(name)}]`;
}

/** A single-quoted TypeScript string literal. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}
