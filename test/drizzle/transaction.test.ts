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
import { eq, like } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { Context } from 'jsonapi-gen';
import { describe, expect, it } from 'vitest';
import { databaseFor, drizzleTransaction } from '../../integrations/drizzle/transaction.js';
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
