/**
 * What a request sees of another's transaction on the Drizzle store: on SQLite every statement
 * shares one better-sqlite3 connection, so a read outside a transaction waits while another
 * request's write transaction is open on it, and never sees rows that transaction rolls back;
 * a read inside a request's own transaction sees its rows. And a `withDrizzleTransaction`
 * without a context nested in another joins it (on SQLite it would otherwise wait for
 * itself), its writes rolled back with the outer one. On SQLite and PostgreSQL.
 */
import { eq } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { Context } from 'jsonapi-gen';
import { databaseFor, drizzleTransaction, withDrizzleTransaction } from '@jsonapi-gen/drizzle';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenDrizzle, createDrizzleStore, openDrizzle } from '../../examples/blog/drizzle-store.js';
import * as sqliteTables from '../../examples/blog/drizzle/sqlite.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { type DemoDatabase, demoDatabase } from './writes-databases.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a rejection naming `what` when it has not settled within 3 s. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within 3 s`)), 3000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)(
  'transactions and reads on the Drizzle store (%s)',
  (dialect) => {
    let d: DemoDatabase;
    let drizzle: OpenDrizzle;
    let store: ReturnType<typeof createDrizzleStore>;
    let api: ReturnType<typeof createApi>;
    let transaction: ReturnType<typeof drizzleTransaction>;

    beforeAll(async () => {
      d = await demoDatabase(dialect, 4);
      drizzle = openDrizzle(dialect === 'sqlite' ? { file: d.location } : { databaseUrl: d.location });
      store = createDrizzleStore(drizzle.db, drizzle.dialect);
      transaction = drizzleTransaction(drizzle.db);
      api = createApi(store, { transaction });
    });

    afterAll(async () => {
      await drizzle?.close();
      await d?.close();
    });

    const get = async (path: string) => {
      const response = await api.fetch(new Request(`http://localhost${path}`));
      return { status: response.status, body: (await response.json()) as { data: Array<{ id: string }> | null } };
    };

    it("a read during another request's open write transaction does not see its rows, which roll back", async () => {
      const writing = new Context(new Request('http://localhost/tags', { method: 'POST' }));
      let created: { id: unknown } | undefined;
      let show: Promise<{ status: number }> | undefined;
      let index: Promise<{ status: number; body: { data: Array<{ id: string }> | null } }> | undefined;
      const rolledBack = transaction(async () => {
        created = await store.tags.create({ attributes: { name: 'uncommitted' }, relationships: {} }, writing);
        // Inside its own transaction, the request reads what it wrote.
        expect(await store.tags.find(String(created.id), writing)).toMatchObject({ name: 'uncommitted' });
        show = get(`/tags/${String(created.id)}`);
        index = get('/tags?filter[name]=uncommitted');
        await sleep(50);
        throw new Error('the write fails');
      }, writing);
      await expect(rolledBack).rejects.toThrow('the write fails');
      expect((await within(show!, 'the Show read')).status).toBe(404);
      const listed = await within(index!, 'the Index read');
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([]);
    });

    it('a read after the write transaction committed sees its rows', async () => {
      const writing = new Context(new Request('http://localhost/tags', { method: 'POST' }));
      const created = await transaction(
        async () => store.tags.create({ attributes: { name: 'committed' }, relationships: {} }, writing),
        writing,
      );
      expect((await get(`/tags/${String(created.id)}`)).status).toBe(200);
    });

    it('a withDrizzleTransaction without a context inside another joins it: no deadlock, one rollback', async () => {
      const { tags } = sqliteTables;
      const db = drizzle.db as BetterSQLite3Database;
      const outcome = withDrizzleTransaction(db, async (outer) => {
        await withDrizzleTransaction(db, async (inner) => {
          expect(inner).toBe(outer);
          // Outside a request, `databaseFor` finds the transaction of the call chain too.
          expect(databaseFor(db)).toBe(outer);
          await inner.insert(tags).values({ name: 'nested' });
        });
        throw new Error('the outer one fails');
      });
      await expect(within(outcome, 'the nested transaction')).rejects.toThrow('the outer one fails');
      expect(await db.select().from(tags).where(eq(tags.name, 'nested'))).toEqual([]);
      // Outside any transaction, `databaseFor` is the database again.
      expect(databaseFor(db)).toBe(db);
    });
  },
);
