/**
 * Binary keys (a UUID stored as 16 bytes: SQLite's BLOB, PostgreSQL's bytea), which the drivers
 * read as byte arrays: a to-one include finds each row its own related row, also when the keys'
 * bytes are no text (two keys that decode to the same replacement characters stay apart).
 */
import { Attribute, Index, JsonApi, Show, ToOne, defineResource } from 'jsonapi-gen';
import { defineTableStore, kyselyTransaction } from '@jsonapi-gen/kysely';
import { describe, expect, it } from 'vitest';
import { expectValidDocument } from '../support/validate.js';
import { STORES, tableSuite } from './harness.js';

interface Db {
  devices: { id: Uint8Array; name: string };
  readings: { id: number; device_id: Uint8Array };
}

/** Two keys of bytes that are not UTF-8, which decode to the same text. */
const FIRST = 'ff'.repeat(16);
const SECOND = 'fe'.repeat(16);

/** A hex id as its 16 bytes, or undefined (no row) for any other text. */
const parseHex = (id: string) => (/^[0-9a-f]{32}$/.test(id) ? Buffer.from(id, 'hex') : undefined);

const devices = defineResource({
  type: 'devices',
  fields: [Attribute.make('name').type('string').required()],
  endpoints: [Show.make()],
});
const readings = defineResource({
  type: 'readings',
  fields: [ToOne.make('device').type('devices').includable()],
  endpoints: [Index.make()],
});

describe.each(STORES)('binary keys on %s, %s runner', (dialect, runner) => {
  const suite = tableSuite<Db>(
    dialect,
    async (db) => {
      // MySQL keys a fixed-length binary column (a BLOB key needs a prefix length).
      const bytes = dialect === 'postgres' ? 'bytea' : dialect === 'mysql' ? 'binary(16)' : 'blob';
      await db.schema
        .createTable('devices')
        .addColumn('id', bytes, (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('readings')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('device_id', bytes, (c) => c.notNull().references('devices.id'))
        .execute();
      await db
        .insertInto('devices')
        .values([
          { id: Buffer.from(FIRST, 'hex'), name: 'first' },
          { id: Buffer.from(SECOND, 'hex'), name: 'second' },
        ])
        .execute();
      await db
        .insertInto('readings')
        .values([
          { id: 1, device_id: Buffer.from(FIRST, 'hex') },
          { id: 2, device_id: Buffer.from(SECOND, 'hex') },
        ])
        .execute();
      const store = defineTableStore(db, {
        devices: { table: 'devices', parseId: parseHex },
        readings: { table: 'readings', relationships: { device: { type: 'toOne', foreignKey: 'device_id' } } },
      });
      const hexId = (model: { id: unknown }) => Buffer.from(model.id as Uint8Array).toString('hex');
      return new JsonApi({ transaction: kyselyTransaction(db) })
        .resource({ ...devices, ...store.devices, getId: hexId })
        .resource({ ...readings, ...store.readings });
    },
    runner,
  );

  it('includes each reading’s own device', async () => {
    const response = await suite.api.fetch(new Request('http://localhost/readings?include=device'));
    const body = await response.json();
    expect(response.status, JSON.stringify(body.errors)).toBe(200);
    expectValidDocument(body);
    const { data, included } = body as {
      data: Array<{ id: string; relationships: { device: { data: { id: string } } } }>;
      included: Array<{ id: string; attributes: { name: string } }>;
    };
    expect(data.map((r) => [r.id, r.relationships.device.data.id]).sort()).toEqual([
      ['1', FIRST],
      ['2', SECOND],
    ]);
    expect(included.map((d) => [d.id, d.attributes.name]).sort()).toEqual([
      [SECOND, 'second'],
      [FIRST, 'first'],
    ]);
  });
});
