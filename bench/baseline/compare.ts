/**
 * What the baseline tests compare: each route's answer with its origins (and route d's clock)
 * masked, so a baseline's bytes can be checked against the demo's.
 */
import { ROUTES, SEEDED_ARTICLES, filteredRoute, routeB } from '../routes.js';

/** Every benchmarked route, plus the page sizes, an offset page and a deep include. */
export const COMPARED_ROUTES = [
  ...ROUTES,
  routeB(10),
  routeB(50),
  { name: 'b-offset', method: 'GET', path: '/articles?include=author,tags&page[limit]=10&page[offset]=990' },
  { name: 'c-include', method: 'GET', path: '/articles/7?include=author,tags,comments.author' },
];

/**
 * Issue 25's filtered route (bench/query.ts), and a later page of it with includes: the SQLite
 * baseline serves them (bench/baseline/server.ts); the node-postgres one does not filter yet.
 */
export const FILTERED_ROUTES = [
  filteredRoute(SEEDED_ARTICLES),
  {
    ...filteredRoute(SEEDED_ARTICLES),
    name: 'filtered-include',
    path: `${filteredRoute(SEEDED_ARTICLES).path}&include=author,tags&page[offset]=20`,
  },
];

/** Status, the headers the documents depend on, and the body of `route` on the server at `url`, origins masked. */
export async function maskedAnswer(
  url: string,
  route: { method: string; path: string; headers?: Record<string, string>; body?: string },
) {
  const response = await fetch(url + route.path, { method: route.method, headers: route.headers, body: route.body });
  const text = (await response.text())
    .replaceAll(url, 'http://origin')
    .replace(/"(createdAt|updatedAt)":"[^"]*"/g, '"$1":"<now>"');
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    vary: response.headers.get('vary'),
    location: response.headers.get('location')?.replace(url, 'http://origin') ?? null,
    text,
  };
}
