/**
 * A unique violation points at its culprit on both databases: the attribute whose (mapped)
 * column the constraint names. A taken client-generated id is found by the runtime before the
 * insert (`id_taken` at `/data/id`).
 */
import { Attribute, Create, JsonApi, Show, Update, defineResource } from 'jsonapi-gen';
import { defineTableStore, kyselyTransaction } from '@jsonapi-gen/kysely';
import { describe, expect, it } from 'vitest';
import { type Doc, json } from '../support/validate.js';
import { STORES, tableSuite } from './harness.js';

interface Db {
  accounts: { id: string; login_name: string; email: string };
}

describe.each(STORES)('unique violations on %s, %s runner', (dialect, runner) => {
  const suite = tableSuite<Db>(
    dialect,
    async (db) => {
      // MySQL indexes text only to a length.
      const text = dialect === 'mysql' ? 'varchar(255)' : 'text';
      await db.schema
        .createTable('accounts')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('login_name', text, (c) => c.notNull().unique())
        .addColumn('email', text, (c) => c.notNull().unique())
        .execute();
      await db.insertInto('accounts').values({ id: 'ada', login_name: 'ada', email: 'ada@example.com' }).execute();
      const store = defineTableStore(db, {
        accounts: { table: 'accounts', columns: { login: 'login_name' }, parseId: (id) => id },
      });
      return new JsonApi({ transaction: kyselyTransaction(db) }).resource({
        ...defineResource({
          type: 'accounts',
          fields: [
            Attribute.make('login').type('string').writable().required(),
            Attribute.make('email').type('string').writable().required(),
          ],
          endpoints: [Show.make(), Create.make().clientIds(), Update.make()],
        }),
        ...store.accounts,
      });
    },
    runner,
  );

  const send = async (method: string, path: string, data: unknown) => {
    const response = await suite.api.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({ data }),
      }),
    );
    return { status: response.status, doc: await json(response) };
  };
  const problem = (answer: { doc: Doc }) => {
    const [error] = answer.doc.errors as Array<{ status: string; code: string; source?: { pointer?: string } }>;
    return `${error!.status} ${error!.code} ${error!.source?.pointer}`;
  };

  it('a taken value in a mapped column points at its attribute, on create and on update', async () => {
    const created = await send('POST', '/accounts', {
      type: 'accounts',
      id: 'other',
      attributes: { login: 'ada', email: 'new@example.com' },
    });
    expect(problem(created)).toBe('409 unique_violation /data/attributes/login');
    await send('POST', '/accounts', {
      type: 'accounts',
      id: 'grace',
      attributes: { login: 'grace', email: 'grace@example.com' },
    });
    const updated = await send('PATCH', '/accounts/grace', {
      type: 'accounts',
      id: 'grace',
      attributes: { email: 'ada@example.com' },
    });
    expect(problem(updated)).toBe('409 unique_violation /data/attributes/email');
    expect(
      (await suite.db.selectFrom('accounts').select('email').where('id', '=', 'grace').executeTakeFirstOrThrow()).email,
    ).toBe('grace@example.com');
  });

  it('a taken client-generated id points at /data/id', async () => {
    const taken = await send('POST', '/accounts', {
      type: 'accounts',
      id: 'ada',
      attributes: { login: 'someone', email: 'someone@example.com' },
    });
    expect(problem(taken)).toBe('409 id_taken /data/id');
  });
});
