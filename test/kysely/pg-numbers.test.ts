/**
 * `bigint` and `numeric` columns on PostgreSQL: node-postgres reads them as text, and an
 * `integer` or `number` attribute over them is served as the JSON number it declares (as on
 * SQLite, whose driver reads numbers); a `bigint` past 2^53 is served whole, as text. Writes,
 * filters and sorts take numbers as the client sends them.
 */
import type { Generated } from 'kysely';
import { Attribute, Create, Index, JsonApi, Show, SortBy, Where, defineResource } from 'jsonapi-gen';
import { defineTableStore, kyselyTransaction } from '@jsonapi-gen/kysely';
import { describe, expect, it } from 'vitest';
import { json } from '../support/validate.js';
import { STORES, tableSuite } from './harness.js';

interface Db {
  counters: { id: Generated<number>; hits: string | number; price: string | number };
}

describe.each(STORES)(
  'integer and number attributes over bigint and numeric columns on %s, %s runner',
  (dialect, runner) => {
    const suite = tableSuite<Db>(
      dialect,
      async (db) => {
        await db.schema
          .createTable('counters')
          .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
            dialect === 'mysql' ? c.primaryKey().autoIncrement() : c.primaryKey(),
          )
          .addColumn('hits', 'bigint', (c) => c.notNull())
          .addColumn('price', 'numeric(10, 2)', (c) => c.notNull())
          .execute();
        await db
          .insertInto('counters')
          .values([
            { hits: 42, price: '19.90' },
            { hits: -7, price: '0.25' },
          ])
          .execute();
        const store = defineTableStore(db, { counters: { table: 'counters' } });
        return new JsonApi({ transaction: kyselyTransaction(db) }).resource({
          ...defineResource({
            type: 'counters',
            fields: [
              Attribute.make('hits').type('integer').writable(),
              Attribute.make('price').type('number').writable(),
            ],
            filters: [Where.make('hits')],
            sorts: [SortBy.make('hits')],
            endpoints: [Show.make(), Index.make(), Create.make()],
          }),
          ...store.counters,
        });
      },
      runner,
    );

    const get = async (path: string) => json(await suite.api.fetch(new Request(`http://localhost${path}`)));

    it('serves them as JSON numbers', async () => {
      const { data } = (await get('/counters/1')) as { data: { attributes: unknown } };
      expect(data.attributes).toStrictEqual({ hits: 42, price: 19.9 });
    });

    it('filters, sorts and writes them as numbers', async () => {
      const sorted = (await get('/counters?sort=hits')) as { data: Array<{ attributes: { hits: unknown } }> };
      expect(sorted.data.map((r) => r.attributes.hits)).toStrictEqual([-7, 42]);
      const filtered = (await get('/counters?filter[hits][gt]=0')) as { data: Array<{ id: string }> };
      expect(filtered.data.map((r) => r.id)).toEqual(['1']);
      const created = await suite.api.fetch(
        new Request('http://localhost/counters', {
          method: 'POST',
          headers: { 'content-type': 'application/vnd.api+json' },
          body: JSON.stringify({ data: { type: 'counters', attributes: { hits: 9007199254740991, price: 1.5 } } }),
        }),
      );
      expect(created.status).toBe(201);
      expect(((await json(created)) as { data: { attributes: unknown } }).data.attributes).toStrictEqual({
        hits: 9007199254740991,
        price: 1.5,
      });
    });

    it.runIf(dialect === 'postgres')('serves a bigint past 2^53 whole, as its digits in a string', async () => {
      await suite.db.insertInto('counters').values({ id: 100, hits: '9007199254740993', price: '1' }).execute();
      const { data } = (await get('/counters/100')) as { data: { attributes: { hits: unknown } } };
      expect(data.attributes.hits).toBe('9007199254740993');
    });
  },
);
