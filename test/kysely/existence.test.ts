/**
 * The shared existence check (`Findable.existence`) of the Kysely, Prisma and Drizzle stores,
 * which the runtime uses to check the linkage of a write to several types at once: the same
 * answers as each type's `findMany`, scopes included (the scoped store's), in one statement when
 * every id exists (one per type on Prisma). And a create's row, taken
 * from its `insert ... returning *`, is the row Show reads.
 */
import { Context } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIZZLE_STORES, PRISMA_STORES, STORES, type Fixture, openFixture } from './harness.js';

describe.each([...STORES, ...PRISMA_STORES, ...DRIZZLE_STORES])(
  'existence and created rows on %s, %s',
  (dialect, runner) => {
    let f: Fixture;

    beforeAll(async () => {
      f = await openFixture(dialect, 60, runner);
    });
    afterAll(async () => {
      await f?.close();
    });

    it('answers exactly what each findMany says, within each scope, in one statement when every id exists', async () => {
      const store = f.store({ scoped: true });
      const check = store.articles.existence!.check;
      expect(store.people.existence!.check).toBe(check);
      const drafts = (
        await f.database.db
          .selectFrom('articles')
          .select(['id', 'author_id'])
          .where('status', '=', 'draft')
          .orderBy('id')
          .execute()
      ).map((r) => ({ id: String(r.id), author: String(r.author_id) }));
      const published = (
        await f.database.db
          .selectFrom('articles')
          .select('id')
          .where('status', '=', 'published')
          .orderBy('id')
          .limit(3)
          .execute()
      ).map((r) => String(r.id));
      const someone = drafts[0]!.author;
      const theirs = drafts.filter((d) => d.author === someone).map((d) => d.id);
      const others = drafts
        .filter((d) => d.author !== someone)
        .map((d) => d.id)
        .slice(0, 2);
      expect(theirs.length).toBeGreaterThan(0);
      expect(others.length).toBeGreaterThan(0);
      for (const user of [someone, undefined]) {
        const ctx = new Context(new Request('http://localhost/'), user === undefined ? {} : { user });
        const cases: Array<{ member: 'articles' | 'people' | 'tags'; ids: string[] }> = [
          { member: 'articles', ids: [...published, ...theirs.slice(0, 2), ...others, '999999', 'abc', '01'] },
          { member: 'people', ids: ['1', '2', '999', 'x'] },
          { member: 'tags', ids: ['1', '12', '13'] },
        ];
        const answers = await check.exist(cases, ctx);
        for (const [i, { member, ids }] of cases.entries()) {
          const models = await store[member].findMany!(ids, ctx);
          expect(answers[i], `${member} for ${user}`).toEqual(models.map((m) => m !== null && m !== undefined));
        }
        expect(answers[0]!.slice(published.length, published.length + 2)).toEqual(
          theirs.slice(0, 2).map(() => user === someone),
        );
      }
      f.statements.length = 0;
      const ctx = new Context(new Request('http://localhost/'), { user: someone });
      expect(
        await check.exist(
          [
            { member: 'articles', ids: [...published, ...theirs] },
            { member: 'people', ids: ['1', '2'] },
          ],
          ctx,
        ),
      ).toEqual([[...published, ...theirs].map(() => true), [true, true]]);
      // The Kysely and Drizzle stores ask once for every type; the Prisma store once per type.
      expect(f.statements).toHaveLength(runner === 'prisma' ? 2 : 1);
    });

    it('a create answers with the row as show reads it (insert ... returning *)', async () => {
      const created = await f.request('POST', '/people', undefined, {
        data: { type: 'people', attributes: { name: 'Returning Row', email: 'returning@example.com' } },
      });
      expect(created.status).toBe(201);
      const shown = await f.request('GET', `/people/${created.body.data.id}`);
      expect(created.body.data).toEqual(shown.body.data);
      // An article (its version from the table's default), with tags: the links do not change the row.
      const article = await f.request('POST', '/articles', '1', {
        data: {
          type: 'articles',
          attributes: { title: 'Returned whole' },
          relationships: { author: { data: { type: 'people', id: '1' } }, tags: { data: [{ type: 'tags', id: '2' }] } },
        },
      });
      expect(article.status).toBe(201);
      const show = await f.request('GET', `/articles/${article.body.data.id}`);
      expect(article.body.data).toEqual(show.body.data);
      expect(article.body.data.attributes.status).toBe('draft');
    });
  },
);
