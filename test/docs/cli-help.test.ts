/**
 * The CLI's `--help` and the guide's CLI section (docs/guide/generating.md, "The command line")
 * agree: every command `--help` lists has a usage line in the section's shell block and no usage
 * line names another; every option `--help` prints for any command is in the section, in
 * backticks, as printed (`-o, --out <dir>`: short form and argument name too); and every flag the
 * section names is an option of the command its usage line runs (elsewhere in the section, of
 * some command). README.md's command table ("The command line") names every command and only
 * options that exist.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, readReadme, section } from './readme.js';

const BIN = join(ROOT, 'bin', 'jsonapi-gen.js');

async function help(...command: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...command, '--help'], { cwd: ROOT });
  return stdout;
}

/** The lines of a help text's `title:` list (up to the blank line that ends it). */
function list(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(`${title}:`);
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && line.trim() === '');
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The options of a help text as printed (`-o, --out <dir>`); a wrapped description's next lines are indented further. */
const options = (text: string) =>
  list(text, 'Options').flatMap((line) => /^ {2}(-\S.*?)(?: {2,}|$)/.exec(line)?.[1] ?? []);
/** The `--long` and `-s` flags in a text. */
const flags = (text: string) => text.match(/(?<![\w-])--?[a-zA-Z][\w-]*/g) ?? [];

describe('jsonapi-gen --help, the guide and the README agree', () => {
  const readme = section(readReadme('docs/guide/generating.md'), 'The command line');
  const table = section(readReadme('README.md'), 'The command line');
  const shell = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const usage = shell.split('\n').filter((line) => /\bjsonapi-gen \w/.test(line));
  /** Printed options by command ('' for the command itself). */
  const printed = new Map<string, string[]>();

  beforeAll(async () => {
    const top = await help();
    printed.set('', options(top));
    // `help [command]` is commander's own spelling of `<command> --help`, not a command of ours.
    const commands = list(top, 'Commands')
      .flatMap((line) => /^ {2}(\w[\w-]*)/.exec(line)?.[1] ?? [])
      .filter((name) => name !== 'help');
    for (const command of commands) printed.set(command, options(await help(command)));
  }, 60_000);

  it('finds what it compares', () => {
    expect([...printed.keys()]).toEqual(['', 'build', 'init', 'diff']);
    expect(printed.get('build')).toContain('--api-version <version>');
    expect(usage.length).toBeGreaterThan(0);
  });

  it('every command has a usage line in the guide, and every usage line runs a command', () => {
    const commands = [...printed.keys()].filter(Boolean);
    const documented = usage.map((line) => /\bjsonapi-gen (\w[\w-]*)/.exec(line)![1]);
    expect([...new Set(documented)].sort()).toEqual(commands.sort());
  });

  it('every option --help prints is in the guide as printed', () => {
    const missing = [...printed].flatMap(([command, specs]) =>
      specs.filter((spec) => !readme.includes(`\`${spec}\``)).map((spec) => `${command || 'jsonapi-gen'}: ${spec}`),
    );
    expect(missing).toEqual([]);
  });

  it('every flag the guide names is an option: of its usage line command, or of some command', () => {
    const known = (command: string) => new Set((printed.get(command) ?? []).flatMap(flags));
    const all = new Set([...printed.values()].flat().flatMap(flags));
    const unknown = [
      ...usage.flatMap((line) => {
        const command = /\bjsonapi-gen (\w[\w-]*)/.exec(line)![1]!;
        return flags(line.replace(/#.*/, ''))
          .filter((flag) => !known(command).has(flag))
          .map((flag) => `${command}: ${flag}`);
      }),
      ...flags(readme.replace(shell, '')).filter((flag) => !all.has(flag)),
    ];
    expect(unknown).toEqual([]);
  });

  it("README's command table names every command, and only options that exist", () => {
    const commands = [...printed.keys()].filter(Boolean);
    const named = [...table.matchAll(/`jsonapi-gen (\w[\w-]*)/g)].map((match) => match[1]);
    expect([...new Set(named)].sort()).toEqual(commands.sort());
    const all = new Set([...printed.values()].flat().flatMap(flags));
    expect(flags(table).filter((flag) => !all.has(flag))).toEqual([]);
  });
});
