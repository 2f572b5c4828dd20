/** Running the jsonapi-gen command as users do: `node bin/jsonapi-gen.js`, spawned. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'jsonapi-gen.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (colour decided by `env`; NO_COLOR and FORCE_COLOR are removed unless given). */
export function cli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd ?? ROOT, env: { ...env, ...options.env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** A fresh directory under the repository's .tmp/ (so schemas there resolve `jsonapi-gen` by the root tsconfig). */
export function workDir(name: string): string {
  const dir = join(ROOT, '.tmp', 'cli', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `fixtures/minimal/schema.ts` (one resource, `tags`, two endpoints) copied into `dir`. */
export function minimalSchema(dir: string): string {
  const schema = join(dir, 'schema.ts');
  copyFileSync(join(ROOT, 'fixtures', 'minimal', 'schema.ts'), schema);
  return schema;
}

// eslint-disable-next-line no-control-regex -- ESC is what starts an ANSI colour code
export const ANSI = /\u001b\[\d+m/;

/**
 * `npm install` in a scaffolded host, with one difference: --ignore-scripts spares compiling
 * better-sqlite3 from source (a minute on this machine; its prebuilt binaries are downloaded from
 * GitHub, out of reach here) and any engine download of an install script: the repository's
 * build of the same better-sqlite3 is copied in, else it is rebuilt.
 */
export function installHost(host: string, npm: (args: string[], cwd: string) => string): void {
  npm(['install', '--ignore-scripts'], host);
  const sqliteVersion = (root: string) =>
    (JSON.parse(readFileSync(join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string })
      .version;
  if (sqliteVersion(host) === sqliteVersion(ROOT)) {
    cpSync(
      join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
      join(host, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    );
  } else {
    npm(['rebuild', 'better-sqlite3'], host);
  }
}

/** A host's `npm start`, once it listens: its process (a group leader, to kill with its children), URL and output so far. */
export async function startHost(
  host: string,
  env: NodeJS.ProcessEnv,
): Promise<{ server: ChildProcess; url: string; output: () => string }> {
  const server = spawn('npm', ['start'], {
    cwd: host,
    env: { ...env, PORT: '0' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen in 120 s:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
  return { server, url, output: () => output };
}

/** Whether a child process has ended (by exiting, or by a signal). */
const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Stops a host `startHost` started (SIGTERM to its process group) and waits until it has exited. */
export async function stopHost(server: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => (ended(server) ? resolve(null) : server.once('exit', resolve)));
  if (server.pid !== undefined && !ended(server)) process.kill(-server.pid, 'SIGTERM');
  await exited;
}

/** For `afterAll`: kills a host still running (a test that failed before stopping it), with its children. */
export function killHost(server: ChildProcess | undefined): void {
  if (server?.pid === undefined || ended(server)) return;
  try {
    process.kill(-server.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
