/**
 * The demo's articles as plain values, for tests that compute in TypeScript what a query of
 * `/articles` should answer: read once through the API (`include=author,comments,tags`), after
 * `varyCommentCounts` has given the articles different numbers of comments.
 */
import { seedRows } from '../../examples/blog/seed.js';

/** One article with what its filters and sorts read. */
export interface BlogArticle {
  id: number;
  title: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  authorId: string;
  authorName: string;
  tagNames: string[];
  commentCount: number;
  tagCount: number;
}

interface Resource {
  type: string;
  id: string;
  attributes: Record<string, string>;
  relationships?: Record<string, { data?: { id: string } | Array<{ id: string }> | null; meta?: { count?: number } }>;
}

/** A JSON:API document as these tests read it. */
export interface ListDocument {
  data: Resource[];
  included?: Resource[];
  links?: { next?: string | null; prev?: string | null };
  errors?: Array<{ source?: { parameter?: string }; detail?: string }>;
}

/** GET `url` as person 1 (so that `status` may be filtered on): the status and the document. */
export async function get(url: string): Promise<{ status: number; body: ListDocument }> {
  const response = await fetch(url, { headers: { authorization: 'Bearer 1' } });
  return { status: response.status, body: (await response.json()) as ListDocument };
}

/**
 * Every page of a list from `url` on, following `links.next` (or back, `links.prev`): the resources
 * in the order served (pages read backward are put in front), the included ones, and the URL of
 * the page read last.
 */
export async function allPages(
  url: string,
  follow: 'next' | 'prev' = 'next',
): Promise<{ data: Resource[]; included: Resource[]; last: string }> {
  const data: Resource[] = [];
  const included: Resource[] = [];
  let last = url;
  for (let next: string | null | undefined = url, pages = 0; next; pages++) {
    if (pages > 100) throw new Error(`more than 100 pages from ${url}`);
    const { status, body } = await get(next);
    if (status !== 200) throw new Error(`${status} from ${next}: ${JSON.stringify(body.errors)}`);
    if (follow === 'next') data.push(...body.data);
    else data.unshift(...body.data);
    included.push(...(body.included ?? []));
    last = next;
    next = body.links?.[follow];
  }
  return { data, included, last };
}

/**
 * Deletes comments of the seeded demo (`seed` articles, 5 comments each) so that article `n`
 * keeps `n % 6` of them: counts from 0 to 5.
 */
export async function varyCommentCounts(url: string, seed: number): Promise<void> {
  const comments = seedRows(seed).comments;
  for (const [i, comment] of comments.entries()) {
    const ordinal = Math.floor(i / seed);
    if (ordinal < comment.article_id % 6) continue;
    const response = await fetch(`${url}/comments/${i + 1}`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer 1' },
    });
    if (response.status !== 204) throw new Error(`DELETE /comments/${i + 1}: ${response.status}`);
  }
}

/** Every article of the demo at `url`, read from the full listing with its author, comments and tags. */
export async function blogArticles(url: string): Promise<BlogArticle[]> {
  const { data, included } = await allPages(`${url}/articles?include=author,comments,tags&page[limit]=50`);
  const find = (type: string, id: string) => included.find((r) => r.type === type && r.id === id)!;
  const many = (r: Resource, name: string) => r.relationships![name]!.data as Array<{ id: string }>;
  return data.map((r) => {
    const authorId = (r.relationships!.author!.data as { id: string }).id;
    const tagNames = many(r, 'tags').map((t) => find('tags', t.id).attributes.name!);
    return {
      id: Number(r.id),
      title: r.attributes.title!,
      status: r.attributes.status!,
      createdAt: r.attributes.createdAt!,
      updatedAt: r.attributes.updatedAt!,
      authorId,
      authorName: find('people', authorId).attributes.name!,
      tagNames,
      commentCount: many(r, 'comments').length,
      tagCount: tagNames.length,
    };
  });
}

/** The ids of `resources` in the order given, as numbers. */
export const idsOf = (resources: ReadonlyArray<{ id: string }>) => resources.map((r) => Number(r.id));
