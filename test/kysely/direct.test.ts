/**
 * `sqliteKysely(database, { runner: 'direct' })` (the demo's database without `log`): outside
 * transactions the Kysely store runs its compiled reads on SQLite directly. The same requests
 * answer exactly as through Kysely (the default runner, which the logged database here has), a read never sees what an open transaction has not committed, and a read
 * while a stream holds the connection runs alongside it. Inside the transactions of write
 * requests, statements run on SQLite directly too: concurrent writes take turns and each
 * commits, and a failing batch leaves nothing behind.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'jsonapi-gen';
import { executorFor, kyselyTransaction, withTransaction } from '@jsonapi-gen/kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { READ_PATHS, read } from './read-paths.js';

const context = { getAttribute: () => undefined } as unknown as Context;
const signedIn = { attributes: { user: '1' } };

let directory: string;
let direct: OpenDatabase;
let logged: OpenDatabase;
const statements: string[] = [];

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'jsonapi-gen-direct-'));
  const file = join(directory, 'blog.sqlite');
  direct = openDatabase({ file, runner: 'direct' });
  await migrate(direct.db, 'sqlite');
  await seed(direct.db, 40);
  // The same file through Kysely all the way (the default runner), logged.
  logged = openDatabase({
    file,
    runner: 'kysely',
    log: (event) => void (event.level === 'query' && statements.push(event.query.sql)),
  });
});

afterAll(async () => {
  await direct.close();
  await logged.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('sqliteKysely, direct runner: reads outside transactions run on SQLite directly', () => {
  it('answers every kind of read exactly as Kysely does, and runs them without it', async () => {
    const directStore = createStore(direct.db);
    const viaDirect = createApi(directStore);
    const viaKysely = createApi(createStore(logged.db));
    // A custom filter too: its query is built anew on each request.
    for (const path of [...READ_PATHS, '/articles?filter[search]=index&sort=createdAt']) {
      statements.length = 0;
      const fromKysely = await read(viaKysely, path);
      expect(statements.length, path).toBeGreaterThan(0); // the reference did go through Kysely
      expect(await read(viaDirect, path), path).toEqual(fromKysely);
    }
  });

  it('an Index of Where filters, SortColumn sorts and a page builds no Kysely query once its shape has run', async () => {
    const store = createStore(direct.db);
    const api = createApi(store);
    const paths = [
      '/people?page[limit]=5',
      '/people?sort=-createdAt&filter[name]=Ada%20Lovelace',
      '/tags?sort=name&page[offset]=2',
    ];
    const get = async (path: string) => (await api.fetch(new Request(`http://localhost${path}`), signedIn)).json();
    const first = await Promise.all(paths.map(get));
    const building = vi.spyOn(direct.db, 'selectFrom');
    try {
      expect(await Promise.all(paths.map(get))).toEqual(first);
      expect(building).not.toHaveBeenCalled();
    } finally {
      building.mockRestore();
    }
    expect(first[0].data).toHaveLength(5);
  });

  it('a read while a transaction is open waits for it, and sees what it committed', async () => {
    const store = createStore(direct.db);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const transaction = withTransaction(direct.db, async () => {
      await executorFor(direct.db)
        .updateTable('articles')
        .set({ title: 'Committed title' })
        .where('id', '=', 4)
        .execute();
      written();
      await gate;
    });
    await wrote;
    // Left to Kysely, which waits for the transaction's connection.
    const read = store.articles.find('4', context);
    let settled = false;
    void Promise.resolve(read).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    release();
    await transaction;
    expect((await read)?.title).toBe('Committed title');
    expect((await store.articles.find('4', context))?.title).toBe('Committed title');
  });

  it('a read while a stream holds the connection runs alongside it', async () => {
    const store = createStore(direct.db);
    const rows = direct.db.selectFrom('articles').select('id').orderBy('id').stream();
    const first = await rows.next();
    expect(first.value).toEqual({ id: 1 });
    expect((await store.articles.find('2', context))?.id).toBe(2);
    let count = 1;
    for await (const _ of rows) count++;
    expect(count).toBe(40);
  });

  it('a read while a transaction is open never sees what it rolls back', async () => {
    const store = createStore(direct.db);
    const before = (await store.articles.find('5', context))?.title;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const transaction = withTransaction(
      direct.db,
      async () => {
        await executorFor(direct.db)
          .updateTable('articles')
          .set({ title: 'Never committed' })
          .where('id', '=', 5)
          .execute();
        written();
        await gate;
        return 'roll back';
      },
      { rollbackIf: () => true },
    );
    await wrote;
    const read = store.articles.find('5', context);
    release();
    await transaction;
    expect((await read)?.title).toBe(before);
  });
});

describe('sqliteKysely, direct runner: write requests run their transactions on SQLite directly', () => {
  const articles = async () =>
    Number(
      (
        await direct.db
          .selectFrom('articles')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const post = (api: ReturnType<typeof createApi>, path: string, body: unknown) =>
    api.fetch(
      new Request(`http://localhost${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"' },
        body: JSON.stringify(body),
      }),
      signedIn,
    );

  it('concurrent creates take turns and each commits; a failing Atomic Operations batch leaves nothing', async () => {
    const api = createApi(createStore(direct.db), { transaction: kyselyTransaction(direct.db) });
    const before = await articles();
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(api, '/articles', {
          data: {
            type: 'articles',
            attributes: { title: `Concurrent ${i}` },
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
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = await Promise.all(created.map(async (r) => (await r.json()).data.id as string));
    expect(new Set(ids).size).toBe(20);
    expect(await articles()).toBe(before + 20);
    const shown = await (
      await api.fetch(new Request(`http://localhost/articles/${ids[7]}?include=tags`), signedIn)
    ).json();
    expect(shown.data.attributes.title).toBe('Concurrent 7');
    expect(shown.included.map((tag: { id: string }) => tag.id).sort()).toEqual(['1', '2']);

    const taken = (await direct.db.selectFrom('tags').select('name').executeTakeFirstOrThrow()).name;
    const failed = await post(api, '/operations', {
      'atomic:operations': [
        {
          op: 'add',
          data: {
            type: 'articles',
            attributes: { title: 'Undone' },
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        },
        { op: 'add', data: { type: 'tags', attributes: { name: taken } } },
      ],
    });
    expect(failed.status).toBe(409);
    expect(await articles()).toBe(before + 20);
    expect(await direct.db.selectFrom('articles').select('id').where('title', '=', 'Undone').execute()).toEqual([]);
    // The connection is left as it was: the next write commits.
    const after = await post(api, '/articles', {
      data: {
        type: 'articles',
        attributes: { title: 'After' },
        relationships: { author: { data: { type: 'people', id: '1' } } },
      },
    });
    expect(after.status).toBe(201);
    expect(await articles()).toBe(before + 21);
  });

  it('concurrent writes share commits (group commit), and one failing among them leaves the others committed', async () => {
    const begun: string[] = [];
    const api = createApi(createStore(logged.db), { transaction: kyselyTransaction(logged.db) });
    const before = await articles();
    statements.length = 0;
    const bodies = Array.from({ length: 12 }, (_, i) => ({
      data: {
        type: 'articles',
        attributes: { title: `Grouped ${i}` },
        // Every fourth names a person who does not exist: 404, rolled back to its savepoint.
        relationships: {
          author: { data: { type: 'people', id: i % 4 === 3 ? '9999' : '1' } },
          tags: { data: [{ type: 'tags', id: '3' }] },
        },
      },
    }));
    const responses = await Promise.all(bodies.map((body) => post(api, '/articles', body)));
    begun.push(...statements);
    expect(responses.map((r) => r.status)).toEqual(bodies.map((_, i) => (i % 4 === 3 ? 404 : 201)));
    expect(await articles()).toBe(before + 9);
    const grouped = await direct.db
      .selectFrom('articles')
      .select('title')
      .where('title', 'like', 'Grouped %')
      .orderBy('title')
      .execute();
    expect(grouped.map((row) => row.title)).toEqual(
      bodies
        .filter((_, i) => i % 4 !== 3)
        .map((b) => b.data.attributes.title)
        .sort(),
    );
    // Fewer commits than requests: they shared them, each in its own savepoint.
    const commits = begun.filter((sql) => sql === 'commit').length;
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(commits).toBeLessThan(12);
    expect(begun.filter((sql) => sql === 'savepoint jsonapi_gen')).toHaveLength(12);
    expect(begun.filter((sql) => sql === 'rollback to jsonapi_gen')).toHaveLength(3);
  });

  it('when SQLite rolls the whole transaction back, the one that did it rejects alone: the group members before run again and commit, later ones commit', async () => {
    const tag = (name: string) => executorFor(direct.db).insertInto('tags').values({ name }).execute();
    const tagged = async (name: string) =>
      (await direct.db.selectFrom('tags').select('id').where('name', '=', name).execute()).length;
    const first = withTransaction(direct.db, () => tag('group first'));
    const breaking = withTransaction(direct.db, async () => {
      await sql`rollback`.execute(executorFor(direct.db));
    });
    const last = withTransaction(direct.db, () => tag('group last'));
    const [a, b, c] = await Promise.allSettled([first, breaking, last]);
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('rejected');
    expect(c.status).toBe('fulfilled');
    // Once each: the first one's work was lost with the transaction, and done again.
    expect(await tagged('group first')).toBe(1);
    expect(await tagged('group last')).toBe(1);
  });

  it('a commit that fails (a deferred foreign key) rejects every member of its group, and writes nothing', async () => {
    const before = await articles();
    const orphan = withTransaction(direct.db, async () => {
      await sql`pragma defer_foreign_keys = on`.execute(executorFor(direct.db));
      await executorFor(direct.db)
        .insertInto('articles')
        .values({ title: 'Orphan', status: 'draft', author_id: 9999, created_at: 'x', updated_at: 'x' })
        .execute();
    });
    const innocent = withTransaction(direct.db, () =>
      executorFor(direct.db).insertInto('tags').values({ name: 'innocent' }).execute(),
    );
    const settled = await Promise.allSettled([orphan, innocent]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((settled[1] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
    expect(await articles()).toBe(before);
    expect(await direct.db.selectFrom('tags').select('id').where('name', '=', 'innocent').execute()).toEqual([]);
    await withTransaction(direct.db, () =>
      executorFor(direct.db).insertInto('tags').values({ name: 'afterwards' }).execute(),
    );
    expect(await direct.db.selectFrom('tags').select('id').where('name', '=', 'afterwards').execute()).toHaveLength(1);
  });

  it("commitAlone keeps a transaction out of the others' commit: its deferred constraint fails it alone", async () => {
    const before = await articles();
    const earlier = withTransaction(direct.db, () =>
      executorFor(direct.db).insertInto('tags').values({ name: 'before the loner' }).execute(),
    );
    const orphan = withTransaction(
      direct.db,
      async () => {
        await sql`pragma defer_foreign_keys = on`.execute(executorFor(direct.db));
        await executorFor(direct.db)
          .insertInto('articles')
          .values({ title: 'Orphan', status: 'draft', author_id: 9999, created_at: 'x', updated_at: 'x' })
          .execute();
      },
      { commitAlone: true },
    );
    const later = withTransaction(direct.db, () =>
      executorFor(direct.db).insertInto('tags').values({ name: 'after the loner' }).execute(),
    );
    const settled = await Promise.allSettled([earlier, orphan, later]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await articles()).toBe(before);
    const names = (await direct.db.selectFrom('tags').select('name').where('name', 'like', '% the loner').execute())
      .map((t) => t.name)
      .sort();
    expect(names).toEqual(['after the loner', 'before the loner']);
  });

  it('kyselyTransaction({ groupCommit: false }) commits every write request on its own', async () => {
    const api = createApi(createStore(logged.db), {
      transaction: kyselyTransaction(logged.db, { groupCommit: false }),
    });
    statements.length = 0;
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        post(api, '/articles', {
          data: {
            type: 'articles',
            attributes: { title: `Alone ${i}` },
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(statements.filter((sql) => sql === 'commit')).toHaveLength(4);
  });

  it("each transaction of a group runs in its caller's async context", async () => {
    const requestId = new AsyncLocalStorage<number>();
    const seen = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        requestId.run(i, () =>
          withTransaction(direct.db, async () => {
            await executorFor(direct.db).selectFrom('tags').select('id').execute();
            return requestId.getStore();
          }),
        ),
      ),
    );
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
