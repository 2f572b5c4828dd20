/**
 * A throwaway PostgreSQL cluster, shared by the test suite's globalSetup (`./postgres.ts`) and
 * the benchmark (`npm run bench -- --db postgres`).
 *
 * Finds the binaries under /usr/lib/postgresql/<version>/bin (installing the Debian package as
 * root when absent), `initdb` in a temp dir owned by the `postgres` user (root cannot run
 * postgres), starts it on 127.0.0.1 on a free port with trust auth and its socket in that dir.
 * `stop()` stops it and removes the dir; `restart()`, `halt()` and `start()` are for tests that
 * take the server away under load. Throws with the reason when no server can be had.
 *
 * @example
 * const cluster = await startCluster();
 * try { console.log(cluster.url); } finally { cluster.stop(); }
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';

export interface Cluster {
  /** A superuser URL (`postgres://postgres@127.0.0.1:PORT/postgres`). */
  url: string;
  /** The data directory (its postmaster.pid names the server's process). */
  data: string;
  /** Stops the server at once and removes its directory. */
  stop(): void;
  /** `pg_ctl restart -m fast`: every connection is cut, the server is back when this returns. */
  restart(): void;
  /** Stops the server (`-m fast`), keeping its data, until `start()`: connections are refused meanwhile. */
  halt(): void;
  /** Starts a halted server again, on the same port. */
  start(): void;
}

const ROOT = '/usr/lib/postgresql';

function findBinaries(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((v) => existsSync(join(ROOT, v, 'bin', 'initdb')) && existsSync(join(ROOT, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(ROOT, versions[0], 'bin');
}

function fail(reason: string): never {
  throw new Error(
    `PostgreSQL: ${reason}. Set DATABASE_URL to a server whose role may CREATE DATABASE, or install PostgreSQL (apt-get install postgresql).`,
  );
}

function installBinaries(): string {
  if (process.getuid?.() !== 0) fail(`no binaries under ${ROOT}/*/bin and not root, so cannot install them`);
  console.log('[postgres] installing PostgreSQL with apt-get (once per machine)...');
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], { stdio: 'inherit', env });
  } catch (error) {
    fail(`apt-get install postgresql failed: ${(error as Error).message}`);
  }
  return findBinaries() ?? fail(`apt-get installed postgresql but no initdb under ${ROOT}/*/bin`);
}

/** Starts a throwaway cluster; see the module's comment. */
export async function startCluster(): Promise<Cluster> {
  const bin = findBinaries() ?? installBinaries();
  const root = process.getuid?.() === 0;
  // As root, run the server as `postgres`; as anyone else, as oneself.
  const run = (command: string, args: string[]) =>
    root
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { stdio: 'pipe' })
      : execFileSync(join(bin, command), args, { stdio: 'pipe' });
  if (root && userInfo().uid === 0) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'pipe' });
    } catch {
      fail('there is no "postgres" user to run the server as');
    }
  }

  const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let url: string;
  let options = '';
  try {
    if (root) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(dir, uid, gid);
    }
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
    const port = await freePort();
    options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    run('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  } catch (error) {
    const serverLog = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    cleanup();
    fail(`could not start a server: ${(error as Error).message}\n${output}\n${serverLog}`);
  }
  const start = () => run('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
  return {
    url,
    data,
    restart: () => run('pg_ctl', ['-D', data, '-l', log, '-o', options, '-m', 'fast', '-w', '-t', '60', 'restart']),
    halt: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    start,
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        cleanup();
      }
    },
  };
}
