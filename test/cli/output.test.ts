/**
 * What `jsonapi-gen build` prints: a one-line summary; nothing at all with --quiet; one JSON
 * object with --json (success, --check and schema errors alike); colour only on a terminal,
 * never with NO_COLOR.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { styles, useColor } from '../../generator/output.js';
import { ANSI, BIN, ROOT, cli, minimalSchema, workDir } from './support.js';

describe('build --quiet and --json', () => {
  it('--json reports the build as one JSON object; --quiet prints nothing on success', async () => {
    const dir = workDir('json');
    const schema = minimalSchema(dir);
    const out = join(dir, 'generated');

    const first = await cli(['build', schema, '--out', out, '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    expect(report).toEqual({
      ok: true,
      schema,
      out,
      resources: 1,
      endpoints: 2,
      written: expect.arrayContaining(['index.ts', 'openapi.json', 'resources/tags.ts']),
      unchanged: [],
      removed: [],
    });
    expect(report.written).toHaveLength(8);
    for (const path of report.written) expect(existsSync(join(out, path))).toBe(true);

    const quiet = await cli(['build', schema, '--out', out, '--quiet']);
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });

    const check = await cli(['build', schema, '--out', out, '--check', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({
      ok: true,
      check: true,
      schema,
      out,
      resources: 1,
      endpoints: 2,
      stale: [],
      missing: [],
      extra: [],
    });

    writeFileSync(
      schema,
      readFileSync(schema, 'utf8').replace(
        '.writable().required()]',
        ".writable().required(), Attribute.make('color').type('string')]",
      ),
    );
    const stale = await cli(['build', schema, '--out', out, '--check', '--json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe('');
    expect(JSON.parse(stale.stdout)).toMatchObject({
      ok: false,
      check: true,
      stale: ['client.ts', 'openapi.json', 'openapi.ts', 'resources/tags.ts', 'schema.json'],
      missing: [],
      extra: [],
    });

    const quietCheck = await cli(['build', schema, '--out', out, '--check', '--quiet']);
    expect(quietCheck.code).toBe(1);
    expect(quietCheck.stdout).toBe('');
    expect(quietCheck.stderr).toContain('stale:   resources/tags.ts');
  }, 120_000);

  it('--json reports schema mistakes with their position, on stdout, exit 1', async () => {
    const run = await cli([
      'build',
      join(ROOT, 'fixtures/errors/field-named-id.ts'),
      '--out',
      join(workDir('json-error'), 'never'),
      '--json',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      schema: join(ROOT, 'fixtures/errors/field-named-id.ts'),
      out: expect.any(String),
      errors: [
        {
          file: join(ROOT, 'fixtures/errors/field-named-id.ts'),
          line: 6,
          column: 20,
          message: expect.stringMatching(/^articles: "id" cannot be a field name/),
        },
      ],
    });
  }, 60_000);

  it('refuses --quiet with --json, and --watch with --check', async () => {
    const a = await cli(['build', 'x.ts', '--out', 'y', '--quiet', '--json']);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/cannot be used with/);
    const b = await cli(['build', 'x.ts', '--out', 'y', '--watch', '--check']);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/cannot be used with/);
  }, 60_000);
});

describe('colour', () => {
  it('is used on a terminal only, and never with NO_COLOR', () => {
    expect(useColor({ write: () => true, isTTY: true }, {})).toBe(true);
    expect(useColor({ write: () => true, isTTY: false }, {})).toBe(false);
    expect(useColor({ write: () => true }, {})).toBe(false);
    expect(useColor({ write: () => true, isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ write: () => true, isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(useColor({ write: () => true, isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(useColor({ write: () => true, isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(styles(false).red('x')).toBe('x');
    expect(styles(true).red('x')).toBe('\u001b[31mx\u001b[39m');
  });

  it('a piped run prints no escape codes, also for a schema error', async () => {
    const error = await cli([
      'build',
      join(ROOT, 'fixtures/errors/field-named-id.ts'),
      '--out',
      join(workDir('plain'), 'never'),
    ]);
    expect(error.code).toBe(1);
    expect(error.stderr).toContain(' - error: articles: "id" cannot be a field name');
    expect(error.stderr).not.toMatch(ANSI);
  }, 60_000);

  // script(1) gives the command a real terminal.
  it.runIf(existsSync('/usr/bin/script'))(
    'a run on a terminal is coloured, unless NO_COLOR is set',
    () => {
      const command = `${process.execPath} ${BIN} build ${join(ROOT, 'fixtures/errors/field-named-id.ts')} --out ${join(workDir('tty'), 'never')}`;
      const tty = (env: Record<string, string>) => {
        const base: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm' };
        delete base.NO_COLOR;
        delete base.FORCE_COLOR;
        return spawnSync('script', ['-qec', command, '/dev/null'], {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...base, ...env },
          timeout: 60_000,
        }).stdout;
      };
      const coloured = tty({});
      expect(coloured).toContain('\u001b[31merror\u001b[39m');
      const plain = tty({ NO_COLOR: '1' });
      expect(plain).toContain(' - error: articles');
      expect(plain).not.toMatch(ANSI);
    },
    60_000,
  );
});
