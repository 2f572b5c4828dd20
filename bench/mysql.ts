/**
 * The MySQL side of `npm run bench -- --db mysql`: a throwaway MariaDB (test/support/mariadb.ts,
 * as the test suite starts it) seeded like `npm run demo -- --seed 1000`, the CPU time of its
 * server process read from /proc, route d's rows removed between runs, statements per request
 * counted, and the heading of its section of bench/results.md.
 */
import mysql from 'mysql2/promise';
import { migrate, openDatabase } from '../examples/blog/db.js';
import { seed } from '../examples/blog/seed.js';
import { startDemo } from '../examples/blog/server.js';
import { type MariadbServer, startMariadb } from '../test/support/mariadb.js';
import { startMysqlBaseline } from './baseline/mysql-server.js';
import { type PgCount, processTreeCpu } from './postgres.js';
import { ROUTES, SEEDED_ARTICLES, statementsFor } from './routes.js';

export const MYSQL_HEADING = '# MySQL: demo against the hand-written mysql2 baseline';

export interface MysqlBench {
  server: MariadbServer;
  /** The seeded database's URL. */
  url: string;
  /** Removes what route d created. */
  reset: () => Promise<void>;
  /** CPU time (user + system) of the server process so far, µs. */
  cpu: () => number;
  /** The server's `version()`. */
  version: () => Promise<string>;
  stop(): Promise<void>;
}

/** Starts the server and seeds database `blog` (utf8mb4, binary collation, as the tests' databases) with the demo's 1,000 articles. */
export async function startMysqlBench(): Promise<MysqlBench> {
  const server = await startMariadb();
  try {
    const admin = await mysql.createConnection({ uri: server.url });
    await admin.query('create database blog character set utf8mb4 collate utf8mb4_bin');
    await admin.end();
    const url = `${server.url}blog`;
    const database = openDatabase({ databaseUrl: url });
    try {
      await migrate(database.db, 'mysql');
      await seed(database.db, SEEDED_ARTICLES);
    } finally {
      await database.close();
    }
    const pid = server.pid();
    if (pid === undefined) throw new Error('MariaDB: no server process');
    return {
      server,
      url,
      cpu: () => processTreeCpu(pid),
      version: async () => {
        const connection = await mysql.createConnection({ uri: url });
        try {
          const [rows] = await connection.query<mysql.RowDataPacket[]>('select version() as version');
          return String(rows[0]!.version);
        } finally {
          await connection.end();
        }
      },
      reset: async () => {
        // autocannon returns with requests still in flight: let the servers finish them.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const connection = await mysql.createConnection({ uri: url });
        try {
          await connection.execute('delete from article_tags where article_id > ?', [SEEDED_ARTICLES]);
          await connection.execute('delete from articles where id > ?', [SEEDED_ARTICLES]);
        } finally {
          await connection.end();
        }
      },
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Statements per request on each bench route: the demo through Kysely's `log`, the baseline through its hook. */
export async function countMysqlStatements(bench: MysqlBench): Promise<PgCount[]> {
  const demoStatements: string[] = [];
  const baselineStatements: string[] = [];
  const demo = await startDemo({
    port: 0,
    seed: 1,
    databaseUrl: bench.url,
    log: (event) => {
      if (event.level === 'query') demoStatements.push(event.query.sql);
    },
  });
  const baseline = await startMysqlBaseline({
    databaseUrl: bench.url,
    onStatement: (sql) => baselineStatements.push(sql),
  });
  const counts: PgCount[] = [];
  try {
    // The demo's store reads which columns are date-times on its first write, once: count a later one.
    const create = ROUTES.find((route) => route.name === 'd')!;
    await statementsFor(create, { demo: demo.url, baseline: baseline.url }, { demo: [], baseline: [] });
    for (const route of ROUTES) {
      counts.push({
        route: route.name,
        ...(await statementsFor(
          route,
          { demo: demo.url, baseline: baseline.url },
          { demo: demoStatements, baseline: baselineStatements },
        )),
      });
    }
  } finally {
    await demo.close();
    await baseline.close();
    await bench.reset();
  }
  return counts;
}
