/**
 * A unique violation against a row the requester cannot see (outside the resource's `scope`) is
 * the same 409 as against a row they can: a pointer at the member they sent, a fixed detail, and
 * nothing of the other row (its id, owner, other values) nor of the database's message (table,
 * constraint, `Key (slug)=(...)`). On both databases, on create, update and in Atomic Operations.
 *
 * A test-only `notes` resource whose rows are visible to their owner only (the request's `user`),
 * like the blog's scoped store; the blog's only unique column (tags.name) is not scoped.
 */
import { Attribute, Create, Index, JsonApi, Show, Update, atomic, defineResource, type Context } from 'jsonapi-gen';
import { defineTableStore, kyselyTransaction } from '@jsonapi-gen/kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectValidAtomicDocument } from '../support/atomic-schema.js';
import { expectValidDocument } from '../support/validate.js';
import { STORES, tableSuite } from './harness.js';

interface Db {
  notes: { id: string; owner: string; slug: string; title: string };
}

const notes = defineResource({
  type: 'notes',
  fields: [
    Attribute.make('slug').type('string').writable().required(),
    Attribute.make('title').type('string').writable().required(),
  ],
  endpoints: [Show.make(), Index.make(), Create.make().clientIds(), Update.make()],
});

/** The rows of the signed-in user; none for an anonymous request. */
const owner = (ctx: Context) => ctx.getAttribute('user') ?? '';

/** What Alice wrote and Bob must never learn from an error. */
const ALICE = { id: 'alice-plans', slug: 'launch-day', title: 'Alice: the secret launch plan' };

