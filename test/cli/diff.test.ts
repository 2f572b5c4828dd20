/**
 * `jsonapi-gen diff` as CI runs it, spawned: `--against` a git ref in a real repository, the
 * exit codes (0 for none or non-breaking, 1 for breaking unless `--allow-breaking`, 2 for a
 * bad invocation or an unreadable input), the exact `--json` shape, and a schema mistake
 * reported at its file:line:col.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, workDir } from './support.js';

const SCHEMA = `import { Attribute, Index, Show, Where, defineResource } from 'jsonapi-gen';

export const tags = defineResource({
  type: 'tags',
  fields: [Attribute.make('name').type('string').writable().required(), Attribute.make('color').type('string').writable()],
  endpoints: [Show.make(), Index.make().paginate(20, 50)],
  filters: [Where.make('name').operators('eq', 'contains')],
});
`;

/** `SCHEMA` with `from` replaced by `to` (the replacement must apply). */
function changed(from: string, to: string): string {
  expect(SCHEMA).toContain(from);
  return SCHEMA.replace(from, to);
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd, stdio: 'ignore' });
}

describe('jsonapi-gen diff', { timeout: 120_000 }, () => {
  it('--against HEAD compares the working tree with the committed schema, and with the committed generated folder', async () => {
    const repo = workDir('diff-git');
    git(repo, 'init', '-q');
    const schema = join(repo, 'schema.ts');
    writeFileSync(schema, SCHEMA);
    const built = await cli(['build', 'schema.ts', '--out', 'generated', '--quiet'], { cwd: repo });
    expect(built).toEqual({ code: 0, stdout: '', stderr: '' });
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');

    const same = await cli(['diff', '--against', 'HEAD', 'schema.ts'], { cwd: repo });
    expect(same).toEqual({ code: 0, stdout: 'jsonapi-gen: no changes; verdict: none\n', stderr: '' });

    writeFileSync(schema, changed(".operators('eq', 'contains')", ".operators('eq')"));
    const breaking = await cli(['diff', '--against', 'HEAD', 'schema.ts'], { cwd: repo });
    expect(breaking.stderr).toBe('');
    expect(breaking.code).toBe(1);
    expect(breaking.stdout.split('\n')).toEqual([
      'jsonapi-gen: 1 breaking change, 0 non-breaking changes; verdict: major',
      'Breaking:',
      '  tags.filter.name.contains: operator "contains" removed (operator-removed)',
      '',
    ]);
    // The ref's schema was loaded from a file beside the working tree's, and removed after.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe(' M schema.ts\n');

    // The generated folder at the ref: its schema.json.
    expect((await cli(['build', 'schema.ts', '--out', 'generated', '--quiet'], { cwd: repo })).code).toBe(0);
    const folder = await cli(['diff', '--against', 'HEAD', 'generated', '--json'], { cwd: repo });
    expect(folder.code).toBe(1);
    const fromSchema = await cli(['diff', '--against', 'HEAD', 'schema.ts', '--json'], { cwd: repo });
    expect(JSON.parse(folder.stdout)).toEqual(JSON.parse(fromSchema.stdout));
    expect(JSON.parse(folder.stdout).changes.map((c: { path: string }) => c.path)).toEqual([
      'tags.filter.name.contains',
    ]);

    const unknownRef = await cli(['diff', '--against', 'no-such-ref', 'schema.ts'], { cwd: repo });
    expect(unknownRef.code).toBe(2);
    expect(unknownRef.stderr).toMatch(/^jsonapi-gen: error: git show no-such-ref:schema\.ts: fatal: /);

    // A mistake in the ref's schema is located there, as git names the file, its line quoted.
    writeFileSync(schema, SCHEMA.replace("Where.make('name')", "Where.make('nmae')"));
    git(repo, 'commit', '-q', '-am', 'broken');
    writeFileSync(schema, SCHEMA);
    const brokenAtRef = await cli(['diff', '--against', 'HEAD', 'schema.ts'], { cwd: repo });
    expect(brokenAtRef.code).toBe(2);
    expect(brokenAtRef.stderr).toContain("HEAD:schema.ts:7:24 - error: tags: Where.make('nmae') names no attribute");
    expect(brokenAtRef.stderr).toContain("  7 |   filters: [Where.make('nmae').operators('eq', 'contains')],");
  });

  it('exits 0 for non-breaking changes, 1 for breaking ones unless --allow-breaking; --json prints exactly { verdict, changes }', async () => {
    const dir = workDir('diff-exit');
    const old = join(dir, 'old.ts');
    const minor = join(dir, 'minor.ts');
    const major = join(dir, 'major.ts');
    writeFileSync(old, SCHEMA);
    writeFileSync(minor, changed("filters: [Where.make('name')", "filters: [Where.make('color'), Where.make('name')"));
    writeFileSync(major, changed(", Attribute.make('color').type('string').writable()", ''));

    const none = await cli(['diff', old, old, '--json']);
    expect(none).toEqual({ code: 0, stdout: '{"verdict":"none","changes":[]}\n', stderr: '' });

    const added = await cli(['diff', old, minor, '--json']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({
      verdict: 'minor',
      changes: [{ kind: 'filter-added', breaking: false, path: 'tags.filter.color', message: 'filter "color" added' }],
    });

    const removed = await cli(['diff', old, major, '--json']);
    expect(removed.code).toBe(1);
    expect(JSON.parse(removed.stdout)).toEqual({
      verdict: 'major',
      changes: [
        { kind: 'attribute-removed', breaking: true, path: 'tags.color', message: 'attribute "color" removed' },
      ],
    });
    expect(Object.keys(JSON.parse(removed.stdout))).toEqual(['verdict', 'changes']);

    const allowed = await cli(['diff', old, major, '--allow-breaking']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('tags.color: attribute "color" removed (attribute-removed)');

    // The other direction: an optional attribute added.
    const back = await cli(['diff', major, old]);
    expect(back.code).toBe(0);
    expect(back.stdout.split('\n')).toEqual([
      'jsonapi-gen: 0 breaking changes, 1 non-breaking change; verdict: minor',
      'Non-breaking:',
      '  tags.color: attribute "color" added (attribute-added)',
      '',
    ]);
  });

  it('exits 2 for a bad invocation or an unreadable input, a schema mistake at its file:line:col', async () => {
    const dir = workDir('diff-errors');
    const old = join(dir, 'old.ts');
    writeFileSync(old, SCHEMA);

    const one = await cli(['diff', old]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('diff takes two paths, OLD and NEW');

    const unknownOption = await cli(['diff', old, old, '--bogus']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--bogus'");

    const missing = await cli(['diff', old, join(dir, 'nowhere.ts')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere.ts not found');

    const notBuilt = await cli(['diff', old, dir]);
    expect(notBuilt.code).toBe(2);
    expect(notBuilt.stderr).toMatch(/schema\.json not found: build the folder/);

    const broken = join(dir, 'broken.ts');
    writeFileSync(broken, SCHEMA.replace("Where.make('name')", "Where.make('nmae')"));
    const located = await cli(['diff', old, broken]);
    expect(located.code).toBe(2);
    const line =
      readFileSync(broken, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes("'nmae'")) + 1;
    const column = readFileSync(broken, 'utf8').split('\n')[line - 1]!.indexOf("'nmae'") + 1;
    expect(located.stderr).toContain(
      `broken.ts:${line}:${column} - error: tags: Where.make('nmae') names no attribute`,
    );
    expect(located.stdout).toBe('');
  });

  it('build writes schema.json, and --check finds it stale after a change only it records (a filter made conditional)', async () => {
    const dir = workDir('diff-check');
    const schema = join(dir, 'schema.ts');
    writeFileSync(schema, SCHEMA);
    expect((await cli(['build', schema, '--out', join(dir, 'generated'), '--quiet'])).code).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, 'generated', 'schema.json'), 'utf8'));
    expect(written.resources.map((r: { type: string }) => r.type)).toEqual(['tags']);
    expect(written.resources[0].filters).toEqual([expect.objectContaining({ name: 'name', conditional: false })]);

    writeFileSync(schema, changed("Where.make('name')", "Where.make('name').visible(() => true)"));
    const check = await cli(['build', schema, '--out', join(dir, 'generated'), '--check']);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('  stale:   schema.json');
    expect(check.stderr).not.toContain('openapi.json');
  });

  it('is listed in --help', async () => {
    const help = await cli(['--help']);
    expect(help.stdout).toMatch(/\n {2}diff \[options\] \[old\] \[new\] +Compare two versions of an API/);
    const own = await cli(['diff', '--help']);
    for (const flag of ['--against <ref>', '--json', '--allow-breaking']) expect(own.stdout).toContain(flag);
  });
});
