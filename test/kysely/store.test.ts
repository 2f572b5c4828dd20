import { Context, Delete, JsonApi, Show, ToMany, ToOne, can, defineResource } from 'jsonapi-gen';
import { defineTableStore, executorFor, kyselyTransaction, withTransaction } from '@jsonapi-gen/kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, type Fixture, openFixture } from './harness.js';

describe.each(STORES)('Kysely data layers on %s, %s runner', (dialect, runner) => {
  let f: Fixture;
  const count = async (table: 'articles' | 'comments' | 'people' | 'tags' | 'article_tags') =>
    Number(
      (
        await f.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    f = await openFixture(dialect, 60, runner);
  });
  afterAll(async () => {
    await f?.close();
  });

  describe('find', () => {
    it('reads a row keyed by attribute name, ids as strings, dates as ISO strings', async () => {
      const { status, body } = await f.request('GET', '/articles/1');
      expect(status).toBe(200);
      expect(body.data).toMatchObject({
        type: 'articles',
        id: '1',
        attributes: {
          title: 'Indexes in practice, part 1',
          body: 'Notes on indexes (1).',
          status: 'draft',
          createdAt: '2024-01-05T04:00:00.000Z',
          updatedAt: '2024-01-05T04:00:00.000Z',
        },
      });
      expect(Object.keys(body.data.attributes).sort()).toEqual(['body', 'createdAt', 'status', 'title', 'updatedAt']);
    });

    it.each(['999999', 'abc', '1.5', '-1', '99999999999999', '01'])('404 for id %s', async (id) => {
      const { status, body } = await f.request('GET', `/articles/${encodeURIComponent(id)}`);
      expect(status).toBe(404);
      expect(body.errors[0].status).toBe('404');
    });
  });

  describe('list, count, paginate', () => {
    it('pages with meta.total and a last link; default sort -createdAt', async () => {
      const { status, body } = await f.request('GET', '/articles?page[limit]=7&page[offset]=14');
      expect(status).toBe(200);
      expect(body.meta).toEqual({ total: 60 });
      expect(body.data.map((a: any) => a.id)).toEqual(['46', '45', '44', '43', '42', '41', '40']);
      expect(new URL(body.links.last).searchParams.get('page[offset]')).toBe('56');
      expect(new URL(body.links.next).searchParams.get('page[offset]')).toBe('21');
    });

    it('counts the filtered rows, not the page', async () => {
      const { body } = await f.request('GET', '/articles?filter[author]=2&page[limit]=5');
      expect(body.meta.total).toBe(12);
      expect(body.data).toHaveLength(5);
    });

    it('is not counted where the index is not countable', async () => {
      const { body } = await f.request('GET', '/people');
      expect(body.meta).toBeUndefined();
      expect(body.links.last).toBeUndefined();
      expect(body.data.map((p: any) => p.attributes.name)).toEqual(
        [...body.data.map((p: any) => p.attributes.name)].sort(),
      );
    });
  });

  describe('Where', () => {
    it('a string is one value', async () => {
      const { body } = await f.request(
        'GET',
        `/articles?filter[title]=${encodeURIComponent('Joins in practice, part 6')}`,
      );
      expect(body.data.map((a: any) => a.id)).toEqual(['6']);
    });

    it('an array matches any (IN)', async () => {
      const { body } = await f.request('GET', '/articles?filter[author][]=1&filter[author][]=3&page[limit]=50');
      expect(body.meta.total).toBe(24);
      const authors = await f.database.db.selectFrom('articles').select(['id', 'author_id']).execute();
      const expected = authors.filter((a) => a.author_id === 1 || a.author_id === 3).map((a) => String(a.id));
      expect(body.data.map((a: any) => a.id).sort()).toEqual(expected.sort());
    });

    it('combines with a CustomFilter on the query builder', async () => {
      const { body } = await f.request('GET', '/articles?filter[search]=JOINS&filter[author]=1');
      expect(body.data.length).toBeGreaterThan(0);
      for (const article of body.data) expect(article.attributes.title).toMatch(/^Joins/);
    });

    it('one shape compiled once serves each request its own values: rows, total, page', async () => {
      const rows = await f.database.db.selectFrom('articles').select(['id', 'author_id', 'created_at']).execute();
      const expected = (authors: number[], offset: number, limit: number) => {
        const matching = rows.filter((r) => authors.includes(r.author_id));
        // Default sort -createdAt, then the key.
        const at = (r: { created_at: string | Date }) => new Date(r.created_at).getTime();
        matching.sort((x, y) => at(y) - at(x) || x.id - y.id);
        return { total: matching.length, ids: matching.slice(offset, offset + limit).map((r) => String(r.id)) };
      };
      for (const [path, authors, offset, limit] of [
        ['/articles?filter[author]=1&page[limit]=4', [1], 0, 4],
        ['/articles?filter[author]=2&page[limit]=4&page[offset]=3', [2], 3, 4],
        ['/articles?filter[author][]=1&filter[author][]=3&page[limit]=5', [1, 3], 0, 5],
        ['/articles?filter[author][]=2&filter[author][]=4&page[limit]=6&page[offset]=2', [2, 4], 2, 6],
        ['/articles?filter[author]=4&page[limit]=4', [4], 0, 4],
      ] as const) {
        const { status, body } = await f.request('GET', path);
        expect(status).toBe(200);
        const want = expected([...authors], offset, limit);
        expect({ total: body.meta.total, ids: body.data.map((a: any) => a.id) }).toEqual(want);
      }
    });

    it('a CustomFilter before or after a Where sees and keeps the whole query', async () => {
      const rows = await f.database.db.selectFrom('articles').select(['id', 'title', 'author_id']).execute();
      const want = rows
        .filter((r) => r.author_id === 1 && r.title.toLowerCase().includes('joins'))
        .map((r) => String(r.id));
      expect(want.length).toBeGreaterThan(0);
      for (const path of [
        '/articles?filter[author]=1&filter[search]=joins&page[limit]=50',
        '/articles?filter[search]=joins&filter[author]=1&page[limit]=50',
      ]) {
        const { body } = await f.request('GET', path);
        expect(body.meta.total).toBe(want.length);
        expect(body.data.map((a: any) => a.id).sort()).toEqual([...want].sort());
      }
    });

    it('a filter hidden by its callback is a 400, shown with a user', async () => {
      expect((await f.request('GET', '/articles?filter[status]=draft')).status).toBe(400);
      const { status, body } = await f.request('GET', '/articles?filter[status]=draft', '1');
      expect(status).toBe(200);
      expect(body.meta.total).toBe(20);
    });
  });

  describe('SortColumn', () => {
    it('orders by a column, both directions, several terms', async () => {
      const titles = (await f.database.db.selectFrom('articles').select('title').execute()).map((r) => r.title);
      const { body: asc } = await f.request('GET', '/articles?sort=title&page[limit]=50');
      expect(asc.data.map((a: any) => a.attributes.title)).toEqual([...titles].sort().slice(0, 50));
      const { body: desc } = await f.request('GET', '/articles?sort=-title&page[limit]=10');
      expect(desc.data.map((a: any) => a.attributes.title)).toEqual([...titles].sort().reverse().slice(0, 10));
      const { body: two } = await f.request('GET', '/articles?sort=-updatedAt,title&page[limit]=50');
      const keys = two.data.map((a: any) => [a.attributes.updatedAt, a.attributes.title]);
      const sorted = [...keys].sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : 1) : x[0] < y[0] ? 1 : -1));
      expect(keys).toEqual(sorted);
    });

    it('stays unambiguous when a join-table query is sorted', async () => {
      const { status, body } = await f.request('GET', '/tags/3/articles?sort=-createdAt&page[limit]=3');
      expect(status).toBe(200);
      const dates = body.data.map((a: any) => a.attributes.createdAt);
      expect(dates).toEqual([...dates].sort().reverse());
    });
  });

  describe('relationships', () => {
    it('to-one and join-table to-many linkage and includes match the tables', async () => {
      const { body } = await f.request('GET', '/articles/7?include=author,tags');
      const tagIds = (
        await f.database.db.selectFrom('article_tags').select('tag_id').where('article_id', '=', 7).execute()
      ).map((r) => String(r.tag_id));
      expect(body.data.relationships.author.data).toEqual({ type: 'people', id: '2' });
      expect(body.data.relationships.tags.data.map((t: any) => t.id).sort()).toEqual(tagIds.sort());
      expect(
        body.included
          .filter((r: any) => r.type === 'tags')
          .map((t: any) => t.id)
          .sort(),
      ).toEqual(tagIds.sort());
      const author = body.included.find((r: any) => r.type === 'people');
      expect(author.attributes).toMatchObject({ name: expect.any(String), createdAt: '2024-01-01T01:00:00.000Z' });
    });

    it('reads related rows with the related resource’s column mapping', async () => {
      const { body } = await f.request('GET', '/comments/1?include=article,author');
      const article = body.included.find((r: any) => r.type === 'articles');
      expect(Object.keys(article.attributes).sort()).toEqual(['body', 'createdAt', 'status', 'title', 'updatedAt']);
      expect(article.attributes.createdAt).toBe('2024-01-05T04:00:00.000Z');
    });

    it('to-one and to-many related endpoints', async () => {
      const author = await f.request('GET', '/articles/3/author');
      expect(author.body.data).toMatchObject({ type: 'people', id: '3' });
      const linkage = await f.request('GET', '/articles/3/relationships/tags');
      expect(linkage.status).toBe(200);
      expect(Array.isArray(linkage.body.data)).toBe(true);
    });

    it.each([5, 50])('one statement per relationship per include level (page of %i)', async (limit) => {
      f.statements.length = 0;
      const { body } = await f.request('GET', `/articles?page[limit]=${limit}&include=author,tags,comments.author`);
      expect(body.data).toHaveLength(limit);
      // count, page, author, tags, comments; comments.author names only people read for author already: no statement
      expect(f.statements).toHaveLength(5);
      expect(f.statements.filter((s) => /article_tags/.test(s))).toHaveLength(1);
      expect(f.statements.filter((s) => /from "people"/.test(s))).toHaveLength(1);
      const people = new Set(body.included.filter((r: any) => r.type === 'people').map((r: any) => r.id));
      const comments = body.included.filter((r: any) => r.type === 'comments');
      expect(comments.length).toBeGreaterThan(0);
      for (const comment of comments) expect(people.has(comment.relationships.author.data.id)).toBe(true);
    });

    it('a to-one include naming rows the request has not read yet reads them', async () => {
      f.statements.length = 0;
      const { body } = await f.request('GET', '/articles?sort=createdAt&page[limit]=2&include=author,comments.author');
      const authors = new Set(body.data.map((a: any) => a.relationships.author.data.id));
      const commenters = new Set<string>(
        body.included.filter((r: any) => r.type === 'comments').map((c: any) => c.relationships.author.data.id),
      );
      // The seed makes these commenters people read already (an author) and people not.
      expect([...commenters].some((id) => authors.has(id))).toBe(true);
      expect([...commenters].some((id) => !authors.has(id))).toBe(true);
      expect(f.statements.filter((s) => /from "people"/.test(s))).toHaveLength(2);
      const people = body.included.filter((r: any) => r.type === 'people').map((r: any) => r.id);
      expect(new Set(people)).toEqual(new Set([...authors, ...commenters]));
      expect(people).toHaveLength(new Set(people).size);
    });
  });

  describe('queryRelated', () => {
    it('serves /articles/1/comments with the comments’ filters, sorts and pagination', async () => {
      const all = await f.database.db
        .selectFrom('comments')
        .selectAll()
        .where('article_id', '=', 1)
        .orderBy('created_at', 'desc')
        .execute();
      const { status, body } = await f.request('GET', '/articles/1/comments?sort=-createdAt&page[limit]=2');
      expect(status).toBe(200);
      expect(body.data.map((c: any) => c.id)).toEqual(all.slice(0, 2).map((c) => String(c.id)));
      expect(body.links.next).toContain('page%5Boffset%5D=2');
      const byAuthor = await f.request('GET', `/articles/1/comments?filter[author]=${all[1]!.author_id}`);
      expect(byAuthor.body.data.map((c: any) => c.id)).toEqual(
        all
          .filter((c) => c.author_id === all[1]!.author_id)
          .map((c) => String(c.id))
          .sort((a, b) => Number(a) - Number(b)),
      );
    });

    it('serves a join-table to-many with filters', async () => {
      const { body } = await f.request('GET', '/articles/7/tags?sort=-name');
      const names = body.data.map((t: any) => t.attributes.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names).toEqual([...names].sort().reverse());
      const one = await f.request('GET', `/articles/7/tags?filter[name]=${names[0]}`);
      expect(one.body.data).toHaveLength(1);
    });
  });

  describe('can() and delete', () => {
    it('403 for a non-author, 204 for the author, then 404; comments go with it', async () => {
      // article 11 is by person ((11 - 1) % 5) + 1 = 1
      expect((await f.request('DELETE', '/articles/11')).status).toBe(403);
      expect((await f.request('DELETE', '/articles/11', '2')).status).toBe(403);
      expect(await count('articles')).toBe(60);
      expect((await f.request('DELETE', '/articles/11', '1')).status).toBe(204);
      expect((await f.request('GET', '/articles/11')).status).toBe(404);
      expect((await f.request('DELETE', '/articles/11', '1')).status).toBe(404);
      expect(await count('articles')).toBe(59);
      const left = await f.database.db.selectFrom('comments').select('id').where('article_id', '=', 11).execute();
      expect(left).toEqual([]);
    });

    it('a resource whose store has no policy fails loudly at registration rather than permitting', () => {
      const store = defineTableStore(f.database.db, { tags: { table: 'tags' } });
      const schema = defineResource({ type: 'tags', endpoints: [Show.make(), Delete.make().visible(can('delete'))] });
      expect(() => new JsonApi().resource({ ...schema, ...store.tags })).toThrow(
        /can\(\) on the delete endpoint needs the data layer's can\(\)/,
      );
    });

    it('policies are per store and see the ability, model and context', async () => {
      const seen: unknown[] = [];
      const store = defineTableStore(f.database.db, {
        tags: {
          table: 'tags',
          policy: (ability, tag, ctx) => (seen.push([ability, tag.name]), ctx.getAttribute('user') === 'admin'),
        },
      });
      const api = new JsonApi().resource({
        ...defineResource({ type: 'tags', endpoints: [Delete.make().visible(can('delete'))] }),
        ...store.tags,
      });
      const res = await api.fetch(new Request('http://localhost/tags/12', { method: 'DELETE' }), {
        attributes: { user: 'someone' },
      });
      expect(res.status).toBe(403);
      expect(seen).toEqual([['delete', 'api']]);
    });
  });

  describe('transactions', () => {
    it('withTransaction binds the data layers’ statements and rolls back when asked', async () => {
      const before = await count('articles');
      const response = await withTransaction(
        f.database.db,
        async (trx) => {
          const res = await f.api.fetch(new Request('http://localhost/articles/12', { method: 'DELETE' }), {
            attributes: { user: '2' },
          });
          expect(res.status).toBe(204);
          expect(executorFor(f.database.db)).toBe(trx);
          expect(await trx.selectFrom('articles').select('id').where('id', '=', 12).executeTakeFirst()).toBeUndefined();
          return new Response(null, { status: 409 });
        },
        { rollbackIf: (res) => res.status >= 400 },
      );
      expect(response.status).toBe(409);
      expect(executorFor(f.database.db)).toBe(f.database.db);
      expect(await count('articles')).toBe(before);
      expect((await f.request('GET', '/articles/12')).status).toBe(200);
    });

    it('rolls back when the callback throws, commits when it resolves', async () => {
      await expect(
        withTransaction(f.database.db, async () => {
          await f.api.handle(new Request('http://localhost/articles/12', { method: 'DELETE' }), {
            attributes: { user: '2' },
          });
          throw new Error('later step failed');
        }),
      ).rejects.toThrow('later step failed');
      expect((await f.request('GET', '/articles/12')).status).toBe(200);
      const res = await withTransaction(f.database.db, () =>
        f.api.fetch(new Request('http://localhost/articles/12', { method: 'DELETE' }), { attributes: { user: '2' } }),
      );
      expect(res.status).toBe(204);
      expect((await f.request('GET', '/articles/12')).status).toBe(404);
    });

    it('a transaction that ends while another is open leaves the other bound to its own transaction', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const seen: boolean[] = [];
      const second = withTransaction(f.database.db, async (trx) => {
        await held;
        seen.push(executorFor(f.database.db) === trx);
      });
      const first = withTransaction(f.database.db, async (trx) => {
        seen.push(executorFor(f.database.db) === trx);
      });
      // On PostgreSQL the first ends while the second waits; on SQLite (one connection) the
      // first waits for the second.
      setTimeout(release, 50);
      await Promise.all([first, second]);
      expect(seen).toEqual([true, true]);
      expect(executorFor(f.database.db)).toBe(f.database.db);
    });

    it('kyselyTransaction is the JsonApi transaction option; nested calls join it', async () => {
      const transaction = kyselyTransaction(f.database.db);
      const ctx = new Context(new Request('http://localhost/'));
      await expect(
        transaction(async () => {
          await transaction(async () => {
            // Bound to the request (its unit of work), not to the async context.
            expect(executorFor(f.database.db)).toBe(f.database.db);
            await executorFor(f.database.db, ctx).deleteFrom('comments').where('article_id', '=', 13).execute();
            await withTransaction(
              f.database.db,
              (trx) => trx.deleteFrom('comments').where('article_id', '=', 14).execute(),
              { context: ctx },
            );
          }, ctx);
          throw new Error('boom');
        }, ctx),
      ).rejects.toThrow('boom');
      const left = await f.database.db
        .selectFrom('comments')
        .select('id')
        .where('article_id', 'in', [13, 14])
        .execute();
      expect(left).toHaveLength(10);
    });
  });

  describe('SQL injection attempts change nothing', () => {
    it.each([
      `/articles?filter[title]=${encodeURIComponent("x' OR 1=1 --")}`,
      `/articles?filter[author][]=${encodeURIComponent('1); DROP TABLE articles; --')}`,
      `/articles?filter[author]=${encodeURIComponent("1' OR '1'='1")}`,
      `/articles?filter[search]=${encodeURIComponent("%' OR 1=1 --")}`,
      `/articles/${encodeURIComponent("1' OR 1=1 --")}`,
      `/articles/1/comments?filter[author]=${encodeURIComponent('1; DELETE FROM comments')}`,
    ])('%s', async (path) => {
      const before = {
        articles: await count('articles'),
        comments: await count('comments'),
        people: await count('people'),
      };
      const { status, body } = await f.request('GET', path);
      expect([200, 400, 404]).toContain(status);
      if (status === 200) expect(Array.isArray(body.data) ? body.data : [body.data]).toEqual([]);
      expect({
        articles: await count('articles'),
        comments: await count('comments'),
        people: await count('people'),
      }).toEqual(before);
    });

    it.each([`title'`, `"title"`, `title;drop table articles`, `title--`])('sort=%s is a 400', async (sort) => {
      const { status, body } = await f.request('GET', `/articles?sort=${encodeURIComponent(sort)}`);
      expect(status).toBe(400);
      expect(body.errors[0].source).toEqual({ parameter: 'sort' });
      expect(await count('articles')).toBeGreaterThan(0);
    });
  });

  it('a relationship the mapping does not map is rejected at registration', () => {
    const store = defineTableStore(f.database.db, { tags: { table: 'tags' } });
    const schema = defineResource({
      type: 'tags',
      fields: [ToMany.make('articles').type('articles')],
      endpoints: [Show.make()],
    });
    expect(() => new JsonApi().resource({ ...schema, ...store.tags })).toThrow(/related has no loader for "articles"/);
    void ToOne;
  });
});
