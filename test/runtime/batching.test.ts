import { describe, expect, test } from 'vitest';
import { createBlog } from '../support/memory-host.js';
import { request } from '../support/request.js';
import { json } from '../support/validate.js';

/** Serves `path` on a blog of 50 articles; returns the document and the data-layer calls it took. */
async function serve(path: string) {
  const blog = createBlog({ extraArticles: 46 });
  const response = await blog.api.fetch(request(path));
  const document = await json(response);
  expect(response.status).toBe(200);
  const reads = {
    find: blog.calls.of('find'),
    results: blog.calls.of('results'),
    loadRelated: blog.calls.of('loadRelated'),
  };
  return { document, reads };
}

describe('includes are loaded in batches', () => {
  test('include=author,tags: the same calls for 5 articles as for 50', async () => {
    const small = await serve('/articles?include=author,tags&page[limit]=5');
    const large = await serve('/articles?include=author,tags&page[limit]=50');
    expect(small.document.data).toHaveLength(5);
    expect(large.document.data).toHaveLength(50);
    expect(large.document.included.filter((r: { type: string }) => r.type === 'people')).toHaveLength(3);
    expect(large.document.included.filter((r: { type: string }) => r.type === 'tags')).toHaveLength(3);
    // One results() for the page, one loadRelated() per included relationship, no find().
    expect(large.reads).toEqual({ find: 0, results: 1, loadRelated: 2 });
    expect(small.reads).toEqual(large.reads);
  });

  test('nested paths: one call per relationship per level (include=author,comments.author)', async () => {
    const small = await serve('/articles?include=author,comments.author&page[limit]=5');
    const large = await serve('/articles?include=author,comments.author&page[limit]=50');
    expect(large.document.included.filter((r: { type: string }) => r.type === 'comments')).toHaveLength(4);
    expect(large.reads).toEqual({ find: 0, results: 1, loadRelated: 3 });
    expect(small.reads).toEqual(large.reads);
  });

  test('a single resource with includes: one find, one call per relationship', async () => {
    const { reads } = await serve('/articles/1?include=author,comments.author,tags');
    expect(reads).toEqual({ find: 1, results: 0, loadRelated: 4 });
  });
});
