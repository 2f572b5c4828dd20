/**
 * `preparedPool`: Kysely's statements sent named over a real PostgreSQL connection. One
 * connection per pool (max 1), so what `pg_prepared_statements` shows is what that connection
 * prepared. The bound test runs first: the text -> name map is process-wide, and vitest gives
 * each test file a fresh module.
 */
import { type Generated, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedPool } from '../../integrations/kysely/prepared-pool.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

interface Tables {
  notes: { id: Generated<number>; body: string; at: Generated<Date> };
}

let database: TestDatabase;
const opened: Array<Kysely<Tables>> = [];

function open(prepared: boolean, maxNames?: number): Kysely<Tables> {
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  pool.on('error', () => undefined); // the drop at the end may end a closing connection
  const db = new Kysely<Tables>({
    dialect: new PostgresDialect({
      pool: prepared ? preparedPool(pool, maxNames === undefined ? {} : { maxNames }) : pool,
    }),
  });
  opened.push(db);
  return db;
}

/** The statements this pool's one connection has prepared, name -> text. */
async function preparedOn(db: Kysely<Tables>): Promise<Map<string, string>> {
  const { rows } = await sql<{
    name: string;
    statement: string;
  }>`select name, statement from pg_prepared_statements`.execute(db);
  return new Map(rows.map((r) => [r.name, r.statement]));
}

beforeAll(async () => {
  database = await createPostgresDatabase();
  const setup = open(false);
  await sql`create table notes (id serial primary key, body text not null unique, at timestamptz not null default '2024-01-01T10:00:00Z')`.execute(
    setup,
  );
  await setup
    .insertInto('notes')
    .values([{ body: 'a' }, { body: 'b' }, { body: 'c' }])
    .execute();
});

afterAll(async () => {
  for (const db of opened) await db.destroy();
  await database.drop();
});

describe('preparedPool', () => {
  it('names at most maxNames distinct texts; the rest run unnamed and still answer', async () => {
    const db = open(true, 3);
    // Eight shapes: IN lists of 1..8 values, as a host with unbounded shapes would send.
    for (let n = 1; n <= 8; n++) {
      const ids = Array.from({ length: n }, (_, i) => i + 1);
      const rows = await db.selectFrom('notes').select('id').where('id', 'in', ids).orderBy('id').execute();
      expect(rows.map((r) => r.id)).toEqual(ids.filter((id) => id <= 3));
    }
    const prepared = await preparedOn(db);
    expect(prepared.size).toBeLessThanOrEqual(3);
    expect([...prepared.values()].some((text) => text.includes('in ($1, $2, $3, $4)'))).toBe(false);
  });

  it('gives the same results as the plain pool', async () => {
    const plain = open(false);
    const named = open(true);
    const read = (db: Kysely<Tables>) =>
      db.selectFrom('notes').selectAll().where('body', '!=', 'z').orderBy('id').execute();
    const expected = await read(plain);
    expect(await read(named)).toEqual(expected);
    expect(await read(named)).toEqual(expected); // the second call runs the prepared statement
    expect(expected.map((r) => r.body)).toEqual(['a', 'b', 'c']);
  });

  it('never gives one name to two texts, and prepares each text once per connection', async () => {
    const db = open(true);
    for (let round = 0; round < 3; round++) {
      await db.selectFrom('notes').select('body').where('id', '=', 1).execute();
      await db.selectFrom('notes').select('id').where('body', '=', 'a').execute();
    }
    const prepared = await preparedOn(db);
    const texts = [...prepared.values()];
    expect(new Set(texts).size).toBe(texts.length);
    expect(texts.filter((t) => t.includes('select "body" from "notes" where "id" = $1'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('select "id" from "notes" where "body" = $1'))).toHaveLength(1);
  });

  it('keeps the host’s own queries working: writes, RETURNING, transactions, errors', async () => {
    const db = open(true);
    const inserted = await db
      .insertInto('notes')
      .values({ body: 'd' })
      .returning(['id', 'body'])
      .executeTakeFirstOrThrow();
    expect(inserted.body).toBe('d');
    // A failed statement (unique violation) leaves the connection usable and rolls its transaction back.
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('notes').values({ body: 'e' }).execute();
        await trx.insertInto('notes').values({ body: 'a' }).execute();
      }),
    ).rejects.toThrow(/duplicate key/);
    const bodies = await db.selectFrom('notes').select('body').orderBy('id').execute();
    expect(bodies.map((r) => r.body)).toEqual(['a', 'b', 'c', 'd']);
    const { rows } = await sql<{ n: number }>`select ${5}::int + 1 as n`.execute(db);
    expect(rows[0]!.n).toBe(6);
    await db.deleteFrom('notes').where('body', '=', 'd').execute();
  });

  it('sends begin, commit and savepoints unprepared (nothing to plan), the statements between them named', async () => {
    const db = open(true);
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('notes').select('body').where('id', '=', 1).execute();
    });
    const texts = [...(await preparedOn(db)).values()];
    expect(texts.some((text) => /from "notes" where "id" = \$1/.test(text))).toBe(true);
    expect(texts.filter((text) => /^(begin|commit|rollback|savepoint|release)/i.test(text))).toEqual([]);
  });

  it('sees schema changes: a prepared select * returns a column added later', async () => {
    const db = open(true);
    const read = () => db.selectFrom('notes').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(Object.keys(await read())).toEqual(['id', 'body', 'at']);
    await sql`alter table notes add column extra text`.execute(open(false));
    expect(Object.keys(await read())).toEqual(['id', 'body', 'at', 'extra']);
    expect(Object.keys(await read())).toEqual(['id', 'body', 'at', 'extra']);
    await sql`alter table notes drop column extra`.execute(open(false));
  });

  it('refuses a bound that is not a whole number', () => {
    expect(() => preparedPool(new pg.Pool({ connectionString: database.url }), { maxNames: -1 })).toThrow(/maxNames/);
  });
});
