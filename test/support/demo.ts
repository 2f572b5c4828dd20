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
