/**
 * `jsonapi-gen init` as a new user meets it: from this clone, scaffold a host into an empty
 * directory outside the repository (init packs the clone's three packages into its vendor/),
 * install it, run `npm start`, and get JSON:API responses from it. The host's own `npm test`
 * passes, it type-checks strictly, its generated output passes `npm run check`, and init run
 * again (now from the installed package) refuses to overwrite anything. Its tables come from
 * Kysely's Migrator, and a 500's cause is logged.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npm } from '../package/support.js';
import { BIN, cli, installHost, startHost } from './support.js';

const run = promisify(execFile);
const JSONAPI = 'application/vnd.api+json';

describe('jsonapi-gen init', () => {
  let dir: string;
  let host: string;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-init-'));
    host = join(dir, 'my-api');
  });

  afterAll(async () => {
    if (server?.pid !== undefined && server.exitCode === null) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('scaffolds a host from this clone that installs, `npm start` builds and serves, and `npm test` tests', async () => {
    const scaffolded = await cli(['init', host]);
    expect(scaffolded.stderr).toBe('');
    expect(scaffolded.code).toBe(0);
    expect(scaffolded.stdout).toMatch(
      /new host in .*my-api \(15 files; the packages of this clone, packed into vendor\/\)/,
    );
    expect(scaffolded.stdout).toMatch(/Next: cd .*my-api && npm install && npm start/);
    const pkg = JSON.parse(readFileSync(join(host, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: 'my-api',
      type: 'module',
      dependencies: {
        'jsonapi-gen': 'file:vendor/jsonapi-gen-0.1.0.tgz',
        '@jsonapi-gen/kysely': 'file:vendor/jsonapi-gen-kysely-0.1.0.tgz',
        kysely: expect.any(String),
        'better-sqlite3': expect.any(String),
      },
      devDependencies: { '@jsonapi-gen/cli': 'file:vendor/jsonapi-gen-cli-0.1.0.tgz', vitest: expect.any(String) },
    });
    expect(pkg.scripts.start).toBe('jsonapi-gen build src/schema.ts --out src/generated --quiet && tsx src/server.ts');
    expect(readdirSync(join(host, 'src')).sort()).toEqual([
      'api.test.ts',
      'db.ts',
      'migrations',
      'schema.ts',
      'server.ts',
      'store.ts',
    ]);
    expect(readdirSync(join(host, 'src', 'migrations')).sort()).toEqual(['0001_authors_and_books.ts', 'index.ts']);
    expect(readdirSync(join(host, 'vendor')).sort()).toEqual([
      'jsonapi-gen-0.1.0.tgz',
      'jsonapi-gen-cli-0.1.0.tgz',
      'jsonapi-gen-kysely-0.1.0.tgz',
    ]);
    expect(existsSync(join(host, '.gitignore'))).toBe(true);
    // The two commands its README prints.
    expect(readFileSync(join(host, 'README.md'), 'utf8')).toContain('    npm install\n    npm start ');

    // npm install, with one difference: --ignore-scripts spares compiling better-sqlite3 from
    // source (a minute on this machine; its prebuilt binaries are downloaded from GitHub, out of
    // reach here): the repository's build of the same version is copied in, else it is rebuilt.
    installHost(host, npm);
    // A server's own dependencies: the runtime, the Kysely integration and its driver, no generator.
    const production = JSON.parse(npm(['ls', '--omit=dev', '--json'], host)) as {
      dependencies: Record<string, unknown>;
    };
    expect(Object.keys(production.dependencies).sort()).toEqual([
      '@jsonapi-gen/kysely',
      'better-sqlite3',
      'jsonapi-gen',
      'kysely',
    ]);
    expect(existsSync(join(host, 'src', 'generated'))).toBe(false);

    // npm start.
    const started = await startHost(host, process.env);
    server = started.server;
    const { url } = started;
    const output = started.output;
    expect(output()).toContain('my-api listening on');
    expect(existsSync(join(host, 'src', 'generated', 'index.ts'))).toBe(true);
    expect(existsSync(join(host, 'src', 'generated', 'openapi.json'))).toBe(true);

    const list = await fetch(`${url}/books?include=author`, { headers: { accept: JSONAPI } });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe(JSONAPI);
    const books = await list.json();
    expect(books.data.map((b: any) => b.attributes.title)).toEqual([
      'A Wizard of Earthsea',
      'The Left Hand of Darkness',
    ]);
    expect(books.included).toEqual([
      expect.objectContaining({ type: 'authors', id: '1', attributes: { name: 'Ursula K. Le Guin' } }),
    ]);

    const created = await fetch(`${url}/books`, {
      method: 'POST',
      headers: { accept: JSONAPI, 'content-type': JSONAPI },
      body: JSON.stringify({
        data: {
          type: 'books',
          attributes: { title: 'The Dispossessed', year: 1974 },
          relationships: { author: { data: { type: 'authors', id: '1' } } },
        },
      }),
    });
    expect(created.status).toBe(201);
    const book = await created.json();
    const back = await (await fetch(`${url}/authors/1/books`, { headers: { accept: JSONAPI } })).json();
    expect(back.data.map((b: any) => b.id)).toContain(book.data.id);

    const openapi = await (await fetch(`${url}/openapi.json`)).json();
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/authors', '/authors/{id}', '/books', '/books/{id}']),
    );

    // The tables came from Kysely's Migrator, which recorded the migration it ran; and a 500's
    // cause, which its body does not tell, is in the server's log.
    const database = new SQLite(join(host, 'data.sqlite'));
    try {
      expect(database.prepare('select name from kysely_migration').all()).toEqual([{ name: '0001_authors_and_books' }]);
      database.exec('drop table books');
    } finally {
      database.close();
    }
    const failed = await fetch(`${url}/books`, { headers: { accept: JSONAPI } });
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain('no such table');
    // The log line reaches us through the child's stderr pipe, a moment after the response.
    const logged = /my-api: 500 Internal Server Error: SqliteError: no such table: books/;
    for (let waited = 0; !logged.test(output()) && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output()).toMatch(logged);

    process.kill(-server.pid!, 'SIGTERM');
    await new Promise((resolve) => (server!.exitCode !== null ? resolve(null) : server!.once('exit', resolve)));

    // The host's own tests: the first run writes the snapshot of its generated API, the next compares.
    const env = { ...process.env };
    delete env.CI;
    delete env.VITEST;
    const first = await run('npm', ['test'], { cwd: host, env });
    expect(first.stdout).toMatch(/2 passed/);
    expect(first.stdout).toMatch(/1 written/);
    expect(existsSync(join(host, 'src', '__snapshots__', 'api.test.ts.snap'))).toBe(true);
    const second = await run('npm', ['test'], { cwd: host, env: { ...env, CI: 'true' } });
    expect(second.stdout).toMatch(/2 passed/);

    // What a host's CI runs: the generated code is current, and everything type-checks strictly.
    await run('npm', ['run', 'check', '--silent'], { cwd: host });
    await run('npm', ['run', 'typecheck', '--silent'], { cwd: host });
    // And on a pull request, its workflow's last step: jsonapi-gen diff against the target branch,
    // here HEAD of a fresh repository: 0 for an added attribute, 1 once it is removed again.
    const workflow = readFileSync(join(host, '.github', 'workflows', 'api.yml'), 'utf8');
    expect(workflow).toContain('run: npx jsonapi-gen diff --against origin/${{ github.base_ref }} src/schema.ts');
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@localhost', ...args], { cwd: host });
    await git('init', '-q');
    await git('add', 'src/schema.ts');
    await git('commit', '-q', '-m', 'schema');
    const schemaFile = join(host, 'src', 'schema.ts');
    const committed = readFileSync(schemaFile, 'utf8');
    const diff = () =>
      run('npx', ['--no-install', 'jsonapi-gen', 'diff', '--against', 'HEAD', 'src/schema.ts'], { cwd: host }).then(
        (result) => ({ code: 0, stdout: result.stdout, stderr: result.stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const withIsbn = committed.replace(
      "Attribute.make('year').type('integer').nullable().writable(),",
      "Attribute.make('year').type('integer').nullable().writable(), Attribute.make('isbn').type('string').nullable().writable(),",
    );
    writeFileSync(schemaFile, withIsbn);
    const added = await diff();
    expect(added.code, added.stdout + added.stderr).toBe(0);
    expect(added.stdout).toMatch(/minor/);
    await git('commit', '-q', '-am', 'isbn');
    writeFileSync(schemaFile, committed);
    const removed = await diff();
    expect(removed.code, removed.stdout + removed.stderr).toBe(1);
    expect(removed.stdout).toMatch(/books\.isbn/);

    // init from the installed package: its templates ship, and it never overwrites.
    const again = await run('npx', ['--no-install', 'jsonapi-gen', 'init', '.'], { cwd: host }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already has .*package.json.*; nothing written/);
    // Outside a clone, init depends on the registry's versions.
    const fresh = await run('npx', ['--no-install', 'jsonapi-gen', 'init', join(dir, 'second')], { cwd: host });
    expect(fresh.stdout).toContain('(12 files; the packages from the npm registry)');
    expect(JSON.parse(readFileSync(join(dir, 'second', 'package.json'), 'utf8')).dependencies['jsonapi-gen']).toBe(
      '^0.1.0',
    );
    expect(existsSync(join(dir, 'second', 'vendor'))).toBe(false);
    expect(readFileSync(join(dir, 'second', 'src', 'server.ts'), 'utf8')).toBe(
      readFileSync(join(host, 'src', 'server.ts'), 'utf8').replaceAll('my-api', 'second'),
    );
  }, 900_000);

  it('--registry depends on the published packages, even from a clone', async () => {
    const target = join(dir, 'published');
    const scaffolded = await cli(['init', target, '--registry']);
    expect(scaffolded.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toMatchObject({ 'jsonapi-gen': '^0.1.0', '@jsonapi-gen/kysely': '^0.1.0' });
    expect(pkg.devDependencies).toMatchObject({ '@jsonapi-gen/cli': '^0.1.0' });
    expect(existsSync(join(target, 'vendor'))).toBe(false);
    const both = await cli(['init', join(dir, 'both'), '--registry', '--from-checkout']);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/option '--from-checkout' cannot be used with option '--registry'/);
  }, 60_000);

  it('refuses a directory that already has the files, writing nothing', async () => {
    const target = join(dir, 'taken');
    mkdirSync(join(target, 'src'), { recursive: true });
    writeFileSync(join(target, 'src', 'schema.ts'), '// mine\n');
    const refused = await cli(['init', target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already has src\/schema.ts; nothing written/);
    expect(readdirSync(target)).toEqual(['src']);
    expect(readFileSync(join(target, 'src', 'schema.ts'), 'utf8')).toBe('// mine\n');
    void BIN;
  }, 60_000);
});
