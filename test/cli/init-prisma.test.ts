/**
 * `jsonapi-gen init --store prisma` as a new user meets it: from this clone, scaffold a host on
 * the Prisma store into an empty directory outside the repository (init packs the runtime, the
 * Prisma integration and the CLI into its vendor/), install it, generate its Prisma client with
 * its offline script, `npm start` it, and get JSON:API responses through Prisma: a GET, a POST,
 * and the POST retried with its Idempotency-Key. Its own `npm test` passes and it type-checks.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npm } from '../package/support.js';
import { ROOT, cli, installHost, startHost } from './support.js';

const run = promisify(execFile);
const JSONAPI = 'application/vnd.api+json';
const PRISMA_VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies.prisma as string;

describe('jsonapi-gen init --store prisma', () => {
  let dir: string;
  let server: ChildProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-init-prisma-'));
  });

  afterAll(() => {
    if (server?.pid !== undefined && server.exitCode === null) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('scaffolds a Prisma host that installs, generates its client offline, builds and serves', async () => {
    const host = join(dir, 'shelf');
    const scaffolded = await cli(['init', host, '--store', 'prisma']);
    expect(scaffolded.stderr).toBe('');
    expect(scaffolded.code).toBe(0);
    expect(scaffolded.stdout).toMatch(/Next: cd .*shelf && npm install && npm run prisma:generate && npm start/);
    const pkg = JSON.parse(readFileSync(join(host, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({
      'jsonapi-gen': 'file:vendor/jsonapi-gen-0.1.0.tgz',
      '@jsonapi-gen/prisma': 'file:vendor/jsonapi-gen-prisma-0.1.0.tgz',
      '@prisma/client': PRISMA_VERSION,
      '@prisma/adapter-better-sqlite3': PRISMA_VERSION,
      'better-sqlite3': expect.any(String),
      kysely: expect.any(String),
    });
    expect(pkg.devDependencies).toMatchObject({
      '@jsonapi-gen/cli': 'file:vendor/jsonapi-gen-cli-0.1.0.tgz',
      prisma: PRISMA_VERSION,
    });
    expect(pkg.scripts['prisma:generate']).toBe('node scripts/prisma-generate.mjs');
    expect(readdirSync(join(host, 'vendor')).sort()).toEqual([
      'jsonapi-gen-0.1.0.tgz',
      'jsonapi-gen-cli-0.1.0.tgz',
      'jsonapi-gen-prisma-0.1.0.tgz',
    ]);
    expect(existsSync(join(host, 'prisma', 'schema.prisma'))).toBe(true);
    expect(readFileSync(join(host, 'src', 'store.ts'), 'utf8')).toContain("from '@jsonapi-gen/prisma'");
    const readme = readFileSync(join(host, 'README.md'), 'utf8');
    expect(readme).toContain('    npm install\n    npm run prisma:generate ');
    expect(readme).toContain('`npx prisma generate`');

    // Installed from the npm cache (the Prisma packages are there since the repository installed
    // them); --ignore-scripts and better-sqlite3's build copied in, as in init.test.ts. Prisma's
    // engines' postinstall, skipped with it, would download engines the host never uses.
    installHost(host, npm);
    const production = JSON.parse(npm(['ls', '--omit=dev', '--json'], host)) as {
      dependencies: Record<string, unknown>;
    };
    expect(Object.keys(production.dependencies).sort()).toEqual([
      '@jsonapi-gen/prisma',
      '@prisma/adapter-better-sqlite3',
      '@prisma/client',
      'better-sqlite3',
      'jsonapi-gen',
      'kysely',
    ]);

    // The offline generate: no schema engine is installed, none is downloaded.
    const env = { ...process.env };
    delete env.PRISMA_SCHEMA_ENGINE_BINARY;
    delete env.CI;
    delete env.VITEST;
    const generated = await run('npm', ['run', 'prisma:generate'], { cwd: host, env });
    expect(generated.stdout).toContain('Generated Prisma Client');
    expect(existsSync(join(host, 'prisma', 'generated', 'client.ts'))).toBe(true);

    // npm start: builds src/generated, migrates, seeds through Prisma, serves.
    const started = await startHost(host, env);
    server = started.server;
    const { url } = started;
    const output = started.output;
    expect(output()).toContain('shelf listening on');

    const list = await fetch(`${url}/books?include=author`, { headers: { accept: JSONAPI } });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe(JSONAPI);
    const books = await list.json();
    expect(books.data.map((b: any) => b.attributes)).toEqual([
      { title: 'A Wizard of Earthsea', year: 1968 },
      { title: 'The Left Hand of Darkness', year: 1969 },
    ]);
    expect(books.included).toEqual([
      expect.objectContaining({ type: 'authors', id: '1', attributes: { name: 'Ursula K. Le Guin' } }),
    ]);

    const post = () =>
      fetch(`${url}/books`, {
        method: 'POST',
        headers: { accept: JSONAPI, 'content-type': JSONAPI, 'idempotency-key': 'first-book' },
        body: JSON.stringify({
          data: {
            type: 'books',
            attributes: { title: 'The Dispossessed', year: 1974 },
            relationships: { author: { data: { type: 'authors', id: '1' } } },
          },
        }),
      });
    const created = await post();
    expect(created.status).toBe(201);
    const book = await created.json();
    expect(book.data.attributes).toEqual({ title: 'The Dispossessed', year: 1974 });
    // The retry is answered from the Idempotency-Key table through Prisma: the same book, no second one.
    const retried = await post();
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect((await retried.json()).data.id).toBe(book.data.id);
    const back = await (await fetch(`${url}/authors/1/books`, { headers: { accept: JSONAPI } })).json();
    expect(back.data.map((b: any) => b.attributes.title).sort()).toEqual([
      'A Wizard of Earthsea',
      'The Dispossessed',
      'The Left Hand of Darkness',
    ]);
    // A to-one to no row is the JSON:API error Prisma's foreign key failure maps to.
    const orphan = await fetch(`${url}/books`, {
      method: 'POST',
      headers: { accept: JSONAPI, 'content-type': JSONAPI },
      body: JSON.stringify({
        data: {
          type: 'books',
          attributes: { title: 'Nobody wrote this' },
          relationships: { author: { data: { type: 'authors', id: '99' } } },
        },
      }),
    });
    expect(orphan.status).toBe(404);
    expect((await orphan.json()).errors[0].source).toEqual({ pointer: '/data/relationships/author/data' });

    process.kill(-server.pid!, 'SIGTERM');
    await new Promise((resolve) => (server!.exitCode !== null ? resolve(null) : server!.once('exit', resolve)));

    // The tables came from the Kysely migrations, not from Prisma.
    const database = new SQLite(join(host, 'data.sqlite'), { readonly: true });
    try {
      expect(database.prepare('select name from kysely_migration order by name').all()).toEqual([
        { name: '0001_authors_and_books' },
        { name: '0002_idempotency_keys' },
      ]);
    } finally {
      database.close();
    }

    // The host's own test (GET through Prisma, and the snapshot), and its strict type-check
    // (the generated Prisma client included).
    const tested = await run('npm', ['test'], { cwd: host, env });
    expect(tested.stdout).toMatch(/2 passed/);
    await run('npm', ['run', 'typecheck', '--silent'], { cwd: host, env });
  }, 900_000);

  it('refuses a store it does not know, writing nothing', async () => {
    const target = join(dir, 'unknown');
    const refused = await cli(['init', target, '--store', 'mongo']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/argument 'mongo' is invalid. Allowed choices are kysely, prisma/);
    expect(existsSync(target)).toBe(false);
  }, 60_000);
});
