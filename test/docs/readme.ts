/**
 * Reading the READMEs as the tests that keep them true need them: their TypeScript code blocks
 * (each with the line it starts on, so a failure names the README line) and their sections.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The folders of docs/ that the site's build writes (and empties while it runs): never walked. */
const BUILT = ['reference', '.vitepress'];

/** The Markdown files under docs/`dir`, as paths from the repository's root. */
function pagesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, 'docs', dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return BUILT.includes(path) ? [] : pagesUnder(path);
    return entry.name.endsWith('.md') ? [`docs/${path}`] : [];
  });
}

/**
 * The documentation site's pages written by hand: every Markdown file under docs/, except the
 * reference TypeDoc generates from the doc comments (docs/reference/, whose examples
 * jsdoc-examples.test.ts checks at their source) and VitePress's own folder. Those two are not
 * walked at all: a test may be building the site (emptying and refilling them) meanwhile.
 */
export const DOC_PAGES: readonly string[] = pagesUnder('').sort();

/** The READMEs a user reads: the repository's, each package's (what the registry shows), and the site's pages. */
export const READMES: readonly string[] = [
  'README.md',
  'runtime/README.md',
  'integrations/kysely/README.md',
  'generator/README.md',
  ...DOC_PAGES,
];

export interface CodeBlock {
  /** The README, relative to the repository. */
  readonly readme: string;
  /** 1-based line of the block's first line of code in the README. */
  readonly line: number;
  /** The code, without the fence and without the indentation of a block inside a list item. */
  readonly code: string;
}

export function readReadme(readme: string): string {
  return readFileSync(join(ROOT, readme), 'utf8');
}

const OPENING = /^( *)```(ts|typescript)[ \t]*$/;

/** Every ```ts and ```typescript block of `readme`, in order. An unclosed one throws. */
export function typeScriptBlocks(readme: string, text = readReadme(readme)): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opening = OPENING.exec(lines[i]!);
    if (!opening) continue;
    const indent = opening[1]!;
    const end = lines.findIndex((line, j) => j > i && line.trimEnd() === `${indent}\`\`\``);
    if (end < 0) throw new Error(`${readme}:${i + 1}: the code block never closes`);
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
    blocks.push({ readme, line: i + 2, code: `${code.join('\n')}\n` });
    i = end;
  }
  return blocks;
}

/** The text of the `## ` section whose heading starts with `heading`, up to the next `## `. */
export function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`no section "## ${heading}..."`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start + 1, end < 0 ? undefined : end);
}
