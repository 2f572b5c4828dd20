/**
 * `npm run demo -- --workers N`: one API served by N processes on one port (node:cluster), on
 * one database: the SQLite file (WAL, each write waiting for the others' through busy_timeout)
 * or PostgreSQL from DATABASE_URL. The runtime keeps no per-process state that a response
 * depends on (ETags are hashes of the bytes sent; transactions live in the database), so any
 * process may answer any request. The primary migrates and seeds once, then forks; SIGTERM or
 * SIGINT on the primary stops every worker gracefully (in-flight requests finish) and then
 * removes the temporary database.
 */
import cluster from 'node:cluster';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from './db.js';
import { seed } from './seed.js';

/** What the primary tells each worker through the environment. */
const WORKER_DB = 'BLOG_WORKER_DB';

/** In a worker: the SQLite file the primary prepared (undefined on PostgreSQL or in the primary). */
export function workerDatabase(): string | undefined {
  return cluster.isWorker ? process.env[WORKER_DB] || undefined : undefined;
}

export interface WorkersOptions {
  workers: number;
  /** Articles to seed into an empty database. */
  seed: number;
  /** The SQLite file; a temporary one when absent (ignored with DATABASE_URL). */
  db: string | undefined;
}

/**
 * In the primary: prepares the database, forks `workers` processes running this same script
 * (each serves through `startDemo`), and resolves with the URL they listen on.
 */
export async function startWorkers(options: WorkersOptions): Promise<string> {
  const databaseUrl = process.env.DATABASE_URL;
  const temporary = databaseUrl || options.db ? undefined : mkdtempSync(join(tmpdir(), 'jsonapi-gen-blog-'));
  const file = databaseUrl ? undefined : (options.db ?? join(temporary!, 'blog.sqlite'));
  const database = openDatabase({ databaseUrl, file });
  try {
    await migrate(database.db, database.dialect);
    await seed(database.db, options.seed);
  } finally {
    await database.close();
  }

  const listening: Array<Promise<string>> = [];
  for (let i = 0; i < options.workers; i++) {
    const worker = cluster.fork({ [WORKER_DB]: file ?? '' });
    listening.push(
      new Promise((resolve, reject) => {
        worker.once('listening', (address) => resolve(`http://127.0.0.1:${address.port}`));
        worker.once('exit', (code) =>
          reject(new Error(`worker ${worker.process.pid} exited with ${code} before listening`)),
        );
      }),
    );
  }
  const stop = () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length > 0) return;
    if (temporary) rmSync(temporary, { recursive: true, force: true });
    process.exit(0);
  });
  const urls = await Promise.all(listening);
  return urls[0]!;
}
