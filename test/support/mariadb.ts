/**
 * A throwaway MariaDB server, for the test suite's globalSetup (`./mysql.ts`).
 *
 * Finds `mariadbd` and `mariadb-install-db` (installing Debian's `mariadb-server` as root when
 * absent), initializes a data dir in a temp dir, starts the server on 127.0.0.1 on a free port
 * (its socket, pid file and log in that dir; as root, with `--user=root`, since the server
 * refuses root otherwise), and waits until it answers. `root@127.0.0.1` has no password.
 * `stop()` stops it and removes the dir; `halt()` and `start()` are for tests that take the
 * server away. Throws with the reason when no server can be had.
 *
 * @example
 * const server = await startMariadb();
 * try { console.log(server.url); } finally { await server.stop(); }
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './net.js';

export interface MariadbServer {
  /** An administrator URL (`mysql://root@127.0.0.1:PORT/`). */
  url: string;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server, keeping its data, until `start()`: connections are refused meanwhile. */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port. */
  start(): Promise<void>;
  /** The running server's process id (one process: its threads' CPU time is the server's), undefined while halted. */
  pid(): number | undefined;
}

const DIRECTORIES = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/usr/local/mysql/bin'];

function find(name: string): string | undefined {
  return DIRECTORIES.map((directory) => join(directory, name)).find((path) => existsSync(path));
}

function findBinaries(): { server: string; install: string } | undefined {
  const server = find('mariadbd');
  const install = find('mariadb-install-db');
  return server && install ? { server, install } : undefined;
}

function fail(reason: string): never {
  throw new Error(
    `MariaDB: ${reason}. Set MYSQL_URL to a MySQL 8 or MariaDB 10.11+ server whose account may CREATE DATABASE, or install MariaDB (apt-get install mariadb-server).`,
  );
}

function installBinaries(): { server: string; install: string } {
  if (process.getuid?.() !== 0) fail('no mariadbd found and not root, so cannot install it');
  console.log('[mariadb] installing MariaDB with apt-get (once per machine)...');
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'mariadb-server'], { stdio: 'inherit', env });
  } catch (error) {
    fail(`apt-get install mariadb-server failed: ${(error as Error).message}`);
  }
  return findBinaries() ?? fail('apt-get installed mariadb-server but no mariadbd or mariadb-install-db was found');
}

/** Whether the server at `url` answers a query. */
async function answers(url: string): Promise<boolean> {
  try {
    const connection = await mysql.createConnection({ uri: url, connectTimeout: 1000 });
    try {
      await connection.query('SELECT 1');
      return true;
    } finally {
      await connection.end();
    }
  } catch {
    return false;
  }
}

/** Starts a throwaway server; see the module's comment. */
export async function startMariadb(): Promise<MariadbServer> {
  const binaries = findBinaries() ?? installBinaries();
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-mariadb-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const user = root ? ['--user=root'] : [];
  try {
    execFileSync(
      binaries.install,
      ['--no-defaults', '--auth-root-authentication-method=normal', `--datadir=${data}`, '--skip-test-db', ...user],
      { stdio: 'pipe' },
    );
  } catch (error) {
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    cleanup();
    fail(`mariadb-install-db failed: ${(error as Error).message}\n${output}`);
  }
  const port = await freePort();
  const url = `mysql://root@127.0.0.1:${port}/`;
  const args = [
    '--no-defaults',
    `--datadir=${data}`,
    '--bind-address=127.0.0.1',
    `--port=${port}`,
    `--socket=${join(dir, 'mariadbd.sock')}`,
    `--pid-file=${join(dir, 'mariadbd.pid')}`,
    `--log-error=${log}`,
    '--skip-networking=0',
    // A throwaway server: no durability to pay for, room for the suites' parallel pools.
    '--innodb-flush-log-at-trx-commit=0',
    '--innodb-doublewrite=0',
    '--sync-binlog=0',
    '--max-connections=300',
    '--innodb-buffer-pool-size=64M',
    // Lock waits end in 1205 after a few seconds rather than 50 (tests of contention wait on them).
    '--innodb-lock-wait-timeout=5',
    ...user,
  ];
  let child: ChildProcess | undefined;
  const serverLog = () => (existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '');

  const start = async () => {
    const process = spawn(binaries.server, args, { stdio: 'ignore' });
    child = process;
    let exited = false;
    process.once('exit', () => {
      exited = true;
    });
    for (let waited = 0; !(await answers(url)); waited += 100) {
      if (exited || waited > 60_000) {
        process.kill('SIGKILL');
        throw new Error(`mariadbd did not come up${exited ? ' (it exited)' : ''}\n${serverLog()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const halt = async () => {
    const process = child;
    child = undefined;
    if (!process || process.exitCode !== null || process.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      process.once('exit', () => resolve());
      process.kill('SIGTERM');
    });
  };

  try {
    await start();
  } catch (error) {
    cleanup();
    fail(`could not start a server: ${(error as Error).message}`);
  }
  return {
    url,
    start,
    halt,
    pid: () => child?.pid,
    stop: async () => {
      try {
        await halt();
      } finally {
        cleanup();
      }
    },
  };
}
