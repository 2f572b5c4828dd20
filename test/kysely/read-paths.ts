/**
 * Reads of every kind on the demo (a resource, a missing one, pages, sorts, filters, sparse
 * fieldsets, includes, related and relationship endpoints), for the suites that check a
 * store's fast path answers exactly as Kysely does.
 */
import type { JsonApi } from 'jsonapi-gen';

export const READ_PATHS = [
  '/articles/1',
  '/articles/2?include=author,tags,comments.author',
  '/articles/999',
  '/articles?page[limit]=7&page[offset]=5',
  '/articles?sort=-title&filter[status]=published&include=author',
  '/articles?filter[author]=3&fields[articles]=title,author&include=author',
  '/people?page[limit]=50&include=articles',
  '/articles/3/comments?include=author',
  '/articles/3/relationships/tags',
  '/comments/5/article',
  '/tags?include=articles',
];

/** The status and body text of `path` from `api`, signed in as person 1. */
export async function read(api: JsonApi, path: string): Promise<[number, string]> {
  const response = await api.fetch(new Request(`http://localhost${path}`), { attributes: { user: '1' } });
  return [response.status, await response.text()];
}
