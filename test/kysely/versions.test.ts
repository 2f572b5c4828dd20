/**
 * The store's versioned writes, called as the runtime calls them after an If-Match matched
 * (`context.ifMatch`), with a model read before a concurrent write: the database refuses the
 * stale write (412) in the statement itself, and an unconditional write moves the version on.
 */
import { Context, JsonApiError } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../examples/blog/store.js';
import { STORES, type Fixture, openFixture } from './harness.js';

describe.each(STORES)('versioned articles in the Kysely store (%s, %s runner)', (dialect, runner) => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await openFixture(dialect, 10, runner);
  });
  afterAll(async () => fixture?.close());

  const context = (ifMatch: boolean) =>
    Object.assign(new Context(new Request('http://localhost/articles/1')), { ifMatch });
  const version = async (id: number) =>
    (await fixture.database.db.selectFrom('articles').select('version').where('id', '=', id).executeTakeFirstOrThrow())
      .version;

  it('a conditional write of a model read before another write is refused by the database; nothing changes', async () => {
    const store = createStore(fixture.database.db).articles;
    const read = (await store.find('1', context(false)))!;
    expect(store.versionOf!(read, context(false))).toBe('1');
    await store.update(read, { attributes: { title: 'first writer' }, relationships: {} }, context(false));
    expect(await version(1)).toBe(2);
    const stale = store.update(read, { attributes: { title: 'second writer' }, relationships: {} }, context(true));
    await expect(stale).rejects.toBeInstanceOf(JsonApiError);
    await expect(stale).rejects.toMatchObject({ status: 412 });
    await expect(store.delete(read, context(true))).rejects.toMatchObject({ status: 412 });
    await expect(
      store.addToRelationship(read, { name: 'tags' } as never, [{ type: 'tags', id: '2' }], context(true)),
    ).rejects.toMatchObject({ status: 412 });
    const row = await fixture.database.db
      .selectFrom('articles')
      .select(['title', 'version'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ title: 'first writer', version: 2 });
  });

  it('a to-many change moves the version on', async () => {
    const store = createStore(fixture.database.db).articles;
    const read = (await store.find('2', context(false)))!;
    await store.addToRelationship(read, { name: 'tags' } as never, [{ type: 'tags', id: '3' }], context(true));
    expect(await version(2)).toBe(2);
  });
});
