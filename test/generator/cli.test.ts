/** The CLI as users run it: `node bin/jsonapi-gen.js`, spawned. */
import { execFile } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TMP, fixtureFile } from './fixtures.js';

const run = promisify(execFile);
const BIN = join(ROOT, 'bin', 'jsonapi-gen.js');

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// Each step spawns the CLI (tsx, ts-morph, prettier): seconds each on a busy machine.
describe('jsonapi-gen build', { timeout: 120_000 }, () => {
  const dir = join(TMP, 'cli');
  const schema = join(dir, 'schema.ts');
  const out = join(dir, 'generated');

  beforeAll(() => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    copyFileSync(fixtureFile('minimal/schema.ts'), schema);
  });

  it('writes the files, then reports them unchanged, and --check passes; a new field makes --check fail', async () => {
    const first = await cli('build', schema, '--out', out);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^jsonapi-gen: 1 resource, 2 endpoints → .*generated: 6 written, 0 unchanged/);
    expect(existsSync(join(out, 'resources', 'tags.ts'))).toBe(true);

    const second = await cli('build', schema, '--out', out);
    expect(second.stdout).toMatch(/6 unchanged/);
    expect(second.stdout).toMatch(/0 written/);

    expect((await cli('build', schema, '--out', out, '--check')).code).toBe(0);

    writeFileSync(schema, readFileSync(schema, 'utf8').replace(".writable().required()],", ".writable().required(), Attribute.make('color').type('string')],"));
    rmSync(join(out, 'index.ts'));
    const stale = await cli('build', schema, '--out', out, '--check');
    expect(stale.code).toBe(1);
    expect(stale.stdout).toBe('');
    expect(stale.stderr).toContain('is out of date');
    expect(stale.stderr).toContain('stale:   resources/tags.ts');
    expect(stale.stderr).toContain('stale:   openapi.json');
    expect(stale.stderr).toContain('missing: index.ts');
    expect(existsSync(join(out, 'index.ts'))).toBe(false);
    expect(readFileSync(join(out, 'resources', 'tags.ts'), 'utf8')).not.toContain('color');
  });

  it('scaffolds stubs once and never overwrites them', async () => {
    const stubs = join(dir, 'data');
    rmSync(stubs, { recursive: true, force: true });
    mkdirSync(stubs, { recursive: true });
    const first = await cli('build', schema, '--out', out, '--stubs', stubs);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('stubs');
    const stub = readFileSync(join(stubs, 'tags.ts'), 'utf8');
    expect(stub).toContain("from '../generated/index.js'");
    expect(stub).toContain('TagsDataLayer<TagsRow, TagsQuery>');
    appendFileSync(join(stubs, 'tags.ts'), '// mine\n');
    await cli('build', schema, '--out', out, '--stubs', stubs);
    expect(readFileSync(join(stubs, 'tags.ts'), 'utf8')).toContain('// mine');
  });

  it.concurrent('reports a schema mistake with its position and exits 1, without a stack trace', async () => {
    const { code, stderr, stdout } = await cli('build', fixtureFile('errors/field-named-id.ts'), '--out', join(dir, 'never'));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('fixtures/errors/field-named-id.ts:6:20 - error: articles: "id" cannot be a field name');
    expect(stderr).toContain("  6 |     Attribute.make('id').type('integer'),");
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it.concurrent('reports an exception thrown while loading the schema at the line that threw', async () => {
    const { code, stderr } = await cli('build', fixtureFile('errors/throws-on-load.ts'), '--out', join(dir, 'never'));
    expect(code).toBe(1);
    expect(stderr).toContain('fixtures/errors/throws-on-load.ts:6:28 - error: cannot load the schema: paginate(50, 10)');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it.concurrent('answers --help and --version', async () => {
    const help = await cli('--help');
    expect(help.stdout).toContain('Usage: jsonapi-gen');
    expect(help.stdout).toContain('build [options] <schema>');
    const version = await cli('--version');
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });
});
