/**
 * `npm run demo -- --workers N`: one API from several processes on one database (SQLite file
 * and PostgreSQL). Concurrent writes with colliding unique names are 201 or 409, never a 5xx;
 * every 201 is readable from any process; SIGTERM stops every process and cleans up.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const JSONAPI = 'application/vnd.api+json';
const WORKERS = 3;

describe.each(['sqlite', 'postgres'] as const)('the demo with --workers %s', (dialect) => {
  let server: ChildProcess;
  let url: string;
  let pg: TestDatabase | undefined;

  beforeAll(async () => {
    pg = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
    const env = { ...process.env, PORT: '0', DATABASE_URL: pg?.url ?? '' };
    server = spawn(process.execPath, ['--import', 'tsx', 'examples/blog/server.ts', '--workers', String(WORKERS), '--seed', '20'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) resolve(match[1]!);
      };
      server.stdout!.on('data', read);
      server.stderr!.on('data', read);
      server.once('exit', (code) => reject(new Error(`the demo exited with ${code}:\n${output}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    await pg?.drop();
  });

  it(`serves from ${WORKERS} worker processes`, () => {
    // Workers run the same script (tsx may have an esbuild service process beside them).
    const children = execFileSync('pgrep', ['-P', String(server.pid), '-f', 'examples/blog/server.ts']).toString().trim().split('\n');
    expect(children).toHaveLength(WORKERS);
  });

  it('concurrent creates with colliding unique names: 201 or 409 only, every 201 readable', async () => {
    const names = Array.from({ length: 48 }, (_, i) => `tag-${i % 12}`);
    const answers = await Promise.all(
      names.map((name) =>
        fetch(`${url}/tags`, {
          method: 'POST',
          headers: { 'content-type': JSONAPI, accept: JSONAPI },
          body: JSON.stringify({ data: { type: 'tags', attributes: { name } } }),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as { data?: { id: string } } })),
      ),
    );
    expect(answers.filter((a) => a.status !== 201 && a.status !== 409)).toEqual([]);
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(12);
    for (const { body } of created) {
      const read = await fetch(`${url}/tags/${body.data!.id}`, { headers: { accept: JSONAPI } });
      expect(read.status).toBe(200);
    }
  }, 60_000);

  it('SIGTERM stops every process', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(() => execFileSync('pgrep', ['-P', String(server.pid), '-f', 'examples/blog/server.ts'])).toThrow();
  }, 30_000);
});
