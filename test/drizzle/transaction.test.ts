/**
 * `drizzleTransaction` under contention: concurrent writers of one row on PostgreSQL at
 * `serializable`, whose serialization failures are run again until each commits; the same on
 * MySQL (MariaDB), where serializable reads take shared locks and the writes deadlock (1213),
 * the victims run again; two processes
 * writing one SQLite file at once, each transaction reading before it writes, both succeeding
 * (BEGIN IMMEDIATE waits for the other's lock); and an Atomic Operations batch's operations
 * sharing one transaction through the unit of work.
 */
import { spawn } from 'node:child_process';
import SQLite from 'better-sqlite3';
import { eq, like } from 'drizzle-orm';
import { type BetterSQLite3Database, drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { Context } from 'jsonapi-gen';
import { describe, expect, it } from 'vitest';
import { createDrizzleStore } from '../../examples/blog/drizzle-store.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { databaseFor, drizzleTransaction, sqliteTurn } from '../../integrations/drizzle/transaction.js';
import { createRow, updateRow } from '../../integrations/drizzle/writes.js';
import { articlesTable, demoDatabase, tagsTable } from './writes-databases.js';

const context = (unitOfWork?: object) =>
  new Context(new Request('http://localhost/articles/1', { method: 'PATCH' }), {}, undefined, unitOfWork);

/** Runs the writer process on `file`; resolves with its exit code and output. */
function writer(file: string, label: string, count: number): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/drizzle/transaction-writer.ts', file, label, String(count)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('drizzleTransaction under contention', () => {
  it.each([
    ['PostgreSQL', 'serialization failures', 'postgres'],
    ['MySQL', 'deadlocks', 'mysql'],
  ] as const)(
    '%s, serializable: concurrent writers of one article all commit, their %s run again',
    async (_name, _what, dialect) => {
      const d = await demoDatabase(dialect, 2);
      try {
        const { articles } = d.tables;
        const table = articlesTable(d.tables);
        const transaction = drizzleTransaction(d.db, { isolationLevel: 'serializable' });
        const q = d.db as unknown as BetterSQLite3Database;
        const [before] = await q.select().from(articles).where(eq(articles.id, 1));
        const writers = 4;
        let attempts = 0;
        await Promise.all(
          Array.from({ length: writers }, (_, i) => {
            const ctx = context();
            return transaction(async () => {
              attempts++;
              const on = databaseFor(d.db, ctx) as unknown as BetterSQLite3Database;
              const [current] = await on.select().from(articles).where(eq(articles.id, 1));
              // Everyone has read before anyone writes: all but one find the row changed under them.
              await new Promise((resolve) => setTimeout(resolve, 30));
              return updateRow(d.db, table, current!, { attributes: { title: `writer ${i}` }, relationships: {} }, ctx);
            }, ctx);
          }),
        );
        const [after] = await q.select().from(articles).where(eq(articles.id, 1));
        expect(after!.version).toBe(before!.version + writers);
        expect(attempts).toBeGreaterThan(writers);
      } finally {
        await d.close();
      }
    },
  );

  it('SQLite: two processes writing one file at once both succeed, every write committed', async () => {
    const d = await demoDatabase('sqlite', 1);
    try {
      const count = 15;
      const results = await Promise.all([writer(d.location, 'a', count), writer(d.location, 'b', count)]);
      for (const { code, output } of results)
        expect({ code, output: output.trim() }).toEqual({ code: 0, output: 'done' });
      const q = d.db as unknown as BetterSQLite3Database;
      const { tags } = d.tables;
      expect(await q.select().from(tags).where(like(tags.name, 'a-%'))).toHaveLength(count);
      expect(await q.select().from(tags).where(like(tags.name, 'b-%'))).toHaveLength(count);
    } finally {
      await d.close();
    }
  });

  it.each(['sqlite', 'postgres'] as const)(
    '%s: the operations of one unit of work share its transaction, and roll back together',
    async (dialect) => {
      const d = await demoDatabase(dialect, 1);
      try {
        const tags = tagsTable(d.tables);
        const batch = {};
        const outer = context(batch);
        const failed = drizzleTransaction(d.db)(async () => {
          // Two operations of one batch: their own contexts, one unit of work.
          await createRow(d.db, tags, { attributes: { name: 'first' }, relationships: {} }, context(batch));
          await createRow(d.db, tags, { attributes: { name: 'databases' }, relationships: {} }, context(batch));
        }, outer);
        await expect(failed).rejects.toMatchObject({ status: 409 });
        const q = d.db as unknown as BetterSQLite3Database;
        expect(await q.select().from(d.tables.tags).where(eq(d.tables.tags.name, 'first'))).toEqual([]);
      } finally {
        await d.close();
      }
    },
  );
});

