/**
 * What the Kysely store does differently on MySQL and MariaDB, on a table with MySQL's default
 * case-insensitive collation: case-sensitive text operators stay case-sensitive and the
 * case-insensitive ones ignore case; LIKE patterns match literally; date-times sent with an
 * offset are stored and compared as UTC instants and served as RFC 3339; a duplicate key is a
 * 409 at its member; lock waits and deadlocks are conflicts worth running the transaction again;
 * a connection the server killed is a 503; more concurrent first writes than the pool has
 * connections all succeed (the store reads what it needs inside their transactions).
 */
import { Attribute, Create, Index, JsonApi, Show, Where, defineResource } from 'jsonapi-gen';
import { conflictAborted, sqlClientError } from 'jsonapi-gen/internal';
import { defineTableStore, kyselyTransaction } from '@jsonapi-gen/kysely';
import { type Generated, type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { assumeInsertReturning, insertReturning } from '../../integrations/kysely/mysql-server.js';
import { json } from '../support/validate.js';
import { tableSuite } from './harness.js';

interface Db {
  notes: { id: Generated<number>; title: string; label: string; due_at: string | null };
}

const JSONAPI = 'application/vnd.api+json';

/** The notes served from `db` through the Kysely store, in a transaction per write. */
function notesApi(db: Kysely<Db>): JsonApi {
  const store = defineTableStore(db, { notes: { table: 'notes', columns: { dueAt: 'due_at' } } });
  return new JsonApi({ transaction: kyselyTransaction(db) }).resource({
    ...defineResource({
      type: 'notes',
      fields: [
        Attribute.make('title').type('string').writable().required(),
        Attribute.make('label').type('string'),
        Attribute.make('dueAt').type('date-time').nullable().writable(),
      ],
      filters: [
        Where.make('title').operators('eq', 'contains', 'startsWith'),
        Where.make('label').operators('contains').caseInsensitive(),
        Where.make('dueAt').operators('gte', 'lt'),
      ],
      endpoints: [Show.make(), Index.make(), Create.make()],
    }),
    ...store.notes,
  });
}

describe('the Kysely store on MySQL', () => {
  const suite = tableSuite<Db>('mysql', async (db) => {
    await db.schema
      .createTable('notes')
      .modifyEnd(sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_general_ci`)
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('title', 'varchar(255)', (c) => c.notNull().unique())
      .addColumn('label', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('due_at', 'datetime(3)')
      .execute();
    await db
      .insertInto('notes')
      .values([
        { title: 'Plan ABC', label: 'Plan ABC', due_at: '2024-01-01 08:00:00.000' },
        { title: 'plan abc, again', label: 'plan abc, again', due_at: '2024-01-02 08:00:00.000' },
        { title: '50% off', label: '50% off', due_at: null },
        { title: '500 offers', label: '500 offers', due_at: null },
      ])
      .execute();
    return notesApi(db);
  });

  const titles = async (query: string) => {
    const body = await json(await suite.api.fetch(new Request(`http://localhost/notes?${query}`)));
    return (body.data as Array<{ attributes: { title: string } }>).map((n) => n.attributes.title).sort();
  };
  const create = (attributes: Record<string, unknown>) =>
    suite.api.fetch(
      new Request('http://localhost/notes', {
        method: 'POST',
        headers: { 'content-type': JSONAPI, accept: JSONAPI },
        body: JSON.stringify({ data: { type: 'notes', attributes } }),
      }),
    );

  it('matches text case-sensitively with contains and startsWith, whatever the column collation', async () => {
    expect(await titles('filter[title][contains]=abc')).toEqual(['plan abc, again']);
    expect(await titles('filter[title][startsWith]=Plan')).toEqual(['Plan ABC']);
  });

  it('ignores case where the filter says so', async () => {
    expect(await titles('filter[label][contains]=ABC')).toEqual(['Plan ABC', 'plan abc, again']);
  });

  it('matches %, _ and \\ literally', async () => {
    expect(await titles(`filter[title][contains]=${encodeURIComponent('50%')}`)).toEqual(['50% off']);
    expect(await titles(`filter[label][contains]=${encodeURIComponent('0_o')}`)).toEqual([]);
    expect(await titles(`filter[title][contains]=${encodeURIComponent('\\')}`)).toEqual([]);
  });

  it('stores a date-time sent with an offset as its UTC instant, serves and compares it as one', async () => {
    const response = await create({ title: 'Offset', dueAt: '2024-01-03T10:00:00.5+02:00' });
    expect(response.status).toBe(201);
    expect((await json(response)).data.attributes.dueAt).toBe('2024-01-03T08:00:00.500Z');
    const [row] = await sql<{ due_at: string }>`select cast(due_at as char) as due_at from notes where title = 'Offset'`
      .execute(suite.db)
      .then((r) => r.rows);
    expect(row?.due_at).toBe('2024-01-03 08:00:00.500');
    expect(await titles(`filter[dueAt][gte]=${encodeURIComponent('2024-01-03T09:00:00.5+01:00')}`)).toEqual(['Offset']);
    expect(await titles(`filter[dueAt][lt]=${encodeURIComponent('2024-01-02T08:00:00.001Z')}`)).toEqual([
      'Plan ABC',
      'plan abc, again',
    ]);
  });

  it('answers a create with the row as stored: its generated id, column defaults and date-times as instants', async () => {
    const response = await create({ title: 'Stored', dueAt: '2024-01-04T23:30:00.25-01:00' });
    expect(response.status).toBe(201);
    const created = (await json(response)).data;
    expect(created.attributes).toEqual({ title: 'Stored', label: '', dueAt: '2024-01-05T00:30:00.250Z' });
    const [row] = await sql<{ id: number }>`select id from notes where title = 'Stored'`
      .execute(suite.db)
      .then((r) => r.rows);
    expect(created.id).toBe(String(row?.id));
    const shown = await json(await suite.api.fetch(new Request(`http://localhost/notes/${created.id}`)));
    expect(created).toEqual(shown.data);
  });

  it("answers a create with the row as stored on MySQL 8's path too: the row read back by its key", async () => {
    // The statements the store builds, by kind: an insert with or without `returning`, selects.
    const built: string[] = [];
    const db = suite.db.withPlugin({
      transformQuery: ({ node }) => {
        built.push(node.kind === 'InsertQueryNode' && node.returning ? 'insert returning' : node.kind);
        return node;
      },
      transformResult: ({ result }) => Promise.resolve(result),
    });
    assumeInsertReturning(db, false);
    const api = notesApi(db);
    const response = await api.fetch(
      new Request('http://localhost/notes', {
        method: 'POST',
        headers: { 'content-type': JSONAPI },
        body: JSON.stringify({
          data: { type: 'notes', attributes: { title: 'Read back', dueAt: '2024-01-06T12:00:00+03:00' } },
        }),
      }),
    );
    expect(response.status).toBe(201);
    const created = (await json(response)).data;
    expect(created.attributes).toEqual({ title: 'Read back', label: '', dueAt: '2024-01-06T09:00:00.000Z' });
    expect(created).toEqual((await json(await api.fetch(new Request(`http://localhost/notes/${created.id}`)))).data);
    expect(built).toContain('InsertQueryNode');
    expect(built).not.toContain('insert returning');
    // Where the server answers `returning` (MariaDB here), the store uses it.
    built.length = 0;
    assumeInsertReturning(db, undefined);
    const returned = await api.fetch(
      new Request('http://localhost/notes', {
        method: 'POST',
        headers: { 'content-type': JSONAPI },
        body: JSON.stringify({ data: { type: 'notes', attributes: { title: 'Returned too' } } }),
      }),
    );
    expect(returned.status).toBe(201);
    expect(built).toContain('insert returning');
  });

  it('answers a duplicate key with 409 at the member that holds it', async () => {
    const response = await create({ title: '50% off' });
    expect(response.status).toBe(409);
    expect((await json(response)).errors[0].source).toEqual({ pointer: '/data/attributes/title' });
  });

  it('takes a lock wait past its timeout for a conflict to run again', async () => {
    // Two connections of the suite's pool: one holds a row lock, the other waits for it.
    await suite.db.connection().execute(async (holder) => {
      await sql`start transaction`.execute(holder);
      try {
        await sql`update notes set label = 'held' where title = 'Plan ABC'`.execute(holder);
        await suite.db.connection().execute(async (waiter) => {
          await sql`set session innodb_lock_wait_timeout = 1`.execute(waiter);
          await sql`start transaction`.execute(waiter);
          try {
            const thrown = await sql`update notes set label = 'waited' where title = 'Plan ABC'`.execute(waiter).then(
              () => undefined,
              (error: unknown) => error,
            );
            expect((thrown as { errno?: number }).errno).toBe(1205);
            expect(conflictAborted(thrown)).toBe(true);
          } finally {
            await sql`rollback`.execute(waiter);
          }
        });
      } finally {
        await sql`rollback`.execute(holder);
      }
    });
  });

  it('answers 503 for a statement on a connection the server killed, and for the next one on it', async () => {
    const thrown = await suite.db.connection().execute(async (victim) => {
      const { rows } = await sql<{ id: number }>`select connection_id() as id`.execute(victim);
      await sql`kill connection ${sql.raw(String(rows[0]!.id))}`.execute(suite.db);
      const fail = () =>
        sql`select 1`.execute(victim).then(
          () => undefined,
          (error: unknown) => error,
        );
      // The socket the server ended (EPIPE, or its word that it killed the session), then mysql2's "closed state".
      return [await fail(), await fail()];
    });
    expect(thrown[0]).toBeDefined();
    expect((thrown[1] as Error | undefined)?.message).toMatch(/closed state/);
    for (const error of thrown) expect((sqlClientError(error) as { status?: number }).status).toBe(503);
  });
});

describe('which MySQL-protocol servers answer insert ... returning', () => {
  it('is MariaDB from 10.5 on, whatever follows or precedes its number; never MySQL', () => {
    expect(insertReturning('10.11.19-MariaDB-0+deb12u1')).toBe(true);
    expect(insertReturning('10.5.0-MariaDB')).toBe(true);
    expect(insertReturning('11.4.2-MariaDB-log')).toBe(true);
    expect(insertReturning('5.5.5-10.6.12-MariaDB')).toBe(true);
    expect(insertReturning('10.4.32-MariaDB')).toBe(false);
    expect(insertReturning('8.0.36')).toBe(false);
    expect(insertReturning('8.4.0-commercial')).toBe(false);
    expect(insertReturning('')).toBe(false);
  });
});

describe('the Kysely store on MySQL, its first writes all at once', () => {
  // A pool of 10 (test/support/databases.ts) and more creates than that before the store has
  // read which columns are date-times: each create's transaction holds a connection while it
  // writes, so that read must not wait for another one.
  const suite = tableSuite<Db>('mysql', async (db) => {
    await db.schema
      .createTable('notes')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('title', 'varchar(255)', (c) => c.notNull().unique())
      .addColumn('label', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('due_at', 'datetime(3)')
      .execute();
    return notesApi(db);
  });

  it('answers 12 concurrent creates on a pool of 10, each readable with its date-time', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        suite.api
          .fetch(
            new Request('http://localhost/notes', {
              method: 'POST',
              headers: { 'content-type': JSONAPI, accept: JSONAPI },
              body: JSON.stringify({
                data: { type: 'notes', attributes: { title: `n${i}`, dueAt: '2024-01-03T10:00:00+02:00' } },
              }),
            }),
          )
          .then((response) => response.status),
      ),
    );
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 201));
    const body = await json(await suite.api.fetch(new Request('http://localhost/notes')));
    const notes = body.data as Array<{ attributes: { dueAt: string } }>;
    expect(notes).toHaveLength(12);
    expect(new Set(notes.map((n) => n.attributes.dueAt))).toEqual(new Set(['2024-01-03T08:00:00.000Z']));
  }, 15_000);
});
