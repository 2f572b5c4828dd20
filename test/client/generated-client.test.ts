/**
 * The generated client (examples/blog/generated/client.ts) against the running demo on SQLite:
 * every method over real HTTP, each answer a real document (or, for a non-2xx answer, a
 * `JsonApiClientError` with the server's status and errors).
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, JsonApiClientError, createClient } from '../../examples/blog/generated/client.js';
import type { Demo } from '../../examples/blog/server.js';
import { WRITE_SEED, authorOf, startDemoOn } from '../support/demo.js';

let demo: Demo;
let client: Client;
/** As person 1, who may update and delete the articles they wrote. */
let signedIn: Client;

beforeAll(async () => {
  demo = await startDemoOn('sqlite', WRITE_SEED);
  client = createClient({ baseUrl: demo.url });
  signedIn = createClient({ baseUrl: demo.url, headers: { authorization: 'Bearer 1' } });
}, 60_000);
afterAll(() => demo?.close());

/** The articles person 1 wrote in the seed. */
const OWN = Array.from({ length: WRITE_SEED }, (_, i) => String(i + 1)).filter((id) => authorOf(Number(id)) === '1');

describe('reads', () => {
  it('list narrows to the requested fields and includes the authors', async () => {
    const page = await client.articles.list({
      include: ['author'],
      fields: { articles: ['title', 'author'] },
      sort: ['title'],
      page: { limit: 3 },
    });
    expect(page.data).toHaveLength(3);
    for (const article of page.data) {
      expect(Object.keys(article.attributes)).toEqual(['title']);
      expect(Object.keys(article.relationships)).toEqual(['author']);
    }
    const titles = page.data.map((a) => a.attributes.title);
    expect(titles).toEqual([...titles].sort());
    const authorIds = new Set(page.data.map((a) => a.relationships.author.data?.id));
    expect(page.included.map((p) => p.type)).toEqual(page.included.map(() => 'people'));
    expect(new Set(page.included.map((p) => p.id))).toEqual(authorIds);
    expect(page.included[0]!.attributes.name).toEqual(expect.any(String));
  });

  it('list sends filters with operators, enum lists and boolean groups as the server reads them', async () => {
    // With the authors included, so that each article carries its author's linkage.
    const all = await client.articles.list({ include: ['author'], page: { limit: 50 } });
    const ids = (doc: { data: Array<{ id: string }> }) => doc.data.map((a) => a.id).sort();
    const byAuthor = (author: string) =>
      all.data.filter((a) => a.relationships.author.data?.id === author).map((a) => a.id);

    const since = all.data.map((a) => a.attributes.createdAt).sort()[10]!;
    const recent = await client.articles.list({ filter: { createdAt: { gte: since } }, page: { limit: 50 } });
    expect(ids(recent)).toEqual(
      all.data
        .filter((a) => a.attributes.createdAt >= since)
        .map((a) => a.id)
        .sort(),
    );

    const either = await client.articles.list({
      filter: { or: [{ author: '1' }, { author: { eq: '2' } }] },
      page: { limit: 50 },
    });
    expect(ids(either)).toEqual([...byAuthor('1'), ...byAuthor('2')].sort());
    const list = await client.articles.list({ filter: { author: ['1', '2'] }, page: { limit: 50 } });
    expect(ids(list)).toEqual(ids(either));

    const notOne = await client.articles.list({ filter: { not: { author: '1' } }, page: { limit: 50 } });
    expect(ids(notOne)).toEqual(
      all.data
        .filter((a) => !byAuthor('1').includes(a.id))
        .map((a) => a.id)
        .sort(),
    );

    const both = await client.articles.list({
      filter: { and: [{ author: { in: ['1', '2'] } }, { not: { author: '2' } }] },
      page: { limit: 50 },
    });
    expect(ids(both)).toEqual(byAuthor('1').sort());

    // The status filter is for signed-in users; the seed's articles are drafts and published ones.
    const drafts = await signedIn.articles.list({ filter: { status: { in: ['draft'] } }, page: { limit: 50 } });
    expect(drafts.data.length).toBeGreaterThan(0);
    expect(drafts.data.every((a) => a.attributes.status === 'draft')).toBe(true);
  });

  it('list takes a count filter, a custom filter and withCount', async () => {
    const counted = await client.articles.list({
      filter: { commentCount: { gte: 1 } },
      withCount: ['comments'],
      page: { limit: 50 },
    });
    expect(counted.data.length).toBeGreaterThan(0);
    for (const article of counted.data) {
      const meta = (article.relationships.comments as { meta?: { count?: number } }).meta;
      expect(meta?.count).toBeGreaterThanOrEqual(1);
    }
    const first = counted.data[0]!.attributes.title;
    const searched = await client.articles.list({ filter: { search: first.toUpperCase() } });
    expect(searched.data.map((a) => a.attributes.title)).toContain(first);
  });

  it('all walks every page: by cursor where the Index has one, by offset elsewhere', async () => {
    const pages: string[][] = [];
    for await (const page of client.articles.all({ pageSize: 7, fields: { articles: ['title'] } })) {
      pages.push(page.data.map((a) => a.id));
      expect(page.links?.['next'] ?? '').not.toContain('offset');
    }
    expect(pages.map((p) => p.length)).toEqual([7, 7, 6]);
    expect(new Set(pages.flat()).size).toBe(WRITE_SEED);

    let people = 0;
    let offsetPages = 0;
    for await (const page of client.people.all({ pageSize: 2 })) {
      people += page.data.length;
      offsetPages++;
    }
    expect(people).toBe(5);
    expect(offsetPages).toBe(3);
  });

  it('get, related and relationship read one resource, its related resources and its linkage', async () => {
    const article = await client.articles.get('1', { include: ['author', 'tags'] });
    expect(article.data.id).toBe('1');
    expect(article.data.attributes.title).toEqual(expect.any(String));
    const authorId = article.data.relationships.author.data!.id;
    expect(article.included.some((r) => r.type === 'people' && r.id === authorId)).toBe(true);

    const author = await client.articles.related('1', 'author', { fields: { people: ['name'] } });
    expect(author.data?.id).toBe(authorId);
    expect(Object.keys(author.data!.attributes)).toEqual(['name']);

    const comments = await client.articles.related('1', 'comments');
    expect(comments.data.every((c) => c.type === 'comments')).toBe(true);

    const tags = await client.articles.relationship('1', 'tags');
    expect(tags.data.map((t) => t.id).sort()).toEqual(
      article.included
        .filter((r) => r.type === 'tags')
        .map((r) => r.id)
        .sort(),
    );
  });

  it('a non-2xx answer rejects with JsonApiClientError carrying the status and errors', async () => {
    const missing = await client.articles.get('999999').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(JsonApiClientError);
    expect((missing as JsonApiClientError).status).toBe(404);
    expect((missing as JsonApiClientError).errors[0]?.status).toBe('404');

    const bad = await client.articles
      .list({ filter: { createdAt: { gte: 'yesterday' } } })
      .catch((error: unknown) => error as JsonApiClientError);
    expect(bad).toBeInstanceOf(JsonApiClientError);
    expect((bad as JsonApiClientError).status).toBe(400);
    expect((bad as JsonApiClientError).errors[0]?.source).toEqual({ parameter: 'filter[createdAt][gte]' });
  });
});

