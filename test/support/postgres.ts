/**
 * Vitest globalSetup: a PostgreSQL server for the suites that run on both dialects.
 *
 * With DATABASE_URL set, that server is used (its role needs CREATEDB). Otherwise a throwaway
 * cluster (`./pg-cluster.ts`): find the binaries under /usr/lib/postgresql/<version>/bin (installing the Debian
 * package as root when absent), `initdb` in a temp dir owned by the `postgres` user (root cannot
 * run postgres), start it on 127.0.0.1 on a free port with trust auth and its socket in that
 * dir, and stop it and remove the dir at teardown. Tests read the server's URL with
 * `inject('postgresUrl')` and create their own database (see `./databases.ts`).
 * When no server can be had the run fails with the reason; it never skips.
 */
import type { TestProject } from 'vitest/node';
import { startCluster } from './pg-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose role may create databases. */
    postgresUrl: string;
  }
}

/** The test files that use PostgreSQL (through `./databases.ts`). */
const NEEDS_POSTGRES = /[\\/]test[\\/](kysely|e2e|security|prisma|drizzle)[\\/]/;

/**
 * Whether this run selected a file that needs PostgreSQL, so runs of other suites do not pay
 * for a server. Uses the run's file filters (an internal of vitest's; without it, every file
 * counts, which starts the server).
 */
async function runNeedsPostgres(project: TestProject): Promise<boolean> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const specifications = await project.vitest.globTestSpecifications(filters);
  return specifications.some((specification) => NEEDS_POSTGRES.test(specification.moduleId));
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (!(await runNeedsPostgres(project))) {
    project.provide('postgresUrl', '');
    return undefined;
  }
  if (process.env.DATABASE_URL) {
    project.provide('postgresUrl', process.env.DATABASE_URL);
    return undefined;
  }
  const cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
