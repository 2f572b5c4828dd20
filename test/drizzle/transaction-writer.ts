/**
 * A process writing to the demo's SQLite file through `drizzleTransaction`, for
 * transaction.test.ts: `node --import tsx test/drizzle/transaction-writer.ts <file> <label>
 * <count>` creates `count` tags named `<label>-<i>`, each in a request transaction that reads
 * first, waits a moment (another process writes meanwhile), then writes. Prints `done` and
 * exits 0 when every write committed; prints the error and exits 1 otherwise.
 */
import SQLite from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { Context } from 'jsonapi-gen';
import * as tables from '../../examples/blog/drizzle/sqlite.js';
import { databaseFor, drizzleTransaction } from '../../integrations/drizzle/transaction.js';
import { type WriteTable, createRow } from '../../integrations/drizzle/writes.js';

const [file, label, count] = process.argv.slice(2);
const client = new SQLite(file, { timeout: 5000 });
client.pragma('journal_mode = WAL');
const db = drizzle({ client });
const transaction = drizzleTransaction(db);
const tags: WriteTable = {
  type: 'tags',
  table: tables.tags,
  id: tables.tags.id,
  attributes: { name: tables.tags.name },
};
try {
  for (let i = 0; i < Number(count); i++) {
    const ctx = new Context(new Request('http://localhost/tags', { method: 'POST' }));
    await transaction(async () => {
      await databaseFor(db, ctx).select().from(tables.tags);
      await new Promise((resolve) => setTimeout(resolve, 3));
      await createRow(db, tags, { attributes: { name: `${label}-${i}` }, relationships: {} }, ctx);
    }, ctx);
  }
  console.log('done');
} catch (thrown) {
  console.log(String(thrown), (thrown as { cause?: unknown }).cause);
  process.exitCode = 1;
} finally {
  client.close();
}
