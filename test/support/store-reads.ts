/**
 * What the reads tests of the stores share: the demo's schema served over a store's data layers
 * (reads only), a read as status and text, every read of the query language the demo serves
 * (each store's documents are compared byte for byte with the Kysely store's), and following
 * cursor pages to the end.
 */
import { JsonApi } from 'jsonapi-gen';
import { expect } from 'vitest';
import * as schema from '../../examples/blog/schema.js';

/** Writes are not this file's: registration takes them, a read never calls them. */
const notYet = () => {
  throw new Error('not yet');
};
const WRITES = {
  create: notYet,
  update: notYet,
  delete: notYet,
  addToRelationship: notYet,
  removeFromRelationship: notYet,
};

export function apiOf(layers: Record<'people' | 'articles' | 'comments' | 'tags', object>): JsonApi {
  return new JsonApi()
    .resource({ ...schema.people, ...WRITES, ...layers.people })
    .resource({ ...schema.articles, ...WRITES, ...layers.articles })
    .resource({ ...schema.comments, ...WRITES, ...layers.comments })
    .resource({ ...schema.tags, ...WRITES, ...layers.tags });
}

export async function read(api: JsonApi, path: string, user = '1'): Promise<[number, string]> {
  const response = await api.fetch(new Request(`http://localhost${path}`), { attributes: { user } });
  return [response.status, await response.text()];
}

const t = encodeURIComponent('2024-01-03T12:00:00.000Z');
const u = encodeURIComponent('2024-01-05T04:00:00.000Z');

/** Every filter operator and path of the demo, groups, counts, sorts, pages, includes, counts of relationships. */
export const PATHS = [
  '/articles',
  '/articles?filter[title]=Joins in practice, part 6',
  '/articles?filter[title][contains]=practice, part 1',
  // Case-sensitive text operators: `joins` is not `Joins` (SQLite's LIKE would say it is).
  '/articles?filter[title][contains]=joins',
  '/articles?filter[title][contains]=Joins',
  '/articles?filter[title][startsWith]=Types',
  '/articles?filter[title][startsWith]=types',
  '/articles?filter[title][endsWith]=part 1',
  '/articles?filter[title][contains]=%25 part 1',
  '/articles?filter[title][contains]=part_1',
  '/articles?filter[author]=3',
  '/articles?filter[author]=3,4',
  '/articles?filter[status]=draft',
  '/articles?filter[status][ne]=draft',
  '/articles?filter[status][in]=draft,published',
  '/articles?filter[status][nin]=published',
  `/articles?filter[createdAt]=${encodeURIComponent('2024-01-05T09:00:00.000Z')}`,
  `/articles?filter[createdAt][ne]=${encodeURIComponent('2024-01-05T09:00:00.000Z')}`,
  `/articles?filter[createdAt][lt]=${t}`,
  `/articles?filter[createdAt][lte]=${t}`,
  `/articles?filter[createdAt][gt]=${t}`,
  `/articles?filter[createdAt][gte]=${t}&filter[updatedAt][lt]=${u}`,
  `/articles?filter[updatedAt][gte]=${u}&sort=-updatedAt`,
  '/articles?filter[author.name]=Ada Lovelace',
  '/articles?filter[author.name][contains]=Tur',
  '/articles?filter[author.name][contains]=tur',
  '/articles?filter[tags.name]=json',
  '/articles?filter[tags.name][in]=json,sqlite',
  '/articles?filter[commentCount][gte]=4',
  '/articles?filter[commentCount]=5',
  '/articles?filter[commentCount][lt]=4',
  '/articles?filter[commentCount][ne]=4',
  '/articles?filter[commentCount][lte]=3',
  '/articles?filter[tagCount]=0',
  '/articles?filter[tagCount][gt]=0',
  '/articles?filter[tagCount][gt]=1',
  '/articles?filter[tagCount][lt]=2',
  '/articles?filter[search]=JOINS',
  '/articles?filter[or][0][status]=draft&filter[or][1][commentCount][gt]=4',
  '/articles?filter[not][title][contains]=Joins',
  '/articles?filter[not][tags.name]=json',
  '/articles?filter[not][or][0][tags.name]=json&filter[not][or][1][tagCount][gte]=2',
  '/articles?filter[or][0][search]=types&filter[or][1][author.name]=Ada Lovelace',
  `/articles?filter[and][0][createdAt][gte]=${t}&filter[and][1][or][0][title][contains]=a&filter[and][1][or][1][not][status]=draft`,
  '/articles?sort=title',
  '/articles?sort=-title&page[limit]=50',
  '/articles?sort=author.name,-createdAt&page[limit]=50',
  '/articles?sort=-author.name&page[offset]=10&page[limit]=15',
  '/articles?sort=-commentCount&page[limit]=50',
  '/articles?sort=tagCount,title&page[limit]=50',
  '/articles?page[offset]=20&page[limit]=20',
  '/articles?page[offset]=55',
  '/articles?include=author,comments.author,tags&page[limit]=10',
  '/articles?withCount=comments,tags&page[limit]=30',
  '/articles?fields[articles]=title,author&include=author&filter[author]=2',
  '/articles/1',
  '/articles/2?include=author,tags,comments.author&withCount=comments,tags',
  '/articles/999',
  '/articles/abc',
  '/articles/3/author',
  '/articles/3/comments?include=author',
  '/articles/3/tags',
  '/articles/7/tags?withCount=articles',
  '/articles/3/relationships/tags',
  '/articles/3/relationships/author',
  '/comments/5/article',
  '/comments?filter[article]=4&include=article.author',
  '/comments?filter[author]=2&sort=-createdAt',
  '/people',
  '/people?sort=-articleCount&withCount=articles',
  '/people?filter[articleCount][gt]=12',
  '/people?filter[name]=Ada Lovelace&include=articles.tags',
  '/people/2/articles?sort=-commentCount&filter[status]=published',
  '/tags?include=articles&withCount=articles',
  '/tags/1/articles?filter[commentCount][gte]=5',
];

/** The paths of PATHS that name no resource. */
export const MISSING = ['/articles/999', '/articles/abc'];

/** First pages of cursor paginations, each followed to its end. */
export const CURSOR_PATHS = [
  '/articles?page[size]=7',
  '/articles?page[size]=9&sort=-commentCount',
  '/articles?page[size]=8&sort=title&filter[status]=published',
  '/comments?page[size]=40',
];

/** Follows the `next` links from `first` on both APIs, each page the same document; more than two pages. */
export async function sameCursorPages(expected: JsonApi, actual: JsonApi, first: string): Promise<void> {
  let path: string | null = first;
  let pages = 0;
  while (path !== null) {
    const want: [number, string] = await read(expected, path);
    const got: [number, string] = await read(actual, path);
    expect(got[1]).toBe(want[1]);
    expect(got[0], got[1]).toBe(200);
    const next: string | null = (JSON.parse(got[1]) as { links: { next?: string | null } }).links.next ?? null;
    path = next === null ? null : next.replace('http://localhost', '');
    pages++;
  }
  expect(pages).toBeGreaterThan(2);
}
