/**
 * `preparedMysqlPool` on MariaDB: the store's writes go out prepared and its reads as text, as
 * the server's own counters of the one session show; the rows a prepared `insert ... returning`
 * gives back are read as the text protocol reads them (date-times as RFC 3339); a duplicate key
 * is still a 409 at its member, and a killed connection a 503; past `maxStatements` distinct
 * texts, writes go out as text.
 */
import { Attribute, Create, JsonApi, Show, defineResource } from 'jsonapi-gen';
import { sqlClientError } from 'jsonapi-gen/internal';
import { defineTableStore, kyselyTransaction, mysqlDateTimeText, preparedMysqlPool } from '@jsonapi-gen/kysely';
import { type Generated, Kysely, MysqlDialect, sql } from 'kysely';
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMysqlDatabase, type TestDatabase } from '../support/databases.js';
import { json } from '../support/validate.js';

interface Db {
  notes: { id: Generated<number>; title: string; due_at: string | null };
}

const JSONAPI = 'application/vnd.api+json';

/** The session's counters of prepared statements: prepares and executions so far. */
async function counters(pool: mysql.Pool): Promise<{ prepare: number; execute: number }> {
  // The pool has one connection, so this is the session Kysely's statements ran on.
  const [rows] = await pool
    .promise()
    .query<
      mysql.RowDataPacket[]
    >("show session status where variable_name in ('Com_stmt_prepare', 'Com_stmt_execute')");
  const value = (name: string) => Number(rows.find((r) => r.Variable_name === name)?.Value);
  return { prepare: value('Com_stmt_prepare'), execute: value('Com_stmt_execute') };
}

describe('preparedMysqlPool on MariaDB', () => {
  let database: TestDatabase;
  let pool: mysql.Pool;
  let db: Kysely<Db>;
  let api: JsonApi;

  beforeAll(async () => {
    database = await createMysqlDatabase();
    // One connection: the session counters read on the raw pool are those of Kysely's statements.
    pool = mysql.createPool({ uri: database.url, timezone: 'Z', typeCast: mysqlDateTimeText, connectionLimit: 1 });
    pool.on('connection', (connection) => connection.query("set time_zone = '+00:00'"));
    db = new Kysely<Db>({ dialect: new MysqlDialect({ pool: preparedMysqlPool(pool, { maxStatements: 5 }) }) });
    await db.schema
      .createTable('notes')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('title', 'varchar(255)', (c) => c.notNull().unique())
      .addColumn('due_at', 'datetime(3)')
      .execute();
    const store = defineTableStore(db, { notes: { table: 'notes', columns: { dueAt: 'due_at' } } });
    api = new JsonApi({ transaction: kyselyTransaction(db) }).resource({
      ...defineResource({
        type: 'notes',
        fields: [
          Attribute.make('title').type('string').writable().required(),
          Attribute.make('dueAt').type('date-time').nullable().writable(),
        ],
        endpoints: [Show.make(), Create.make()],
      }),
      ...store.notes,
    });
  });

  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const create = (attributes: Record<string, unknown>) =>
    api.fetch(
      new Request('http://localhost/notes', {
        method: 'POST',
        headers: { 'content-type': JSONAPI },
        body: JSON.stringify({ data: { type: 'notes', attributes } }),
      }),
    );

  it('sends writes prepared, once per text, and reads as text', async () => {
    const before = await counters(pool);
    for (const title of ['a', 'b', 'c']) await db.insertInto('notes').values({ title, due_at: null }).execute();
    await db.updateTable('notes').set({ title: 'c2' }).where('title', '=', 'c').execute();
    await db.deleteFrom('notes').where('title', '=', 'c2').execute();
    const afterWrites = await counters(pool);
    // Three texts prepared once each; five executions.
    expect(afterWrites.prepare - before.prepare).toBe(3);
    expect(afterWrites.execute - before.execute).toBe(5);
    const rows = await db.selectFrom('notes').select('title').where('title', 'in', ['a', 'b']).orderBy('title').execute();
    expect(rows).toEqual([{ title: 'a' }, { title: 'b' }]);
    expect(await counters(pool)).toEqual(afterWrites);
    await db.deleteFrom('notes').execute();
  });

  it('creates through the store, prepared, with the row read back as the text protocol reads it', async () => {
    const before = await counters(pool);
    const response = await create({ title: 'due soon', dueAt: '2024-03-01T09:30:00.250+02:00' });
    expect(response.status).toBe(201);
    const created = (await json(response)).data;
    // The instant in UTC with milliseconds, as mysqlDateTimeText reads a text result.
    expect(created.attributes).toEqual({ title: 'due soon', dueAt: '2024-03-01T07:30:00.250Z' });
    expect((await counters(pool)).execute).toBeGreaterThan(before.execute);
    const shown = await json(await api.fetch(new Request(`http://localhost/notes/${created.id}`)));
    expect(shown.data.attributes).toEqual(created.attributes);
  });

  it('answers a duplicate key, sent prepared, with 409 at the member that holds it', async () => {
    expect((await create({ title: 'twice', dueAt: null })).status).toBe(201);
    const before = await counters(pool);
    const response = await create({ title: 'twice', dueAt: null });
    expect(response.status).toBe(409);
    expect((await json(response)).errors[0].source).toEqual({ pointer: '/data/attributes/title' });
    expect((await counters(pool)).execute).toBeGreaterThan(before.execute);
  });

  it('sends writes as text past maxStatements distinct texts', async () => {
    // Five texts so far (the four writes of the first test, the store's insert): a sixth goes as text.
    const before = await counters(pool);
    await db.updateTable('notes').set({ due_at: null }).where('title', '=', 'twice').execute();
    const after = await counters(pool);
    expect(after).toEqual(before);
    expect(
      await db.selectFrom('notes').select('due_at').where('title', '=', 'twice').executeTakeFirstOrThrow(),
    ).toEqual({ due_at: null });
  });

  it('answers 503 for a prepared write on a connection the server killed', async () => {
    const thrown = await db.connection().execute(async (victim) => {
      const { rows } = await sql<{ id: number }>`select connection_id() as id`.execute(victim);
      // Another connection kills this one: the pool of one would wait for it, so a connection of its own.
      const connection = await mysqlPromise.createConnection({ uri: database.url });
      try {
        await connection.query(`kill connection ${rows[0]!.id}`);
      } finally {
        await connection.end();
      }
      return victim
        .insertInto('notes')
        .values({ title: 'a', due_at: null })
        .execute()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
    });
    expect(thrown).toBeDefined();
    expect((sqlClientError(thrown) as { status?: number }).status).toBe(503);
  });
});
