/**
 * Vitest globalSetup: a MySQL-protocol server (MariaDB) for the suites that run on MySQL.
 *
 * With MYSQL_URL set (`mysql://user:password@host:port/`, a MySQL 8 or MariaDB 10.11+ server
 * whose account may CREATE and DROP DATABASE), that server is used. Otherwise a throwaway
 * MariaDB (`./mariadb.ts`): installed with apt-get as root when absent, initialized in a temp
 * dir, started on 127.0.0.1 on a free port, stopped and removed at teardown. Tests read its URL
 * with `inject('mysqlUrl')` and create their own database (`createMysqlDatabase` of
 * `./databases.ts`). The server starts only when the run selected a file that needs it
 * (`NEEDS_MYSQL`); when none can be had, the run fails with the reason, it never skips.
 */
import type { TestProject } from 'vitest/node';
import { startMariadb } from './mariadb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A MySQL URL whose account may create databases; '' when the run needs none. */
    mysqlUrl: string;
  }
}

/**
 * The test files that use MySQL (through `./databases.ts`): the stores' suites, the demo's end to
 * end, and the check that the benchmark's mysql2 baseline serves the demo's documents.
 */
const NEEDS_MYSQL =
  /[\\/]test[\\/](kysely[\\/]|e2e[\\/]|drizzle[\\/]|prisma[\\/](reads|schema)\.test)|[\\/]bench[\\/]baseline[\\/]mysql-baseline\.test/;

/** Whether this run selected a file that needs MySQL (as `runNeedsPostgres` of `./postgres.ts`). */
async function runNeedsMysql(project: TestProject): Promise<boolean> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const specifications = await project.vitest.globTestSpecifications(filters);
  return specifications.some((specification) => NEEDS_MYSQL.test(specification.moduleId));
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!(await runNeedsMysql(project))) {
    project.provide('mysqlUrl', '');
    return undefined;
  }
  if (process.env.MYSQL_URL) {
    project.provide('mysqlUrl', process.env.MYSQL_URL);
    return undefined;
  }
  const server = await startMariadb();
  project.provide('mysqlUrl', server.url);
  return () => server.stop();
}
