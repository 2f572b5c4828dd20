/**
 * `npm run demo -- --store kysely|prisma|drizzle|memory`: the data layers the demo serves from,
 * as examples/blog/README.md says; `--memory` is `--store memory`; a store the demo does not
 * serve, or a misspelt one, stops it with a message naming what it takes.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the demo with `args`: the port it listens on, or how it exited and what it printed. */
function demo(args: string[]): Promise<{ port?: number; code?: number | null; output: string; stop(): void }> {
  const server = spawn(process.execPath, ['--import', 'tsx', 'examples/blog/server.ts', '--seed', '3', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => void server.kill('SIGKILL');
  return new Promise((resolve) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve({ port: Number(match[1]), output, stop });
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.once('exit', (code) => resolve({ code, output, stop }));
  });
}

describe('the demo --store flag', () => {
  it.each([
    [['--store', 'memory'], 'memory, hand-written data layers'],
    [['--memory'], 'memory, hand-written data layers'],
    [['--store', 'kysely'], 'a temporary SQLite file'],
    [['--store', 'prisma'], 'a temporary SQLite file, Prisma store'],
    [['--store', 'drizzle'], 'a temporary SQLite file, Drizzle store'],
  ])(
    '%j serves the blog from %s',
    async (args, where) => {
      const started = await demo(args);
      try {
        expect(started.port, started.output).toBeDefined();
        expect(started.output).toContain(where);
        const response = await fetch(`http://127.0.0.1:${started.port}/articles?page[limit]=2`);
        expect(response.status).toBe(200);
        expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(2);
      } finally {
        started.stop();
      }
    },
    60_000,
  );

  it.each([
    [['--store', 'typeorm'], '--store takes kysely, prisma, drizzle or memory, not "typeorm"'],
    [['--store', 'nope'], '--store takes kysely, prisma, drizzle or memory, not "nope"'],
  ])(
    '%j stops with a message',
    async (args, message) => {
      const exited = await demo(args);
      exited.stop();
      expect(exited.port).toBeUndefined();
      expect(exited.code).not.toBe(0);
      expect(exited.output).toContain(message);
    },
    60_000,
  );
});
