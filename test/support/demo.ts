import { type Demo, startDemo } from '../../examples/blog/server.js';
import { createPostgresDatabase } from './databases.js';

/**
 * The blog demo on a free loopback port, seeded with `seed` articles: on a temporary SQLite
 * file, or on a PostgreSQL database of its own that `close()` drops.
 */
export async function startDemoOn(dialect: 'sqlite' | 'postgres', seed: number): Promise<Demo> {
  const pg = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
  try {
    const demo = await startDemo({ port: 0, seed, databaseUrl: pg?.url ?? null });
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
