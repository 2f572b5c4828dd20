/** The benchmarked routes (issue 8), shared by the runner, the in-process bench and the baseline's test. */

export interface Route {
  name: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Seconds each measured run lasts in the full bench (default 1): a run of a slow route must
   * still hold enough requests that the few in flight at its end do not sway its rate.
   */
  seconds?: number;
}

/** A valid create: an article by person 1 with two tags. */
export const CREATE_BODY = JSON.stringify({
  data: {
    type: 'articles',
    attributes: { title: 'Benchmarks in practice', body: 'Measured, not guessed.' },
    relationships: {
      author: { data: { type: 'people', id: '1' } },
      tags: {
        data: [
          { type: 'tags', id: '1' },
          { type: 'tags', id: '2' },
        ],
      },
    },
  },
});

export const ROUTES: readonly Route[] = [
  { name: 'a', label: 'GET /articles?page[limit]=20', method: 'GET', path: '/articles?page[limit]=20' },
  {
    name: 'b',
    label: 'GET /articles?include=author,tags&page[limit]=20',
    method: 'GET',
    path: '/articles?include=author,tags&page[limit]=20',
  },
  { name: 'c', label: 'GET /articles/1', method: 'GET', path: '/articles/1' },
  {
    name: 'd',
    label: 'POST /articles (Bearer 1)',
    method: 'POST',
    path: '/articles',
    headers: { authorization: 'Bearer 1', 'content-type': 'application/vnd.api+json' },
    body: CREATE_BODY,
  },
  { name: 'e', label: 'GET /people?page[limit]=50', method: 'GET', path: '/people?page[limit]=50' },
  // About 250 requests a second: one second held too few (run-to-run ratios 0.55-1.29).
  {
    name: 'f',
    label: 'GET /articles?include=author,comments.author&page[limit]=50',
    method: 'GET',
    path: '/articles?include=author,comments.author&page[limit]=50',
    seconds: 2,
  },
  // A boolean group of three clauses (a text match, a to-one path, a to-many path) and a count filter.
  {
    name: 'g',
    label:
      'GET /articles?filter[or][0][title][contains]=Caching&filter[or][1][author.name]=Ada Lovelace&filter[or][2][tags.name]=typescript&filter[commentCount][gte]=5&page[limit]=20',
    method: 'GET',
    path: '/articles?filter[or][0][title][contains]=Caching&filter[or][1][author.name]=Ada%20Lovelace&filter[or][2][tags.name]=typescript&filter[commentCount][gte]=5&page[limit]=20',
  },
];

/** Route b at another page size. */
export const routeB = (limit: number): Route => ({
  name: `b${limit}`,
  label: `GET /articles?include=author,tags&page[limit]=${limit}`,
  method: 'GET',
  path: `/articles?include=author,tags&page[limit]=${limit}`,
});

/** Articles the seed creates before the benchmark writes any (route d's rows are removed after each run). */
export const SEEDED_ARTICLES = 1000;

/**
 * Sends `route` to the demo and to the baseline in turn and returns the statements each ran for
 * it, from their statement logs (emptied first).
 */
export async function statementsFor(
  route: Route,
  urls: { demo: string; baseline: string },
  logs: { demo: string[]; baseline: string[] },
) {
  logs.demo.length = 0;
  logs.baseline.length = 0;
  const init = { method: route.method, headers: route.headers, body: route.body };
  const a = await fetch(urls.demo + route.path, init);
  await a.arrayBuffer();
  const b = await fetch(urls.baseline + route.path, init);
  await b.arrayBuffer();
  if (a.status >= 300 || b.status >= 300) throw new Error(`${route.path}: ${a.status} / ${b.status}`);
  return { demo: logs.demo.length, baseline: logs.baseline.length, statements: [...logs.demo] };
}

/** The seed's `created_at` of article `index` (0-based): examples/blog/seed.ts, 5 hours apart from hour 100. */
const seededCreatedAt = (index: number) => new Date(Date.UTC(2024, 0, 1) + (100 + index * 5) * 3_600_000).toISOString();

/**
 * Issue 25's filtered route on a file seeded with `articles` articles: created since the middle
 * of the seeded range and tagged `typescript` (one of the seed's 12 tags), a page of 20.
 */
export const filteredRoute = (articles: number): Route => {
  const path = `/articles?filter[createdAt][gte]=${seededCreatedAt(Math.floor(articles / 2))}&filter[tags.name]=typescript&page[limit]=20`;
  // About 30 requests a second on 100,000 articles (both servers count some 50,000 rows): a
  // one-second run held too few for its rate to mean anything, with 32 in flight at its end.
  return { name: 'filtered', label: `GET ${path}`, method: 'GET', path, seconds: 5 };
};
