/**
 * `mysqlPreparedPool`: Kysely's statements sent prepared over a real MariaDB connection. One
 * connection per pool (connectionLimit 1), so the session's `Com_stmt_*` counters are what that
 * connection did. The bound test runs first: the set of prepared texts is process-wide, and
 * vitest gives each test file a fresh module. The server's own limit on prepared statements
 * (`max_prepared_stmt_count`, global) is tried on a MariaDB of this file's own, so that no other
 * suite's statements are refused meanwhile.
 */
import { type ColumnType, type Generated, Kysely, MysqlDialect, sql } from 'kysely';
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlDateTimeText, rfc3339 } from '../../integrations/kysely/mysql-values.js';
import { mysqlPreparedPool } from '../../integrations/kysely/mysql-prepared-pool.js';
import { type TestDatabase, createMysqlDatabase } from '../support/databases.js';
import { startMariadb } from '../support/mariadb.js';

interface Tables {
  notes: {
    id: Generated<number>;
    body: string;
    at: string;
    at_seconds: string;
    stamped: ColumnType<string, string | undefined, string>;
    day: string | Date;
    ratio: number;
  };
}

let database: TestDatabase;
const opened: Array<Kysely<Tables>> = [];

type PoolKind = 'prepared' | 'prepared without dateStrings' | 'prepared with typeCast' | 'plain with typeCast';

function open(kind: PoolKind, options: { maxStatements?: number; url?: string } = {}): Kysely<Tables> {
  const uri = options.url ?? database.url;
  const pool = mysql.createPool({
    uri,
    connectionLimit: 1,
    timezone: 'Z',
    ...(kind === 'prepared' && { dateStrings: true }),
    ...(kind.endsWith('typeCast') && { typeCast: mysqlDateTimeText }),
  });
  pool.on('connection', (connection) => connection.query("set time_zone = '+00:00'"));
  const bound = options.maxStatements === undefined ? {} : { maxStatements: options.maxStatements };
  const db = new Kysely<Tables>({
    dialect: new MysqlDialect({ pool: kind.startsWith('prepared') ? mysqlPreparedPool(pool, bound) : pool }),
  });
  opened.push(db);
  return db;
}

/** The session counters of `db`'s one connection: statements prepared, and executed prepared. */
async function counters(db: Kysely<Tables>): Promise<{ prepared: number; executed: number }> {
  const { rows } = await sql<{
    Variable_name: string;
    Value: string;
  }>`show session status where Variable_name in ('Com_stmt_prepare', 'Com_stmt_execute')`.execute(db);
  const value = (name: string) => Number(rows.find((r) => r.Variable_name === name)?.Value);
  return { prepared: value('Com_stmt_prepare'), executed: value('Com_stmt_execute') };
}

const CREATE_NOTES = sql`create table notes (
  id integer primary key auto_increment,
  body varchar(255) not null unique,
  at datetime(3) not null,
  at_seconds datetime not null,
  stamped timestamp(3) not null default '2024-01-01 00:00:00.000',
  day date not null,
  ratio float not null
) engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`;

beforeAll(async () => {
  database = await createMysqlDatabase();
  const setup = open('plain with typeCast');
  await CREATE_NOTES.execute(setup);
  await setup
    .insertInto('notes')
    .values([
      { body: 'a', at: '2024-01-05 04:00:00.5', at_seconds: '2024-01-05 04:00:07', day: '2024-01-05', ratio: 0.1 },
      {
        body: 'b',
        at: '2024-02-29 23:59:59.999',
        at_seconds: '2024-02-29 23:59:59',
        day: '2024-02-29',
        ratio: 123456.7,
      },
      { body: 'c', at: '2024-03-01 00:00:00', at_seconds: '2024-03-01 00:00:00', day: '2024-03-01', ratio: 1234567 },
    ])
    .execute();
});

afterAll(async () => {
  for (const db of opened) await db.destroy();
  await database.drop();
});

