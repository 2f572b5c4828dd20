/**
 * `dateTimeText`: timestamptz read from a real PostgreSQL as RFC 3339 UTC text, the same
 * instant node-postgres's default Date names, in the UTC session (sliced) and in another time
 * zone (through the default parser); values it cannot hold as text stay what the default gives.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateTimeText, utcText } from '../../integrations/kysely/pg-types.js';
import { dateTimeJson } from '../../runtime/core/date-time.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

let database: TestDatabase;
const pools: pg.Pool[] = [];

const VALUES = [
  '2024-01-05T04:00:00Z',
  '2024-01-05T04:00:00.5Z',
  '2024-01-05T04:00:00.12Z',
  '2024-01-05T04:00:00.123Z',
  '2024-01-05T04:00:00.123456Z',
  '2024-02-29T23:59:59.999999Z',
  '1999-12-31T23:00:00-05:00',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
];

function newPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({ connectionString: database.url, max: 1, ...config });
  pool.on('error', () => undefined); // the drop at the end may end a closing connection
  pools.push(pool);
  return pool;
}

/** The values through a pool, in session time zone `zone`, default parsers or `dateTimeText`. */
async function read(zone: string, text: boolean, values: readonly string[]): Promise<unknown[]> {
  const pool = newPool({ options: `-c TimeZone=${zone}`, ...(text && { types: dateTimeText(pg.types) }) });
  const { rows } = await pool.query<{ at: unknown }>('select unnest($1::timestamptz[]) as at', [values]);
  return rows.map((row) => row.at);
}

beforeAll(async () => {
  database = await createPostgresDatabase();
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await database?.drop();
});

describe('dateTimeText on PostgreSQL', () => {
  it('reads timestamptz as the text the default Date serves, in UTC and in other time zones', async () => {
    const served = (await read('UTC', false, VALUES)).map((value) => dateTimeJson(value));
    expect(served[0]).toBe('2024-01-05T04:00:00.000Z');
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
      const texts = await read(zone, true, VALUES);
      expect(texts).toEqual(served);
      for (const text of texts) expect(typeof text).toBe('string'); // text in every session zone
    }
  });

  it('leaves BC, five-digit years and infinity to the default parser', async () => {
    const odd = ['0044-03-15 12:00:00+00 BC', '10000-01-01T00:00:00Z', 'infinity', '-infinity'];
    expect(await read('UTC', true, odd)).toEqual(await read('UTC', false, odd));
  });

  it('keeps other types as the default parsers read them', async () => {
    const pool = newPool({ types: dateTimeText(pg.types) });
    const { rows } = await pool.query(
      `select 1::int4 as i, 2::int8 as b, '{"a":1}'::jsonb as j, date '2024-01-05' as d, timestamp '2024-01-05 04:00' as t`,
    );
    const plain = newPool({});
    expect(rows).toEqual(
      (
        await plain.query(
          `select 1::int4 as i, 2::int8 as b, '{"a":1}'::jsonb as j, date '2024-01-05' as d, timestamp '2024-01-05 04:00' as t`,
        )
      ).rows,
    );
  });
});

describe('utcText', () => {
  it('rewrites the UTC wire form and refuses every other form', () => {
    expect(utcText('2024-01-05 04:00:00+00')).toBe('2024-01-05T04:00:00.000Z');
    expect(utcText('2024-01-05 04:00:00.123456+00')).toBe('2024-01-05T04:00:00.123Z');
    for (const other of [
      '2024-01-05 04:00:00+02',
      '2024-01-05 04:00:00+05:30',
      '2024-01-05 04:00:00+00 BC',
      '12024-01-05 04:00:00+00',
      'infinity',
      '2024-01-05T04:00:00Z',
    ]) {
      expect(utcText(other)).toBeUndefined();
    }
  });
});
