/**
 * The database: an SQLite file ($DATABASE, default data.sqlite). Its tables are made by the
 * migrations of src/migrations/ (Kysely's `Migrator`); the API reads and writes it through the
 * Prisma client generated from prisma/schema.prisma (`npm run prisma:generate`).
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { PrismaClient } from '../prisma/generated/client.js';
import { migrations } from './migrations/index.js';

/** The SQLite file. */
export const DATABASE = process.env.DATABASE ?? 'data.sqlite';

/**
 * Brings the tables up to date: Kysely's `Migrator` runs the migrations of src/migrations/ that
 * this database has not run yet, in order, and records them (tables kysely_migration*).
 */
export async function migrate(file = DATABASE): Promise<void> {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((result) => result.status === 'Error')?.migrationName;
      throw new Error(`migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  } finally {
    await db.destroy();
  }
}

/** A Prisma client on the SQLite file; another connection's write is waited for (5 s), not an error. */
export function openPrisma(file = DATABASE): PrismaClient {
  return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 5000 }) });
}

/** A first author with two books, in a database without authors. */
export async function seed(prisma: PrismaClient): Promise<void> {
  if ((await prisma.author.findFirst({ select: { id: true } })) !== null) return;
  await prisma.author.create({
    data: {
      name: 'Ursula K. Le Guin',
      books: {
        create: [
          { title: 'A Wizard of Earthsea', year: 1968 },
          { title: 'The Left Hand of Darkness', year: 1969 },
        ],
      },
    },
  });
}
