/**
 * `build --watch`: builds at once, rebuilds when the schema changes (the output rewritten),
 * reports a broken schema and keeps watching, rebuilds once it is fixed, and exits 0 on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, minimalSchema, workDir } from './support.js';

/** The child's stdout, line by line, awaited one at a time. */
function lines(child: ChildProcess) {
  const queue: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else queue.push(line);
    }
  });
  return (timeoutMs = 60_000): Promise<string> =>
    queue.length > 0
      ? Promise.resolve(queue.shift()!)
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no output in ${timeoutMs} ms`)), timeoutMs);
          waiters.push((line) => {
            clearTimeout(timer);
            resolve(line);
          });
        });
}

describe('build --watch', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('rewrites the output when the schema changes, survives a broken schema, and stops on SIGTERM', async () => {
    const dir = workDir('watch');
    const schema = minimalSchema(dir);
    const out = join(dir, 'generated');
    child = spawn(process.execPath, [BIN, 'build', schema, '--out', out, '--watch', '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const next = lines(child);

    const first = JSON.parse(await next());
    expect(first).toMatchObject({ ok: true, resources: 1 });
    expect(first.written).toContain('resources/tags.ts');
    expect(readFileSync(join(out, 'resources', 'tags.ts'), 'utf8')).not.toContain('color');

    writeFileSync(
      schema,
      readFileSync(schema, 'utf8').replace(
        '.writable().required()]',
        ".writable().required(), Attribute.make('color').type('string')]",
      ),
    );
    const second = JSON.parse(await next());
    expect(second).toMatchObject({ ok: true, removed: [] });
    expect(second.written).toEqual(expect.arrayContaining(['openapi.json', 'resources/tags.ts']));
    expect(readFileSync(join(out, 'resources', 'tags.ts'), 'utf8')).toContain('color');

    const good = readFileSync(schema, 'utf8');
    writeFileSync(schema, good.replace("Attribute.make('color')", "Attribute.make('id')"));
    const broken = JSON.parse(await next());
    expect(broken).toMatchObject({
      ok: false,
      errors: [{ file: schema, message: expect.stringContaining('"id" cannot be a field name') }],
    });
    expect(child.exitCode).toBe(null);

    writeFileSync(schema, good.replace("Attribute.make('color')", "Attribute.make('shade')"));
    const fixed = JSON.parse(await next());
    expect(fixed.ok).toBe(true);
    expect(readFileSync(join(out, 'resources', 'tags.ts'), 'utf8')).toContain('shade');

    const exit = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stderr).toBe('');
  }, 180_000);
});