describe('drizzleTransaction on SQLite: group commit', () => {
  /** 12 creates at once through the demo's Drizzle store, every fourth naming no author (404); the statements run. */
  async function twelveCreates(groupCommit: boolean) {
    const d = await demoDatabase('sqlite', 1);
    const statements: string[] = [];
    const client = new SQLite(d.location, { timeout: 5000 });
    client.pragma('journal_mode = WAL');
    client.pragma('foreign_keys = ON');
    try {
      const db = sqliteDrizzle({ client, logger: { logQuery: (query) => void statements.push(query) } });
      const api = createApi(createDrizzleStore(db, 'sqlite'), { transaction: drizzleTransaction(db, { groupCommit }) });
      const titles = Array.from({ length: 12 }, (_, i) => `Grouped ${i}`);
      const responses = await Promise.all(
        titles.map((title, i) =>
          api.fetch(
            new Request('http://localhost/articles', {
              method: 'POST',
              headers: { 'content-type': 'application/vnd.api+json' },
              body: JSON.stringify({
                data: {
                  type: 'articles',
                  attributes: { title },
                  relationships: {
                    author: { data: { type: 'people', id: i % 4 === 3 ? '9999' : '1' } },
                    tags: { data: [{ type: 'tags', id: '3' }] },
                  },
                },
              }),
            }),
            { attributes: { user: '1' } },
          ),
        ),
      );
      // A request that failed is answered before its group's transaction ends: wait for that.
      await sqliteTurn(db, () => Promise.resolve());
      const stored = db
        .select({ title: d.tables.articles.title })
        .from(d.tables.articles)
        .where(like(d.tables.articles.title, 'Grouped %'))
        .all()
        .map((row) => row.title)
        .sort();
      return { statuses: responses.map((r) => r.status), stored, titles, statements };
    } finally {
      client.close();
      await d.close();
    }
  }

  it('concurrent creates share commits, each in its savepoint; the ones that fail roll back alone', async () => {
    const { statuses, stored, titles, statements } = await twelveCreates(true);
    expect(statuses).toEqual(titles.map((_, i) => (i % 4 === 3 ? 404 : 201)));
    expect(stored).toEqual(titles.filter((_, i) => i % 4 !== 3).sort());
    const commits = statements.filter((s) => s === 'commit').length;
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(commits).toBeLessThan(12);
    expect(statements.filter((s) => s === 'savepoint jsonapi_gen')).toHaveLength(12);
    expect(statements.filter((s) => s === 'rollback to jsonapi_gen')).toHaveLength(3);
  });

  it('groupCommit: false commits each on its own', async () => {
    const { statuses, stored, titles, statements } = await twelveCreates(false);
    expect(statuses).toEqual(titles.map((_, i) => (i % 4 === 3 ? 404 : 201)));
    expect(stored).toEqual(titles.filter((_, i) => i % 4 !== 3).sort());
    // One transaction each: as many begun (and ended) as requests, each holding one savepoint.
    const control = statements.filter((s) => /^(begin|savepoint|commit|rollback$)/.test(s));
    expect(control, control.join('\n')).toEqual(
      titles.flatMap(() => ['begin immediate', 'savepoint jsonapi_gen', 'commit']),
    );
  });
});
