/**
 * The PostgreSQL side of `npm run bench -- --db postgres`: a throwaway cluster seeded like
 * `npm run demo -- --seed 1000`, the CPU time of its processes read from /proc, route d's rows
 * removed between runs, statements per request counted, and the results section written beside
 * the SQLite tables of bench/results.md.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { migrate, openDatabase } from '../examples/blog/db.js';
import { seed } from '../examples/blog/seed.js';
import { startDemo } from '../examples/blog/server.js';
import { type Cluster, startCluster } from '../test/support/pg-cluster.js';
import { startPgBaseline } from './baseline/pg-server.js';
import { ROUTES, SEEDED_ARTICLES, statementsFor } from './routes.js';

export interface PgBench {
  cluster: Cluster;
  /** The seeded database's URL. */
  url: string;
  /** Removes what route d created. */
  reset: () => Promise<void>;
  /** CPU time (user + system) of the cluster's processes so far, µs. */
  cpu: () => number;
  stop(): void;
}

/** Linux's clock ticks per second for /proc/PID/stat (USER_HZ, 100 on every Linux build). */
const TICK_US = 1_000_000 / 100;

/**
 * CPU time (user + system, µs) of process `root` and its children: the postmaster and its
 * backends and background workers, or a node:cluster primary and its workers. A child that
 * exits takes its time with it, but the pools keep their connections (and the primary its
 * workers) through a run.
 */
export function processTreeCpu(root: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command (which may hold spaces): state ppid ... utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    if (pid === root || Number(fields[1]) === root) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_US;
}

/** Starts the cluster and seeds database `blog` with the demo's 1,000 articles. */
export async function startPgBench(): Promise<PgBench> {
  const cluster = await startCluster();
  try {
    const admin = new pg.Client(cluster.url);
    await admin.connect();
    await admin.query('create database blog');
    await admin.end();
    const url = cluster.url.replace(/\/postgres$/, '/blog');
    const database = openDatabase({ databaseUrl: url });
    await migrate(database.db, 'postgres');
    await seed(database.db, SEEDED_ARTICLES);
    // Statistics now, not whenever autovacuum gets to it: otherwise route g's plan (and its cost,
    // several times over) depends on whether it did before the run reached that route.
    await sql`analyze`.execute(database.db);
    await database.close();
    const postmaster = Number(readFileSync(join(cluster.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return {
      cluster,
      url,
      cpu: () => processTreeCpu(postmaster),
      reset: async () => {
        // autocannon returns with requests still in flight: let the servers finish them.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const client = new pg.Client(url);
        await client.connect();
        await client.query('delete from article_tags where article_id > $1', [SEEDED_ARTICLES]);
        await client.query('delete from articles where id > $1', [SEEDED_ARTICLES]);
        await client.end();
      },
      stop: () => cluster.stop(),
    };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

export interface PgCount {
  route: string;
  demo: number;
  baseline: number;
  statements: string[];
}

/** Statements per request on each bench route: the demo through Kysely's `log`, the baseline through its hook. */
export async function countPgStatements(bench: PgBench): Promise<PgCount[]> {
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
  const baseline = await startPgBaseline({
    databaseUrl: bench.url,
    onStatement: (sql) => baselineStatements.push(sql),
  });
  const counts: PgCount[] = [];
  try {
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

/**
 * Replaces the section of a results file that starts with `heading` (up to the next top-level
 * `# ` heading, so the sections other runs write stay) with `section`, or appends it.
 */
export function withSection(existing: string, heading: string, section: string): string {
  const at = existing.indexOf(heading);
  if (at === -1) return existing.trim() ? `${existing.trimEnd()}\n\n${section.trimEnd()}\n` : `${section.trimEnd()}\n`;
  const next = existing.indexOf('\n# ', at + heading.length);
  const rest = next === -1 ? '' : `\n${existing.slice(next + 1).trimEnd()}\n`;
  return `${existing.slice(0, at).trimEnd()}\n\n${section.trimEnd()}\n${rest}`;
}

/** Replaces the PostgreSQL section of a results file with `section`. */
export const withPgSection = (existing: string, section: string): string => withSection(existing, PG_HEADING, section);

export const PG_HEADING = '# PostgreSQL: demo against the hand-written node-postgres baseline';
