import type { FilterValue } from '../schema/filters.js';
import type { RegisteredResource } from '../schema/registry.js';

/**
 * Whether `filter[name]=a,b` means "a or b" on `resource` (as `filter[name][]=a&filter[name][]=b`
 * does): a filter named after `id`, a relationship or an enum attribute compares identifiers or
 * fixed words, which hold no comma. Any other filter (free text: a title, a name, a search)
 * takes its value verbatim, commas included.
 *
 * @example
 * takesCommaList(articles, 'author'); // true: filter[author]=1,2 is author 1 or 2
 * takesCommaList(articles, 'title');  // false: filter[title]=a,b is the title "a,b"
 */
export function takesCommaList(resource: RegisteredResource, name: string): boolean {
  return isCommaListFilter(name, resource.fields.get(name));
}

/**
 * `takesCommaList` on a declaration: `field` is the resource's field named `name`, if any. Read
 * by property (never `instanceof`), so that a tool may ask of a schema built by another copy of
 * the runtime (`describeSchema` carries the answer to the generator).
 *
 * @example
 * isCommaListFilter('status', Attribute.make('status').type('enum', ['draft', 'published'])); // true
 */
export function isCommaListFilter(name: string, field: { readonly cardinality?: unknown; readonly kind?: unknown } | undefined): boolean {
  if (name === 'id') return true;
  return field !== undefined && (field.cardinality === 'one' || field.cardinality === 'many' || (field.cardinality === undefined && field.kind === 'enum'));
}

/**
 * The value a filter is applied with: a comma list split into its items when the filter takes
 * one (`takesCommaList`), else the value as sent. The list form (`filter[x][]=...`) is never
 * split: it is how a value holding a comma is sent to any filter.
 *
 * @example
 * filterValue(articles, 'author', '1,2'); // ['1', '2']
 */
export function filterValue(resource: RegisteredResource, name: string, value: FilterValue): FilterValue {
  return typeof value === 'string' && value.includes(',') && takesCommaList(resource, name) ? value.split(',') : value;
}