describe('mysqlPreparedPool', () => {
  it('prepares at most maxStatements distinct texts; the rest go as text and still answer', async () => {
    const db = open('prepared', { maxStatements: 3 });
    const before = await counters(db);
    // Eight shapes: IN lists of 1..8 values, as a host with unbounded shapes would send.
    for (let n = 1; n <= 8; n++) {
      const ids = Array.from({ length: n }, (_, i) => i + 1);
      const rows = await db
        .transaction()
        .execute((trx) => trx.selectFrom('notes').select('id').where('id', 'in', ids).orderBy('id').execute());
      expect(rows.map((r) => r.id)).toEqual(ids.filter((id) => id <= 3));
    }
    const after = await counters(db);
    expect(after.prepared - before.prepared).toBe(3);
    expect(after.executed - before.executed).toBe(3);
  });

  it('prepares each text of a transaction once per connection and runs it prepared from then on; begin and commit go as text', async () => {
    const db = open('prepared');
    const before = await counters(db);
    for (let round = 0; round < 3; round++) {
      await db.transaction().execute(async (trx) => {
        await trx.selectFrom('notes').select('body').where('id', '=', 1).execute();
        await trx.updateTable('notes').set({ ratio: 0.1 }).where('body', '=', 'a').execute();
      });
    }
    const after = await counters(db);
    expect(after.prepared - before.prepared).toBe(2);
    expect(after.executed - before.executed).toBe(6);
  });

  it('sends statements outside transactions as text, and again after a rollback', async () => {
    const db = open('prepared');
    const before = await counters(db);
    const read = (on: Kysely<Tables>) => on.selectFrom('notes').select('body').where('id', '=', 2).execute();
    expect(await read(db)).toEqual([{ body: 'b' }]);
    await expect(
      db.transaction().execute(async (trx) => {
        expect(await read(trx)).toEqual([{ body: 'b' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await read(db)).toEqual([{ body: 'b' }]);
    const after = await counters(db);
    expect(after.executed - before.executed).toBe(1);
  });

  it('answers as the plain pool with mysqlDateTimeText does, on either protocol, whatever the pool reads date-times as', async () => {
    // With a value, in a transaction: prepared; otherwise as text.
    const read = (db: Kysely<Tables>, prepared: boolean) =>
      prepared
        ? db
            .transaction()
            .execute((trx) => trx.selectFrom('notes').selectAll().where('body', '!=', 'z').orderBy('id').execute())
        : db.selectFrom('notes').selectAll().orderBy('id').execute();
    const expected = await read(open('plain with typeCast'), false);
    expect(expected.map((r) => [r.at, r.at_seconds, r.stamped])).toEqual([
      ['2024-01-05T04:00:00.500Z', '2024-01-05T04:00:07.000Z', '2024-01-01T00:00:00.000Z'],
      ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.000Z', '2024-01-01T00:00:00.000Z'],
      ['2024-03-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ]);
    // FLOAT as the text protocol reads it (six significant digits), not the single-precision value's every digit.
    expect(expected.map((r) => r.ratio)).toEqual([0.1, 123457, 1234570]);
    for (const kind of ['prepared', 'prepared without dateStrings', 'prepared with typeCast'] as const) {
      const db = open(kind);
      // `date` columns are the pool's to read (text with dateStrings, otherwise a Date at UTC midnight).
      const days = (rows: Array<{ day: string | Date }>) =>
        rows.map((r) => (r.day instanceof Date ? r.day.toISOString().slice(0, 10) : r.day));
      const withoutDays = (rows: Array<Record<string, unknown>>) => rows.map(({ day: _, ...rest }) => rest);
      for (const prepared of [false, true, true]) {
        const rows = await read(db, prepared);
        expect(withoutDays(rows), `${kind}, ${prepared ? 'prepared' : 'text'}`).toEqual(withoutDays(expected));
        expect(days(rows)).toEqual(days(expected));
      }
    }
  });

  it('keeps writes, insert ... returning, transactions and errors as Kysely has them, prepared', async () => {
    const db = open('prepared');
    const before = await counters(db);
    const note = (body: string, at: string) => ({
      body,
      at,
      at_seconds: at.slice(0, 19),
      day: at.slice(0, 10),
      ratio: 2.5,
    });
    const { inserted, insertId } = await db.transaction().execute(async (trx) => {
      // MariaDB's `insert ... returning`, as the store runs it (Kysely's own result drops the rows on MySQL).
      const {
        rows: [row],
      } = await trx.executeQuery(trx.insertInto('notes').values(note('d', '2024-04-01 10:00:00.250')).returningAll());
      const result = await trx.insertInto('notes').values(note('e', '2024-04-02 10:00:00')).executeTakeFirstOrThrow();
      return { inserted: row!, insertId: Number(result.insertId) };
    });
    expect(inserted).toMatchObject({ body: 'd', at: '2024-04-01T10:00:00.250Z', ratio: 2.5 });
    expect(insertId).toBe(inserted.id + 1);
    // A failed statement (duplicate key) leaves the connection usable and rolls its transaction back.
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('notes').values(note('f', '2024-04-03 10:00:00')).execute();
        await trx.insertInto('notes').values(note('a', '2024-04-03 10:00:00')).execute();
      }),
    ).rejects.toMatchObject({ errno: 1062 });
    const deleted = await db
      .transaction()
      .execute((trx) => trx.deleteFrom('notes').where('body', 'in', ['d', 'e', 'f']).executeTakeFirstOrThrow());
    expect(Number(deleted.numDeletedRows)).toBe(2);
    const after = await counters(db);
    // Every write ran prepared (the duplicate too: the server refused its values, not the statement).
    expect(after.executed - before.executed).toBe(5);
    const bodies = await db.selectFrom('notes').select('body').orderBy('id').execute();
    expect(bodies.map((r) => r.body)).toEqual(['a', 'b', 'c']);
  });

  it('streams, as text, with date-times as RFC 3339', async () => {
    const db = open('prepared');
    const bodies: string[] = [];
    for await (const row of db.selectFrom('notes').select(['body', 'at']).where('id', '>', 0).orderBy('id').stream()) {
      bodies.push(`${row.body} ${row.at}`);
    }
    expect(bodies).toEqual(['a 2024-01-05T04:00:00.500Z', 'b 2024-02-29T23:59:59.999Z', 'c 2024-03-01T00:00:00.000Z']);
  });

  it('refuses a bound that is not a whole number', () => {
    expect(() => mysqlPreparedPool(mysql.createPool({ uri: database.url }), { maxStatements: 1.5 })).toThrow(
      /maxStatements/,
    );
  });
});

describe("mysqlPreparedPool at the server's limit on prepared statements", () => {
  let server: Awaited<ReturnType<typeof startMariadb>>;
  beforeAll(async () => {
    server = await startMariadb();
    const admin = await mysqlPromise.createConnection({ uri: server.url });
    await admin.query('create database limited character set utf8mb4 collate utf8mb4_bin');
    await admin.query('set global max_prepared_stmt_count = 2');
    await admin.end();
  }, 60_000);
  afterAll(() => server.stop());

  it('runs the statements the server will not prepare as text, and answers them', async () => {
    const db = open('prepared', { url: `${server.url}limited` });
    await CREATE_NOTES.execute(db);
    const row = { at: '2024-01-05 04:00:00', at_seconds: '2024-01-05 04:00:00', day: '2024-01-05', ratio: 1 };
    await db
      .insertInto('notes')
      .values([
        { body: 'a', ...row },
        { body: 'b', ...row },
      ])
      .execute();
    const before = await counters(db);
    const inTransaction = <T>(read: (trx: Kysely<Tables>) => Promise<T>) => db.transaction().execute(read);
    const reads = [
      () => inTransaction((trx) => trx.selectFrom('notes').select('body').where('id', '=', 1).execute()),
      () => inTransaction((trx) => trx.selectFrom('notes').select('body').where('body', '=', 'b').execute()),
      () => inTransaction((trx) => trx.selectFrom('notes').select('id').where('body', '=', 'a').execute()),
    ];
    for (let round = 0; round < 2; round++) {
      expect(await reads[0]!()).toEqual([{ body: 'a' }]);
      expect(await reads[2]!()).toEqual([{ id: 1 }]);
      expect(await reads[1]!()).toEqual([{ body: 'b' }]);
    }
    const after = await counters(db);
    // The server holds two statements, the first two reads'; the third ran as text, twice.
    expect(after.prepared - before.prepared).toBe(2);
    expect(after.executed - before.executed).toBe(4);
  });
});

describe('rfc3339', () => {
  it('writes the server text of a date-time as RFC 3339 UTC with milliseconds, and leaves RFC 3339 as it is', () => {
    expect(rfc3339('2024-01-05 04:00:00')).toBe('2024-01-05T04:00:00.000Z');
    expect(rfc3339('2024-01-05 04:00:00.5')).toBe('2024-01-05T04:00:00.500Z');
    expect(rfc3339('2024-01-05 04:00:00.123456')).toBe('2024-01-05T04:00:00.123Z');
    expect(rfc3339('2024-01-05T04:00:00.123Z')).toBe('2024-01-05T04:00:00.123Z');
  });
});
