/**
 * `jsonapi-gen init` as a new user meets it: scaffold a host into an empty directory outside
 * the repository, install this package into it (packed like a release: compiled dist/, bin/,
 * templates/), run its one command, `npm start`, and get JSON:API responses from it. The host
 * also type-checks strictly, its committed output passes `npm run check`, and init run again
 * (now from the installed package) refuses to overwrite anything.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cli } from './support.js';

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

  it('scaffolds a host that `npm start` builds and serves', async () => {
    const scaffolded = await cli(['init', host]);
    expect(scaffolded.stderr).toBe('');
    expect(scaffolded.code).toBe(0);
    expect(scaffolded.stdout).toMatch(/new host in .*my-api \(8 files\)/);
    expect(scaffolded.stdout).toMatch(/Next: cd .*my-api && npm install && npm start/);
    const pkg = JSON.parse(readFileSync(join(host, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: 'my-api', type: 'module', dependencies: { 'jsonapi-gen': expect.any(String), kysely: expect.any(String), 'better-sqlite3': expect.any(String) } });
    expect(pkg.scripts.start).toBe('jsonapi-gen build src/schema.ts --out src/generated --quiet && tsx src/server.ts');
    expect(readdirSync(join(host, 'src')).sort()).toEqual(['db.ts', 'schema.ts', 'server.ts', 'store.ts']);
    expect(existsSync(join(host, '.gitignore'))).toBe(true);

    // This package as a release: compiled into a copy of its published files, packed.
    const pkgDir = join(dir, 'package');
    mkdirSync(pkgDir);
    for (const entry of ['bin', 'templates', 'README.md']) cpSync(join(ROOT, entry), join(pkgDir, entry), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    delete manifest.scripts;
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify(manifest, null, 2));
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkgDir, 'dist')], { cwd: ROOT });
    const packed = JSON.parse((await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: pkgDir })).stdout)[0].filename as string;

    // --ignore-scripts only spares compiling better-sqlite3 from source (its prebuilt binaries
    // are downloaded from GitHub, out of reach here): the repository's build of the same
    // version is copied in, else it is rebuilt.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, packed)], { cwd: host, timeout: 600_000 });
    const sqliteVersion = (root: string) => JSON.parse(readFileSync(join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')).version as string;
    if (sqliteVersion(host) === sqliteVersion(ROOT)) {
      cpSync(join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(host, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
    } else {
      await run('npm', ['rebuild', 'better-sqlite3'], { cwd: host, timeout: 600_000 });
    }
    expect(existsSync(join(host, 'src', 'generated'))).toBe(false);

    // The one command.
    server = spawn('npm', ['start'], { cwd: host, env: { ...process.env, PORT: '0' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
      server!.stdout!.on('data', read);
      server!.stderr!.on('data', read);
      server!.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
    });
    expect(output).toContain('my-api listening on');
    expect(existsSync(join(host, 'src', 'generated', 'index.ts'))).toBe(true);
    expect(existsSync(join(host, 'src', 'generated', 'openapi.json'))).toBe(true);

    const list = await fetch(`${url}/books?include=author`, { headers: { accept: JSONAPI } });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe(JSONAPI);
    const books = (await list.json()) as any;
    expect(books.data.map((b: any) => b.attributes.title)).toEqual(['A Wizard of Earthsea', 'The Left Hand of Darkness']);
    expect(books.included).toEqual([expect.objectContaining({ type: 'authors', id: '1', attributes: { name: 'Ursula K. Le Guin' } })]);

    const created = await fetch(`${url}/books`, {
      method: 'POST',
      headers: { accept: JSONAPI, 'content-type': JSONAPI },
      body: JSON.stringify({ data: { type: 'books', attributes: { title: 'The Dispossessed', year: 1974 }, relationships: { author: { data: { type: 'authors', id: '1' } } } } }),
    });
    expect(created.status).toBe(201);
    const book = (await created.json()) as any;
    const back = (await (await fetch(`${url}/authors/1/books`, { headers: { accept: JSONAPI } })).json()) as any;
    expect(back.data.map((b: any) => b.id)).toContain(book.data.id);

    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as any;
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/authors', '/authors/{id}', '/books', '/books/{id}']));

    process.kill(-server.pid!, 'SIGTERM');
    await new Promise((resolve) => (server!.exitCode !== null ? resolve(null) : server!.once('exit', resolve)));

    // What a host's CI runs: the generated code is current, and everything type-checks strictly.
    await run('npm', ['run', 'check', '--silent'], { cwd: host });
    await run('npm', ['run', 'typecheck', '--silent'], { cwd: host });

    // init from the installed package: its templates ship, and it never overwrites.
    const again = await run('npx', ['--no-install', 'jsonapi-gen', 'init', '.'], { cwd: host }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already has .*package.json; nothing written/);
    expect(JSON.parse(readFileSync(join(host, 'package.json'), 'utf8')).dependencies['jsonapi-gen']).toMatch(/^file:/);
    const fresh = await run('npx', ['--no-install', 'jsonapi-gen', 'init', join(dir, 'second')], { cwd: host });
    expect(fresh.stdout).toContain('(8 files)');
    expect(readFileSync(join(dir, 'second', 'src', 'server.ts'), 'utf8')).toBe(readFileSync(join(host, 'src', 'server.ts'), 'utf8').replaceAll('my-api', 'second'));
  }, 900_000);

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