describe.each(STORES)('a unique violation against a hidden row (%s, %s runner)', (dialect, runner) => {
  const suite = tableSuite<Db>(
    dialect,
    async (db) => {
      // MySQL indexes text only to a length.
      const text = dialect === 'mysql' ? 'varchar(255)' : 'text';
      await db.schema
        .createTable('notes')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('owner', text, (c) => c.notNull())
        .addColumn('slug', text, (c) => c.notNull().unique())
        .addColumn('title', text, (c) => c.notNull())
        .execute();
      const store = defineTableStore(db, {
        notes: {
          table: 'notes',
          parseId: (id) => id,
          serverColumns: (operation, ctx) => (operation === 'create' ? { owner: owner(ctx) } : {}),
          scope: (query, ctx) => query.where('notes.owner', '=', owner(ctx)),
        },
      });
      return new JsonApi({ transaction: kyselyTransaction(db), extensions: [atomic()] }).resource({
        ...notes,
        ...store.notes,
      });
    },
    runner,
  );
  beforeAll(async () => {
    expect((await send('alice', 'POST', '/notes', { data: { type: 'notes', ...attributes(ALICE) } })).status).toBe(201);
    expect(
      (
        await send('bob', 'POST', '/notes', {
          data: { type: 'notes', ...attributes({ id: 'bob-1', slug: 'bob-own', title: 'Bob' }) },
        })
      ).status,
    ).toBe(201);
  });

  function attributes(note: { id: string; slug?: string; title?: string }) {
    const { id, ...rest } = note;
    return { id, attributes: rest };
  }

  async function send(
    user: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; text: string; doc: any }> {
    const media =
      path === '/operations'
        ? 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"'
        : 'application/vnd.api+json';
    const init: RequestInit =
      body === undefined
        ? { method }
        : { method, headers: { 'content-type': media, accept: media }, body: JSON.stringify(body) };
    const response = await suite.api.fetch(new Request(`http://localhost${path}`, init), { attributes: { user } });
    const text = await response.text();
    const doc = text === '' ? undefined : JSON.parse(text);
    if (doc !== undefined)
      (path === '/operations' && response.ok ? expectValidAtomicDocument : expectValidDocument)(doc);
    return { status: response.status, text, doc };
  }

  /** The one error a taken slug gives, below `prefix` (an operation's pointer inside /operations). */
  const slugTaken = (prefix = '') => ({
    status: '409',
    title: 'Conflict',
    code: 'unique_violation',
    detail: 'A resource with this slug already exists',
    source: { pointer: `${prefix}/data/attributes/slug` },
  });

  /** Nothing of Alice's row, nor of the database's own message, is in `text`. */
  const revealsNothing = (text: string) => {
    for (const secret of [ALICE.id, ALICE.title, 'alice', 'Key (', 'notes.', 'constraint', 'duplicate'])
      expect(text).not.toContain(secret);
  };

  it('Bob cannot see the row that holds the value', async () => {
    expect((await send('bob', 'GET', `/notes/${ALICE.id}`)).status).toBe(404);
    expect((await send('bob', 'GET', '/notes')).doc.data.map((n: { id: string }) => n.id)).toEqual(['bob-1']);
  });

  it('a create with the hidden value is 409 at the member, revealing nothing of the row, and writes nothing', async () => {
    const answer = await send('bob', 'POST', '/notes', {
      data: { type: 'notes', ...attributes({ id: 'bob-2', slug: ALICE.slug, title: 'Bob too' }) },
    });
    expect(answer.status).toBe(409);
    expect(answer.doc).toEqual({ jsonapi: answer.doc.jsonapi, errors: [slugTaken()] });
    revealsNothing(answer.text);
    expect(
      await suite.db.selectFrom('notes').select('id').where('id', '=', 'bob-2').executeTakeFirst(),
    ).toBeUndefined();
  });

  it('is the same answer as for a value in a row Bob can see', async () => {
    const hidden = await send('bob', 'POST', '/notes', {
      data: { type: 'notes', ...attributes({ id: 'bob-3', slug: ALICE.slug, title: 'x' }) },
    });
    const visible = await send('bob', 'POST', '/notes', {
      data: { type: 'notes', ...attributes({ id: 'bob-3', slug: 'bob-own', title: 'x' }) },
    });
    expect([hidden.status, visible.status]).toEqual([409, 409]);
    expect(hidden.doc).toEqual(visible.doc);
  });

  it('an update to the hidden value is 409 at the member, and Bob’s row keeps its value', async () => {
    const answer = await send('bob', 'PATCH', '/notes/bob-1', {
      data: { type: 'notes', id: 'bob-1', attributes: { slug: ALICE.slug } },
    });
    expect(answer.status).toBe(409);
    expect(answer.doc.errors).toEqual([slugTaken()]);
    revealsNothing(answer.text);
    expect((await send('bob', 'GET', '/notes/bob-1')).doc.data.attributes.slug).toBe('bob-own');
  });

  it('inside Atomic Operations: the same error below the operation, and the batch is rolled back', async () => {
    const answer = await send('bob', 'POST', '/operations', {
      'atomic:operations': [
        { op: 'add', data: { type: 'notes', ...attributes({ id: 'bob-4', slug: 'bob-fine', title: 'fine' }) } },
        { op: 'add', data: { type: 'notes', ...attributes({ id: 'bob-5', slug: ALICE.slug, title: 'taken' }) } },
      ],
    });
    expect(answer.status).toBe(409);
    expect(answer.doc.errors).toEqual([slugTaken('/atomic:operations/1')]);
    revealsNothing(answer.text);
    expect(await suite.db.selectFrom('notes').select('id').where('id', 'in', ['bob-4', 'bob-5']).execute()).toEqual([]);
  });

  it('a client-generated id held by a hidden row is 409 at /data/id, revealing nothing of the row', async () => {
    const answer = await send('bob', 'POST', '/notes', {
      data: { type: 'notes', ...attributes({ id: ALICE.id, slug: 'bob-elsewhere', title: 'Bob' }) },
    });
    expect(answer.status).toBe(409);
    expect(answer.doc.errors).toEqual([
      {
        status: '409',
        title: 'Conflict',
        code: 'unique_violation',
        detail: 'A resource with this id already exists',
        source: { pointer: '/data/id' },
      },
    ]);
    // Bob's own input (the id) is not echoed either; Alice's row is as she wrote it.
    revealsNothing(answer.text);
    expect(await suite.db.selectFrom('notes').selectAll().where('id', '=', ALICE.id).executeTakeFirstOrThrow()).toEqual(
      { ...ALICE, owner: 'alice' },
    );
  });
});
