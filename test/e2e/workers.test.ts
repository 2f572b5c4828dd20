/**
 * `npm run demo -- --workers N`: one API from several processes on one database (SQLite file,
 * PostgreSQL and MySQL), on the Kysely, Prisma (`--store prisma`) and Drizzle (`--store drizzle`) stores. A short run of the mixed workload that `npm run bench -- --db postgres
 * --workers` runs for longer: colliding creates are 201 or 409, never a 5xx; every 201 is
 * readable from any process; nothing is lost or duplicated; SIGTERM stops every process and
 * cleans up.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createMysqlDatabase, createPostgresDatabase } from '../support/databases.js';
import { INVARIANTS, type WorkloadReport, runMixedWorkload } from '../support/mixed-workload.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Database, store, worker processes: the Prisma store on two, to spare the machine (each of its
 * workers loads Prisma's client and query compiler; two already make writers on one SQLite
 * file contend for its lock).
 */
const SETUPS = [
  ['sqlite', 'kysely', 4],
  ['postgres', 'kysely', 4],
  ['sqlite', 'prisma', 2],
  ['postgres', 'prisma', 2],
  ['sqlite', 'drizzle', 4],
  ['postgres', 'drizzle', 4],
  ['mysql', 'kysely', 4],
  ['mysql', 'prisma', 2],
  ['mysql', 'drizzle', 4],
] as const;

describe.each(SETUPS)('the demo on %s, --store %s --workers %i', (dialect, store, WORKERS) => {
  let server: ChildProcess;
  let url: string;
  let pg: TestDatabase | undefined;
  let report: WorkloadReport | undefined;

  beforeAll(async () => {
    pg =
      dialect === 'postgres'
        ? await createPostgresDatabase()
        : dialect === 'mysql'
          ? await createMysqlDatabase()
          : undefined;
    const env = { ...process.env, PORT: '0', DATABASE_URL: pg?.url ?? '' };
    server = spawn(
      process.execPath,
      ['--import', 'tsx', 'examples/blog/server.ts', '--workers', String(WORKERS), '--seed', '20', '--store', store],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
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
    const children = execFileSync('pgrep', ['-P', String(server.pid), '-f', 'examples/blog/server.ts'])
      .toString()
      .trim()
      .split('\n');
    expect(children).toHaveLength(WORKERS);
  });

  it('a mixed concurrent workload (test/support/mixed-workload.ts, shared with the bench): every invariant holds', async () => {
    // Two rounds: the second deletes the comments the first created, racing reads of them.
    report = await runMixedWorkload(url, { rounds: 2 });
    expect(report.invariants.filter((invariant) => invariant.failures.length > 0)).toEqual([]);
    // Every invariant was exercised, not skipped.
    expect(report.invariants.map((invariant) => invariant.name).sort()).toEqual([...INVARIANTS].sort());
    expect(report.byStatus.get(201)).toBeGreaterThan(0);
    expect(report.byStatus.get(412)).toBeGreaterThan(0);
  }, 60_000);

  it('the outbox holds exactly one entry per acknowledged write of article 6, served in increasing ids', async () => {
    // The workload's writes of article 6 outside Atomic batches (whose batches all fail).
    const kinds = ['patch-if-match', 'patch', 'add-tag', 'remove-tag'];
    let acknowledged = 0;
    for (const kind of kinds)
      for (const [status, n] of report!.byKind.get(kind) ?? []) if (status >= 200 && status < 300) acknowledged += n;
    expect(acknowledged).toBeGreaterThan(0);
    const entries: Array<{ id: string; attributes: { action: string; changed: string[] } }> = [];
    let next: string | null | undefined = `${url}/events?filter[resourceId]=6&page[size]=100`;
    while (next) {
      const response = await fetch(next);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: typeof entries; links: { next?: string | null } };
      entries.push(...page.data);
      next = page.links.next;
    }
    expect(entries).toHaveLength(acknowledged);
    const ids = entries.map((entry) => Number(entry.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    for (const { attributes } of entries) {
      expect(attributes.action).toBe('update');
      expect([['body'], ['title'], ['tags']]).toContainEqual(attributes.changed);
    }
  }, 30_000);

  it('SIGTERM stops every process', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(() => execFileSync('pgrep', ['-P', String(server.pid), '-f', 'examples/blog/server.ts'])).toThrow();
  }, 30_000);
});
