/**
 * `jsonapi-gen init --store drizzle` as a new user meets it: from this clone, scaffold a host on
 * the Drizzle store into an empty directory outside the repository (init packs the runtime, the
 * Drizzle integration and the CLI into its vendor/), install it, `npm start` it (its SQL
 * migrations run by drizzle-orm's migrator), and exercise it over HTTP: a filtered list with an
 * include, a create with a relationship (retried with its Idempotency-Key), an update under
 * If-Match, the 409 of a unique violation, a delete. Its own `npm test` passes, its generated
 * code is current and it type-checks.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npm } from '../package/support.js';
import { ROOT, cli, installHost, killHost, startHost, stopHost } from './support.js';

const run = promisify(execFile);
const JSONAPI = 'application/vnd.api+json';
const DRIZZLE_PEER = JSON.parse(readFileSync(join(ROOT, 'integrations/drizzle/package.json'), 'utf8')).peerDependencies[
  'drizzle-orm'
] as string;

describe('jsonapi-gen init --store drizzle', () => {
  let dir: string;
  let server: ChildProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-init-drizzle-'));
  });

  afterAll(() => {
    killHost(server);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('scaffolds a Drizzle host that installs, migrates its SQL, builds, serves and tests', async () => {
    const host = join(dir, 'shelf');
    const scaffolded = await cli(['init', host, '--store', 'drizzle']);
    expect(scaffolded.stderr).toBe('');
    expect(scaffolded.code).toBe(0);
    expect(scaffolded.stdout).toMatch(/Next: cd .*shelf && npm install && npm start/);
    const pkg = JSON.parse(readFileSync(join(host, 'package.json'), 'utf8'));
    // No Kysely: the tables come from SQL files, the reads and writes through Drizzle.
    expect(pkg.dependencies).toEqual({
      'jsonapi-gen': 'file:vendor/jsonapi-gen-0.1.0.tgz',
      '@jsonapi-gen/drizzle': 'file:vendor/jsonapi-gen-drizzle-0.1.0.tgz',
      'drizzle-orm': DRIZZLE_PEER,
      'better-sqlite3': expect.any(String),
    });
    expect(pkg.devDependencies).toMatchObject({ '@jsonapi-gen/cli': 'file:vendor/jsonapi-gen-cli-0.1.0.tgz' });
    expect(readdirSync(join(host, 'vendor')).sort()).toEqual([
      'jsonapi-gen-0.1.0.tgz',
      'jsonapi-gen-cli-0.1.0.tgz',
      'jsonapi-gen-drizzle-0.1.0.tgz',
    ]);
    expect(readdirSync(join(host, 'src')).sort()).toEqual([
      'api.test.ts',
      'db.ts',
      'schema.ts',
      'server.ts',
      'store.ts',
      'tables.ts',
    ]);
    expect(readdirSync(join(host, 'drizzle')).sort()).toEqual([
      '0000_authors_and_books.sql',
      '0001_idempotency_keys.sql',
      'meta',
    ]);
    expect(readFileSync(join(host, 'src', 'store.ts'), 'utf8')).toContain("from '@jsonapi-gen/drizzle'");
    expect(readFileSync(join(host, 'README.md'), 'utf8')).toContain('    npm install\n    npm start ');

    installHost(host, npm);
    const production = JSON.parse(npm(['ls', '--omit=dev', '--json'], host)) as {
      dependencies: Record<string, unknown>;
    };
    expect(Object.keys(production.dependencies).sort()).toEqual([
      '@jsonapi-gen/drizzle',
      'better-sqlite3',
      'drizzle-orm',
      'jsonapi-gen',
    ]);

    const env = { ...process.env };
    delete env.CI;
    delete env.VITEST;
    const started = await startHost(host, env);
    server = started.server;
    const { url } = started;
    expect(started.output()).toContain('shelf listening on');
    const get = (path: string) => fetch(`${url}${path}`, { headers: { accept: JSONAPI } });
    const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method,
        headers: { accept: JSONAPI, 'content-type': JSONAPI, ...headers },
        body: JSON.stringify(body),
      });

    // The seed, read with a filter and an include.
    const earthsea = await get('/books?include=author&filter[title]=A%20Wizard%20of%20Earthsea');
    expect(earthsea.status).toBe(200);
    expect(earthsea.headers.get('content-type')).toBe(JSONAPI);
    const seeded = await earthsea.json();
    expect(seeded.data.map((b: any) => [b.id, b.attributes])).toEqual([
      ['1', { title: 'A Wizard of Earthsea', year: 1968 }],
    ]);
    expect(seeded.included).toEqual([
      expect.objectContaining({ type: 'authors', id: '1', attributes: { name: 'Ursula K. Le Guin' } }),
    ]);

    // A new author, and a book of theirs: created with its to-one, retried with its Idempotency-Key.
    const author = await send('POST', '/authors', { data: { type: 'authors', attributes: { name: 'Iain M. Banks' } } });
    expect(author.status).toBe(201);
    const authorId = (await author.json()).data.id as string;
    const excession = {
      data: {
        type: 'books',
        attributes: { title: 'Excession', year: 1996 },
        relationships: { author: { data: { type: 'authors', id: authorId } } },
      },
    };
    const created = await send('POST', '/books', excession, { 'idempotency-key': 'excession' });
    expect(created.status).toBe(201);
    const bookId = (await created.json()).data.id as string;
    const retried = await send('POST', '/books', excession, { 'idempotency-key': 'excession' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect((await retried.json()).data.id).toBe(bookId);

    // Listed by its author, with the author included: one book, not two.
    const byAuthor = await (await get(`/books?include=author&filter[author]=${authorId}`)).json();
    expect(byAuthor.data.map((b: any) => [b.id, b.relationships.author.data])).toEqual([
      [bookId, { type: 'authors', id: authorId }],
    ]);
    expect(byAuthor.included.map((a: any) => [a.id, a.attributes.name])).toEqual([[authorId, 'Iain M. Banks']]);

    // Update under If-Match: at the version its ETag names, then refused with that ETag gone stale.
    const shown = await get(`/books/${bookId}`);
    const etag = shown.headers.get('etag')!;
    expect(etag).toMatch(/^"1~/);
    const updated = await send(
      'PATCH',
      `/books/${bookId}`,
      { data: { type: 'books', id: bookId, attributes: { year: 1997 } } },
      { 'if-match': etag },
    );
    expect(updated.status).toBe(200);
    expect((await updated.json()).data.attributes).toEqual({ title: 'Excession', year: 1997 });
    expect(updated.headers.get('etag')).toMatch(/^"2~/);
    const stale = await send(
      'PATCH',
      `/books/${bookId}`,
      { data: { type: 'books', id: bookId, attributes: { year: 1998 } } },
      { 'if-match': etag },
    );
    expect(stale.status).toBe(412);
    expect((await stale.json()).errors[0].source).toEqual({ header: 'If-Match' });

    // The unique index on authors.name: a second author of that name is a 409 at the attribute.
    const taken = await send('POST', '/authors', { data: { type: 'authors', attributes: { name: 'Iain M. Banks' } } });
    expect(taken.status).toBe(409);
    expect((await taken.json()).errors[0]).toMatchObject({
      code: 'unique_violation',
      source: { pointer: '/data/attributes/name' },
    });

    // Delete, then gone.
    expect((await fetch(`${url}/books/${bookId}`, { method: 'DELETE', headers: { accept: JSONAPI } })).status).toBe(
      204,
    );
    expect((await get(`/books/${bookId}`)).status).toBe(404);
    expect((await (await get('/openapi.json')).json()).paths).toHaveProperty('/books/{id}');

    await stopHost(server);

    // What the database holds: the two SQL migrations recorded by drizzle-orm's migrator, the
    // year written under If-Match once, the key of the POST, the book deleted.
    const database = new SQLite(join(host, 'data.sqlite'), { readonly: true });
    try {
      expect(database.prepare('select count(*) as n from __drizzle_migrations').get()).toEqual({ n: 2 });
      expect(database.prepare('select title, year, version from books order by id').all()).toEqual([
        { title: 'A Wizard of Earthsea', year: 1968, version: 1 },
        { title: 'The Left Hand of Darkness', year: 1969, version: 1 },
      ]);
      expect(database.prepare('select key, status from jsonapi_idempotency_keys').all()).toEqual([
        { key: expect.stringMatching(/excession$/), status: 201 },
      ]);
    } finally {
      database.close();
    }

    // The host's own tests (GET through Drizzle on a fresh database, src/tables.ts against the
    // migrated tables, the snapshot), its generated code current, and its strict type-check
    // (the mapping checked against the tables).
    const tested = await run('npm', ['test'], { cwd: host, env });
    expect(tested.stdout).toMatch(/3 passed/);
    await run('npm', ['run', 'check', '--silent'], { cwd: host, env });
    await run('npm', ['run', 'typecheck', '--silent'], { cwd: host, env });
  }, 900_000);

  it('is a choice --help lists', async () => {
    const help = await cli(['init', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('(choices: "kysely", "prisma", "drizzle", default: "kysely")');
  }, 60_000);
});
