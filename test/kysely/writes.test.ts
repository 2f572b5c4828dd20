import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, type Fixture, openFixture } from './harness.js';

describe.each(STORES)('Kysely writes on %s, %s runner', (dialect, runner) => {
  let f: Fixture;
  const tagsOf = async (article: number) =>
    (
      await f.database.db
        .selectFrom('article_tags')
        .select('tag_id')
        .where('article_id', '=', article)
        .orderBy('tag_id')
        .execute()
    ).map((r) => String(r.tag_id));

  const isMariadb = async () => {
    const { rows } = await sql<{ version: string }>`select version() as version`.execute(f.database.db);
    return /MariaDB/.test(rows[0]!.version);
  };

  beforeAll(async () => {
    f = await openFixture(dialect, 30, runner);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates an article with its author and tags; server-set timestamps', async () => {
    f.statements.length = 0;
    const { status, body } = await f.request('POST', '/articles?include=tags', '2', {
      data: {
        type: 'articles',
        attributes: { title: 'Written through Kysely', body: 'x' },
        relationships: {
          author: { data: { type: 'people', id: '2' } },
          tags: {
            data: [
              { type: 'tags', id: '3' },
              { type: 'tags', id: '5' },
            ],
          },
        },
      },
    });
    expect(status).toBe(201);
    expect(body.data.id).toBe('31');
    expect(body.data.attributes).toMatchObject({ title: 'Written through Kysely', status: 'draft' });
    expect(Date.parse(body.data.attributes.createdAt)).toBeGreaterThan(Date.parse('2025-01-01'));
    expect(body.data.relationships.tags.data.map((t: any) => t.id)).toEqual(['3', '5']);
    // MySQL's store reads its date-time columns and the server's version once per database.
    const run = f.statements.filter(
      (s) =>
        !/^(begin|commit|savepoint|release|start transaction)/i.test(s) &&
        !/information_schema|^select version\(\)/.test(s),
    );
    expect(await tagsOf(31)).toEqual(['3', '5']);
    // One check of the author and both tags, the row inserted and returned whole (no re-read),
    // the tag links in one insert (on PostgreSQL, in the row's own statement); then
    // `include=tags` reads the tags. MySQL 8 has no `returning`: the row is read back by its
    // key; MariaDB has `insert ... returning`.
    const postgres = f.database.dialect === 'postgres';
    const mysql = f.database.dialect === 'mysql' && !(await isMariadb());
    expect(run).toHaveLength(postgres ? 3 : mysql ? 5 : 4);
    // `count(*)`, not `count(distinct id)`: the unscoped ids are primary keys, and MySQL and
    // MariaDB build a temporary table for every `count(distinct ...)`.
    expect(run[0]).toMatch(
      /^select \(select count\(\*\) as "n" from "people" where "people"\."id" in \([?$]1?\)\) as "n0", \(select count\(\*\) as "n" from "tags" where "tags"\."id" in /,
    );
    if (postgres) {
      expect(run[1]).toMatch(
        /^with "new" as \(insert into "articles" .* returning \*\), "m0" as \(insert into "article_tags" .*\) select \* from "new"$/,
      );
    } else if (mysql) {
      expect(run[1]).toMatch(/^insert into "articles" \(.*\) values \([?, ]+\)$/);
      expect(run[2]).toMatch(/^insert into "article_tags"/);
      expect(run[3]).toMatch(/^select "articles"\.\* from "articles" where "articles"\."id" = \?$/);
    } else {
      expect(run[1]).toMatch(/^insert into "articles" .* returning \*$/);
      expect(run[2]).toMatch(/^insert into "article_tags"/);
    }
    expect(run.at(-1)).toMatch(/^select "tags"\.\*, "article_tags"\."article_id"/);
  });

  it('checks written linkage with one count over all related types, then reads the type that fell short; each missing one is a 404 at its place', async () => {
    const articles = async () =>
      Number(
        (
          await f.database.db
            .selectFrom('articles')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await articles();
    f.statements.length = 0;
    const { status, body } = await f.request('POST', '/articles', '2', {
      data: {
        type: 'articles',
        attributes: { title: 'Linked to nothing' },
        relationships: {
          author: { data: { type: 'people', id: '2' } },
          tags: {
            data: [
              { type: 'tags', id: '3' },
              { type: 'tags', id: '99' },
              { type: 'tags', id: '5' },
              { type: 'tags', id: '98' },
              { type: 'tags', id: '99' },
            ],
          },
        },
      },
    });
    expect(status).toBe(404);
    expect(body.errors.map((e: any) => e.source.pointer)).toEqual([
      '/data/relationships/tags/data/1',
      '/data/relationships/tags/data/3',
      '/data/relationships/tags/data/4',
    ]);
    // The author and the tags counted at once; the tags (four distinct) read to tell which are missing; nothing written.
    const selects = f.statements.filter((s) => /^select/i.test(s));
    expect(selects).toHaveLength(2);
    expect(selects[0]).toMatch(/count\(\*\) as "n" from "people".*count\(\*\) as "n" from "tags"/);
    expect(selects[1]).toMatch(
      /^select "tags"\.\* from "tags" where "tags"\."id" in \([?$]1?, [?$]2?, [?$]3?, [?$]4?\)$/,
    );
    expect(f.statements.some((s) => /^insert/i.test(s))).toBe(false);
    expect(await articles()).toBe(before);
  });

  it('updates only for the author, replacing to-many linkage', async () => {
    const patch = {
      data: {
        type: 'articles',
        id: '31',
        attributes: { title: 'Renamed' },
        relationships: { tags: { data: [{ type: 'tags', id: '1' }] } },
      },
    };
    expect((await f.request('PATCH', '/articles/31', '3', patch)).status).toBe(403);
    f.statements.length = 0;
    const { status, body } = await f.request('PATCH', '/articles/31', '2', patch);
    expect(status).toBe(200);
    expect(body.data.attributes.title).toBe('Renamed');
    expect(await tagsOf(31)).toEqual(['1']);
    // The row comes back from its update: no read of it after the writes (on MySQL, which has
    // no `returning`, one read by key after the tags are written).
    const writes = f.statements.filter((s) => !/^(begin|commit|savepoint|release)/i.test(s));
    if (f.database.dialect === 'mysql') {
      const update = writes.findIndex((s) => /^update "articles" set .* where "id" = \?$/.test(s));
      expect(update).toBeGreaterThanOrEqual(0);
      expect(writes.slice(update + 1).filter((s) => /^select "articles"\.\*/.test(s))).toHaveLength(1);
      return;
    }
    const update = writes.findIndex((s) => /^update "articles" .* returning \*$/.test(s));
    expect(update).toBeGreaterThanOrEqual(0);
    expect(writes.slice(update + 1).some((s) => /^select "articles"\.\*/.test(s))).toBe(false);
  });

  it('adds to and removes from a join-table relationship', async () => {
    const add = await f.request('POST', '/articles/31/relationships/tags', '2', {
      data: [
        { type: 'tags', id: '7' },
        { type: 'tags', id: '8' },
      ],
    });
    expect([200, 204]).toContain(add.status);
    expect(await tagsOf(31)).toEqual(['1', '7', '8']);
    const remove = await f.request('DELETE', '/articles/31/relationships/tags', '2', {
      data: [{ type: 'tags', id: '1' }],
    });
    expect([200, 204]).toContain(remove.status);
    expect(await tagsOf(31)).toEqual(['7', '8']);
  });

  it('a unique violation is a 409 and writes nothing', async () => {
    const { status, body } = await f.request('POST', '/tags', undefined, {
      data: { type: 'tags', attributes: { name: 'sqlite' } },
    });
    expect(status).toBe(409);
    expect(body.errors[0].status).toBe('409');
  });

  it('Atomic Operations run in one transaction: a failing operation undoes the others', async () => {
    const people = Number(
      (
        await f.database.db
          .selectFrom('people')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const { status } = await f.request('POST', '/operations', '1', {
      'atomic:operations': [
        { op: 'add', data: { type: 'people', attributes: { name: 'Rolled Back' } } },
        { op: 'add', data: { type: 'tags', attributes: { name: 'sqlite' } } },
      ],
    });
    expect(status).toBe(409);
    const after = Number(
      (
        await f.database.db
          .selectFrom('people')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(after).toBe(people);
    const ok = await f.request('POST', '/operations', '1', {
      'atomic:operations': [
        { op: 'add', data: { type: 'people', lid: 'p', attributes: { name: 'Kept' } } },
        {
          op: 'add',
          data: {
            type: 'articles',
            attributes: { title: 'By lid' },
            relationships: { author: { data: { type: 'people', lid: 'p' } } },
          },
        },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body['atomic:results']).toHaveLength(2);
  });
});
