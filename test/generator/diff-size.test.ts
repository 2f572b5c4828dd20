/**
 * A one-attribute change to a schema is a small, readable diff in every generated file: the
 * blog schema (examples/blog/schema.ts) is built with `jsonapi-gen build`, then built again with
 * one attribute changed in one way, and git compares the two output folders.
 *
 * "Changed lines" here are git's added plus removed lines (`git diff --numstat`): a modified line
 * counts twice. Each file may change at most 10, and no changed line may be longer than 200
 * characters (a document printed as one long line would otherwise be "one changed line"), but
 * in `schema.json`, which holds each member's whole description on one line: 300.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { oneLine } from '../../generator/emit/helpers.js';
import { printJson } from '../../generator/print.js';
import { ROOT, cli, workDir } from '../cli/support.js';

const MAX_CHANGED_LINES = 10;
const MAX_LINE_LENGTH = 200;
const MAX_DESCRIPTION_LINE_LENGTH = 300;

const BLOG = readFileSync(join(ROOT, 'examples/blog/schema.ts'), 'utf8');

/** Writes `schema` into a fresh directory and builds it; the output directory. */
async function build(name: string, schema: string): Promise<string> {
  const dir = workDir(`diff-size-${name}`);
  writeFileSync(join(dir, 'schema.ts'), schema);
  const out = join(dir, 'generated');
  const run = await cli(['build', join(dir, 'schema.ts'), '--out', out, '--quiet']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return out;
}

/** The blog schema with `from` replaced by `to` (which must occur exactly once). */
function changed(from: string, to: string): string {
  expect(BLOG.split(from)).toHaveLength(2);
  return BLOG.replace(from, to);
}

interface FileDiff {
  readonly path: string;
  readonly added: number;
  readonly removed: number;
  /** The added and removed lines themselves. */
  readonly lines: string[];
}

/** What differs between two output folders, per file, by `git diff --no-index`. */
function diff(before: string, after: string): FileDiff[] {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', ['diff', '--no-index', '--no-color', '--no-renames', ...args, before, after], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
    } catch (error) {
      // git diff --no-index exits 1 when the folders differ.
      const { status, stdout } = error as { status?: number; stdout?: string };
      if (status === 1 && stdout !== undefined) return stdout;
      throw error;
    }
  };
  const files = git('--numstat')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [added, removed, path] = line.split('\t') as [string, string, string];
      return {
        path: path.slice(path.lastIndexOf('/generated/') + '/generated/'.length),
        added: Number(added),
        removed: Number(removed),
        lines: [] as string[],
      };
    });
  let current: FileDiff | undefined;
  for (const line of git('-U0').split('\n')) {
    if (line.startsWith('+++ ')) current = files.find((f) => line.endsWith(`/generated/${f.path}`));
    else if (current && !line.startsWith('--- ') && (line.startsWith('+') || line.startsWith('-')))
      current.lines.push(line.slice(1));
  }
  return files;
}

const CHANGES: ReadonlyArray<{ name: string; schema: () => string; touches: string[] }> = [
  {
    name: 'a constraint: maxLength on articles.title',
    schema: () =>
      changed(
        "Attribute.make('title').type('string').writable().required(),",
        "Attribute.make('title').type('string').writable().required().maxLength(200),",
      ),
    touches: ['openapi.json', 'openapi.ts', 'schema.json'],
  },
  {
    name: 'an attribute added: articles.summary',
    schema: () =>
      changed(
        "    Attribute.make('updatedAt').type('date-time'),\n",
        "    Attribute.make('updatedAt').type('date-time'),\n    Attribute.make('summary').type('string').nullable().writable(),\n",
      ),
    touches: ['openapi.json', 'openapi.ts', 'schema.json', 'resources/articles.ts', 'client.ts'],
  },
  {
    name: "an attribute's kind: articles.body from string to integer",
    schema: () =>
      changed(
        "Attribute.make('body').type('string').nullable().writable(),\n    Attribute.make('status')",
        "Attribute.make('body').type('integer').nullable().writable(),\n    Attribute.make('status')",
      ),
    touches: ['openapi.json', 'openapi.ts', 'schema.json', 'resources/articles.ts'],
  },
  {
    name: "a filtered enum's values: articles.status gains archived (six filter parameters compare it)",
    schema: () =>
      changed(
        "Attribute.make('status').type('enum', ['draft', 'published'])",
        "Attribute.make('status').type('enum', ['draft', 'published', 'archived'])",
      ),
    touches: ['openapi.json', 'openapi.ts', 'schema.json', 'resources/articles.ts', 'client.ts'],
  },
  {
    name: "a filtered attribute's kind: articles.createdAt from date-time to date (seven filter parameters compare it)",
    schema: () =>
      changed(
        "    Attribute.make('status').type('enum', ['draft', 'published']).writable().default('draft'),\n    Attribute.make('createdAt').type('date-time'),",
        "    Attribute.make('status').type('enum', ['draft', 'published']).writable().default('draft'),\n    Attribute.make('createdAt').type('date'),",
      ),
    touches: ['openapi.json', 'openapi.ts', 'schema.json', 'resources/articles.ts'],
  },
  {
    name: 'an attribute removed: people.email',
    schema: () => changed("    Attribute.make('email').type('string').nullable().writable(),\n", ''),
    touches: ['openapi.json', 'openapi.ts', 'schema.json', 'resources/people.ts', 'client.ts'],
  },
];

describe('a one-attribute schema change', () => {
  let base: string;
  beforeAll(async () => {
    base = await build('base', BLOG);
  }, 120_000);

  it.each(CHANGES)(
    '$name changes at most 10 short lines in each generated file',
    async ({ name, schema, touches }) => {
      const after = await build(name.replace(/[^a-z]+/gi, '-'), schema());
      const files = diff(base, after);
      // The change shows where it should (the comparison is not vacuous)...
      expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(touches));
      for (const file of files) {
        // ...and stays small and readable in every file it reaches.
        // The manifest holds a hash per file: two lines for each file the change reaches, and the input's.
        const limit = file.path === 'manifest.json' ? 2 * files.length : MAX_CHANGED_LINES;
        expect(file.added + file.removed, `${file.path}: ${file.lines.join('\n')}`).toBeLessThanOrEqual(limit);
        expect(file.lines.length, file.path).toBe(file.added + file.removed);
        for (const line of file.lines)
          expect(line.length, `${file.path}: ${line.slice(0, 300)}`).toBeLessThanOrEqual(
            file.path === 'schema.json' ? MAX_DESCRIPTION_LINE_LENGTH : MAX_LINE_LENGTH,
          );
      }
    },
    120_000,
  );
});

describe('printJson', () => {
  it('lays out the same value JSON.parse reads back, also when a string holds the placeholder character', () => {
    const schema = oneLine({ type: ['string', 'null'], maxLength: 20 });
    const document = {
      a: { $ref: '#/x' },
      b: [schema, { description: 'say "\\" \uE0000' }],
      c: { d: schema, e: [], f: {} },
    };
    const text = printJson('openapi.json', document).content;
    expect(JSON.parse(text)).toEqual(document);
    expect(text).toContain('"a": { "$ref": "#/x" }');
    expect(text).toContain('{ "description": "say \\"\\\\\\" \uE0000" }');
  });
});
