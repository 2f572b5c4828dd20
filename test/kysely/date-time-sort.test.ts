/**
 * Date-times sent with different UTC offsets sort as the instants they name, on both databases,
 * and are served back normalized (UTC, milliseconds). The runtime normalizes them before the
 * data layer sees them, so a text column (SQLite's only choice, and PostgreSQL's when a host
 * picks text) compares them as instants too; a PostgreSQL timestamptz column is checked beside
 * it, since it hands the store Dates rather than text.
 *
 * A test-only `events` resource: the blog has no writable date-time attribute.
 */
import type { Kysely } from 'kysely';
import { Attribute, Create, Index, JsonApi, Show, SortBy, Update, defineResource } from 'jsonapi-gen';
import { defineTableStore, kyselyTransaction } from '@jsonapi-gen/kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyKysely } from '../support/databases.js';
import { expectValidDocument } from '../support/validate.js';

interface Db {
  events: { id: number; name: string; starts_at: string | Date };
}

const events = defineResource({
  type: 'events',
  fields: [
    Attribute.make('name').type('string').writable().required(),
    Attribute.make('startsAt').type('date-time').writable().required(),
  ],
  endpoints: [Show.make(), Index.make().paginate(10, 10), Create.make(), Update.make()],
  sorts: [SortBy.make('startsAt'), SortBy.make('name')],
});

/** What each event is created with, and the instant it names, normalized. Created in this order, so id order is not instant order. */
const SENT = [
  { name: 'ten-plus-two', startsAt: '2024-01-01T10:00:00+02:00', utc: '2024-01-01T08:00:00.000Z' },
  { name: 'nine-z', startsAt: '2024-01-01T09:00:00Z', utc: '2024-01-01T09:00:00.000Z' },
  { name: 'three-minus-five', startsAt: '2024-01-01T03:30:00-05:00', utc: '2024-01-01T08:30:00.000Z' },
  { name: 'midnight-plus-fourteen', startsAt: '2024-01-02T00:00:00.25+14:00', utc: '2024-01-01T10:00:00.250Z' },
  { name: 'lower-case-z', startsAt: '2024-01-01t08:59:59.999999z', utc: '2024-01-01T08:59:59.999Z' },
];
const BY_INSTANT = [...SENT].sort((a, b) => (a.utc < b.utc ? -1 : 1)).map((e) => e.name);

const SETUPS = [
  { dialect: 'sqlite', column: 'text' },
  { dialect: 'postgres', column: 'text' },
  { dialect: 'postgres', column: 'timestamptz' },
] as const;

describe.each(SETUPS)('date-time sort on $dialect ($column column)', ({ dialect, column }) => {
  let db: Kysely<Db>;
  let close: (() => Promise<void>) | undefined;
  let api: JsonApi;

  beforeAll(async () => {
    ({ db, close } = await emptyKysely<Db>(dialect));
    const table = db.schema.createTable('events');
    await (
      dialect === 'postgres'
        ? table.addColumn('id', 'serial', (c) => c.primaryKey())
        : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('starts_at', column, (c) => c.notNull())
      .execute();
    const store = defineTableStore(db, { events: { table: 'events', columns: { startsAt: 'starts_at' } } });
    api = new JsonApi({ transaction: kyselyTransaction(db) }).resource({ ...events, ...store.events });
    for (const { name, startsAt } of SENT) {
      const created = await send('POST', '/events', { data: { type: 'events', attributes: { name, startsAt } } });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await close?.();
  });

  async function send(method: string, path: string, body?: unknown): Promise<{ status: number; doc: any }> {
    const init: RequestInit =
      body === undefined
        ? { method }
        : { method, headers: { 'content-type': 'application/vnd.api+json' }, body: JSON.stringify(body) };
    const response = await api.fetch(new Request(`http://localhost${path}`, init));
    const doc = await response.json();
    expectValidDocument(doc);
    return { status: response.status, doc };
  }
  const names = (doc: { data: Array<{ attributes: { name: string } }> }) => doc.data.map((r) => r.attributes.name);

  it('the created resources carry their instant in UTC with milliseconds', async () => {
    const { doc } = await send('GET', '/events?sort=name');
    const served = new Map<string, string>(
      doc.data.map((r: { attributes: { name: string; startsAt: string } }) => [
        r.attributes.name,
        r.attributes.startsAt,
      ]),
    );
    expect(Object.fromEntries(served)).toEqual(Object.fromEntries(SENT.map((e) => [e.name, e.utc])));
  });

  it('sort=startsAt orders by instant, ascending and descending', async () => {
    const ascending = await send('GET', '/events?sort=startsAt');
    expect(ascending.status).toBe(200);
    expect(names(ascending.doc)).toEqual(BY_INSTANT);
    expect(ascending.doc.data.map((r: { attributes: { startsAt: string } }) => r.attributes.startsAt)).toEqual(
      [...SENT.map((e) => e.utc)].sort(),
    );
    const descending = await send('GET', '/events?sort=-startsAt');
    expect(names(descending.doc)).toEqual([...BY_INSTANT].reverse());
  });

  it('the order holds across pages', async () => {
    const first = await send('GET', '/events?sort=startsAt&page[limit]=2');
    const second = await send('GET', '/events?sort=startsAt&page[limit]=2&page[offset]=2');
    const third = await send('GET', '/events?sort=startsAt&page[limit]=2&page[offset]=4');
    expect([...names(first.doc), ...names(second.doc), ...names(third.doc)]).toEqual(BY_INSTANT);
  });

  it('an update with an offset moves the resource to its instant, and it is shown normalized', async () => {
    const { doc } = await send('GET', '/events?sort=-startsAt&page[limit]=1');
    const latest = doc.data[0] as { id: string; attributes: { name: string } };
    // 07:00 UTC: before every other event.
    const updated = await send('PATCH', `/events/${latest.id}`, {
      data: { type: 'events', id: latest.id, attributes: { startsAt: '2024-01-01T12:00:00+05:00' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.doc.data.attributes.startsAt).toBe('2024-01-01T07:00:00.000Z');
    const shown = await send('GET', `/events/${latest.id}`);
    expect(shown.doc.data.attributes.startsAt).toBe('2024-01-01T07:00:00.000Z');
    const ascending = await send('GET', '/events?sort=startsAt');
    expect(names(ascending.doc)).toEqual([
      latest.attributes.name,
      ...BY_INSTANT.filter((n) => n !== latest.attributes.name),
    ]);
  });

  it.runIf(column === 'text')(
    'the text column holds the normalized form, so the database compares instants',
    async () => {
      const stored = await db.selectFrom('events').select(['name', 'starts_at']).orderBy('starts_at').execute();
      expect(
        stored.every(
          (row) =>
            typeof row.starts_at === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(row.starts_at),
        ),
      ).toBe(true);
      expect(stored.map((row) => row.name)).toEqual(names((await send('GET', '/events?sort=startsAt')).doc));
    },
  );

  it('a date-time that is not RFC 3339 is 422 at its member, and nothing is written', async () => {
    const before = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const refused = await send('POST', '/events', {
      data: { type: 'events', attributes: { name: 'local', startsAt: '2024-01-01T10:00:00' } },
    });
    expect(refused.status).toBe(422);
    expect(refused.doc.errors[0].source).toEqual({ pointer: '/data/attributes/startsAt' });
    const after = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
