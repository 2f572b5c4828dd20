import { Attribute, Relationship } from '../schema/fields.js';
import type { FilterValue } from '../schema/filters.js';
import type { RegisteredResource } from '../schema/registry.js';

/**
 * Whether `filter[name]=a,b` means "a or b" on `resource` (as `filter[name][]=a&filter[name][]=b`
 * does): a filter named after `id`, a relationship or an enum attribute compares identifiers or
 * fixed words, which hold no comma. Any other filter (free text: a title, a name, a search)
 * takes its value verbatim, commas included.
 *
 * @example
 * import type { RegisteredResource } from '../schema/registry.js';
 * declare const articles: RegisteredResource;
 * takesCommaList(articles, 'author'); // true: filter[author]=1,2 is author 1 or 2
 * takesCommaList(articles, 'title');  // false: filter[title]=a,b is the title "a,b"
 */
export function takesCommaList(resource: RegisteredResource, name: string): boolean {
  if (name === 'id') return true;
  const field = resource.fields.get(name);
  return field instanceof Relationship || (field instanceof Attribute && field.kind === 'enum');
}

/**
 * The value a filter is applied with: a comma list split into its items when the filter takes
 * one (`takesCommaList`), else the value as sent. The list form (`filter[x][]=...`) is never
 * split: it is how a value holding a comma is sent to any filter.
 *
 * @example
 * import type { RegisteredResource } from '../schema/registry.js';
 * declare const articles: RegisteredResource;
 * filterValue(articles, 'author', '1,2'); // ['1', '2']
 */
export function filterValue(resource: RegisteredResource, name: string, value: FilterValue): FilterValue {
  return typeof value === 'string' && value.includes(',') && takesCommaList(resource, name) ? value.split(',') : value;
}
