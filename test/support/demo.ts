import { type Demo, startDemo } from '../../examples/blog/server.js';
import { createMysqlDatabase, createPostgresDatabase } from './databases.js';

/**
 * What serves the demo: the Kysely store on SQLite, PostgreSQL or MySQL (the throwaway MariaDB
 * of `mysql.ts`), the hand-written memory store, or the Prisma or the Drizzle store on SQLite,
 * PostgreSQL or MySQL.
 */
export type Backend =
  | 'sqlite'
  | 'postgres'
  | 'mysql'
  | 'memory'
  | 'prisma-sqlite'
  | 'prisma-postgres'
  | 'prisma-mysql'
  | 'drizzle-sqlite'
  | 'drizzle-postgres'
  | 'drizzle-mysql';

/** Every backend, for `describe.each`. */
export const BACKENDS: readonly Backend[] = [
  'sqlite',
  'postgres',
  'mysql',
  'memory',
  'prisma-sqlite',
  'prisma-postgres',
  'prisma-mysql',
  'drizzle-sqlite',
  'drizzle-postgres',
  'drizzle-mysql',
];

/**
 * The blog demo on a free loopback port, seeded with `seed` articles: on a temporary SQLite
 * file, on a PostgreSQL or MySQL database of its own that `close()` drops (through the Kysely store or,
 * `prisma-*` and `drizzle-*`, the Prisma or the Drizzle store), or in memory (`examples/blog/memory.ts`, data layers written by hand).
 */
export async function startDemoOn(dialect: Backend, seed: number): Promise<Demo> {
  const pg = dialect.endsWith('postgres')
    ? await createPostgresDatabase()
    : dialect.endsWith('mysql')
      ? await createMysqlDatabase()
      : undefined;
  try {
    const demo = await startDemo({
      port: 0,
      seed,
      databaseUrl: pg?.url ?? null,
      memory: dialect === 'memory',
      store: dialect.startsWith('prisma-') ? 'prisma' : dialect.startsWith('drizzle-') ? 'drizzle' : 'kysely',
    });
    return {
      url: demo.url,
      close: async () => {
        await demo.close();
        await pg?.drop();
      },
    };
  } catch (error) {
    await pg?.drop();
    throw error;
  }
}

/** The seed the write suites use: 20 articles, 5 people, 12 tags, 100 comments. */
export const WRITE_SEED = 20;

/** The author of article `n` in the demo's seed: person ((n - 1) % 5) + 1, as a Bearer user id. */
export const authorOf = (article: number) => String(((article - 1) % 5) + 1);
