import { BadRequestError } from '../core/errors.js';
import { type FilterValue, isCommaListFilter } from '../dsl/filters.js';
import type { RegisteredResource } from '../registry/registry.js';

/**
 * Whether `filter[name]=a,b` means "a or b" on `resource` (as `filter[name][]=a&filter[name][]=b`
 * does): a filter named after `id`, a relationship or an enum attribute compares identifiers or
 * fixed words, which hold no comma. Any other filter (free text: a title, a name, a search)
 * takes its value verbatim, commas included.
 *
 * @example
 * import type { RegisteredResource } from '../registry/registry.js';
 * declare const articles: RegisteredResource;
 * takesCommaList(articles, 'author'); // true: filter[author]=1,2 is author 1 or 2
 * takesCommaList(articles, 'title');  // false: filter[title]=a,b is the title "a,b"
 */
export function takesCommaList(resource: RegisteredResource, name: string): boolean {
  return isCommaListFilter(name, resource.fields.get(name));
}

/**
 * The value a filter is applied with: a comma list split into its items when the filter takes
 * one (`takesCommaList`), else the value as sent. The list form (`filter[x][]=...`) is never
 * split: it is how a value holding a comma is sent to any filter. A comma list of more than
 * `limit` values is a 400, as the list form is (`limits.filterValues`).
 *
 * @example
 * import type { RegisteredResource } from '../registry/registry.js';
 * declare const articles: RegisteredResource;
 * filterValue(articles, 'author', '1,2', 100); // ['1', '2']
 */
export function filterValue(
  resource: RegisteredResource,
  name: string,
  value: FilterValue,
  limit: number,
  parameter = `filter[${name}]`,
): FilterValue {
  return typeof value === 'string' && value.includes(',') && takesCommaList(resource, name)
    ? splitList(value, parameter, limit)
    : value;
}

/**
 * `text` split at its commas; 400 `limit_exceeded` naming `parameter` when that makes more
 * than `limit` values. The commas are counted first, so an over-long list is refused before
 * any of it is copied.
 *
 * @example
 * splitList('1,2,3', 'filter[author]', 100); // ['1', '2', '3']
 * splitList('1,2,3', 'filter[author]', 2);   // throws: filter[author] may have at most 2 values
 */
export function splitList(text: string, parameter: string, limit: number): string[] {
  let commas = 0;
  for (let i = text.indexOf(','); i !== -1; i = text.indexOf(',', i + 1)) {
    if (++commas >= limit) {
      throw new BadRequestError({
        detail: `${parameter} may have at most ${limit} values`,
        source: { parameter },
        code: 'limit_exceeded',
        meta: { limit },
      });
    }
  }
  return text.split(',');
}