describe('writes', () => {
  it('create, update with If-Match, and delete', async () => {
    const created = await signedIn.articles.create({
      attributes: { title: 'From the typed client' },
      relationships: { author: { type: 'people', id: '1' }, tags: [{ type: 'tags', id: '2' }] },
    });
    expect(created.data.attributes).toMatchObject({ title: 'From the typed client', status: 'draft', body: null });
    const id = created.data.id;

    const read = await signedIn.articles.get(id, { include: ['tags'] });
    expect(read.included.map((t) => t.id)).toEqual(['2']);

    const etag = (await fetch(`${demo.url}/articles/${id}`, { headers: { authorization: 'Bearer 1' } })).headers.get(
      'etag',
    )!;
    const updated = await signedIn.articles.update(id, { attributes: { body: 'Written.' } }, { ifMatch: etag });
    expect(updated.data.attributes.body).toBe('Written.');
    const stale = await signedIn.articles
      .update(id, { attributes: { title: 'Again' } }, { ifMatch: etag })
      .catch((error: unknown) => error as JsonApiClientError);
    expect(stale).toBeInstanceOf(JsonApiClientError);
    expect((stale as JsonApiClientError).status).toBe(412);

    await signedIn.articles.delete(id);
    const gone = await client.articles.get(id).catch((error: unknown) => error as JsonApiClientError);
    expect((gone as JsonApiClientError).status).toBe(404);
  });

  it('addTo, removeFrom and replace change a to-many relationship; replace sets a to-one', async () => {
    const id = OWN[0]!;
    const tagIds = async () => (await signedIn.articles.relationship(id, 'tags')).data.map((t) => t.id).sort();
    await signedIn.articles.replace(id, 'tags', ['1', '2']);
    expect(await tagIds()).toEqual(['1', '2']);
    await signedIn.articles.addTo(id, 'tags', ['3']);
    expect(await tagIds()).toEqual(['1', '2', '3']);
    await signedIn.articles.removeFrom(id, 'tags', ['1', '3']);
    expect(await tagIds()).toEqual(['2']);

    const comment = (await client.comments.list({ page: { limit: 1 } })).data[0]!;
    await signedIn.comments.replace(comment.id, 'author', '3');
    expect((await client.comments.relationship(comment.id, 'author')).data).toEqual({ type: 'people', id: '3' });
  });

  it('atomic runs operations in one request and answers their results', async () => {
    const results = await signedIn.atomic([
      { op: 'add', data: { type: 'tags', attributes: { name: 'atomic-a' } } },
      { op: 'add', data: { type: 'tags', attributes: { name: 'atomic-b' } } },
    ]);
    const added = results['atomic:results'].map((r) => r.data);
    expect(added.map((r) => r?.type)).toEqual(['tags', 'tags']);
    const names = await client.tags.list({ filter: { name: { in: ['atomic-a', 'atomic-b'] } } });
    expect(names.data.map((t) => t.attributes.name).sort()).toEqual(['atomic-a', 'atomic-b']);

    const failed = await signedIn
      .atomic([{ op: 'remove', ref: { type: 'tags', id: '999999' } }])
      .catch((error: unknown) => error as JsonApiClientError);
    expect(failed).toBeInstanceOf(JsonApiClientError);
    expect((failed as JsonApiClientError).status).toBe(404);
  });
});

describe('what the client pulls into a bundle', () => {
  it('imports types only: nothing of the runtime or the schema is loaded with it', () => {
    const path = new URL('../../examples/blog/generated/client.ts', import.meta.url);
    const source = ts.createSourceFile(path.pathname, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    const imports = source.statements.filter(ts.isImportDeclaration);
    expect(imports.length).toBeGreaterThan(0);
    for (const declaration of imports) expect(declaration.importClause?.isTypeOnly, declaration.getText()).toBe(true);
    expect(source.statements.filter(ts.isExportDeclaration)).toEqual([]);
    // Nothing loaded at run time either: no import() or require().
    expect(source.text).not.toMatch(/\bimport\(|\brequire\(/);
  });
});
