/**
 * README.md's relative links lead somewhere: every `[text](target)` that is not a web address
 * names a file of the repository, and its `#anchor` a heading of that file (of README.md itself
 * for a bare `#anchor`), with anchors made as GitHub makes them. Links inside code (fenced
 * blocks, `code spans`) are not links. The site's own pages are checked by VitePress's build
 * (a dead link fails `npm run docs:build`).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readReadme } from './readme.js';

interface Link {
  readonly line: number;
  readonly target: string;
}

/** The text with its fenced blocks blanked out, line numbers kept. */
function withoutBlocks(text: string): string {
  return text.replace(/^( *)(```|~~~)[^\n]*\n[\s\S]*?\n\1\2[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
}

/** The text with its fenced blocks and code spans blanked out, line numbers kept. */
function withoutCode(text: string): string {
  return withoutBlocks(text).replace(/(`+)[^`\n][\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** Every inline link and image of a Markdown text, with its line. */
function linksOf(text: string): Link[] {
  const links: Link[] = [];
  withoutCode(text)
    .split('\n')
    .forEach((line, i) => {
      for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        links.push({ line: i + 1, target: match[1]! });
      }
    });
  return links;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (not `-` or `_`), spaces as `-`. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings; a repeated heading gets `-1`, `-2`, ... as on GitHub. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutBlocks(text).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What is wrong with `link` of `readme` (a path relative to the repository), or undefined. */
function problemOf(readme: string, link: Link): string | undefined {
  const [path = '', anchor] = link.target.split('#', 2);
  const file = path === '' ? join(ROOT, readme) : join(ROOT, dirname(readme), decodeURIComponent(path));
  if (!existsSync(file)) return `${readme}:${link.line}: ${link.target}: no such file`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!statSync(file).isFile() || !file.endsWith('.md'))
    return `${readme}:${link.line}: ${link.target}: an anchor into a file that is not Markdown`;
  if (!anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())) {
    return `${readme}:${link.line}: ${link.target}: no heading makes the anchor #${anchor}`;
  }
  return undefined;
}

const EXTERNAL = /^([a-z][a-z0-9+.-]*:|\/\/)/i;

describe("README.md's relative links", () => {
  it('name files that exist, and headings that exist in them', () => {
    const links = linksOf(readReadme('README.md')).filter((link) => !EXTERNAL.test(link.target));
    expect(links.length).toBeGreaterThan(0);
    const problems = links.map((link) => problemOf('README.md', link)).filter((problem) => problem !== undefined);
    expect(problems).toEqual([]);
  });

  it('reads links, anchors and code as GitHub does', () => {
    const text = [
      '# Quick start',
      '## The DSL: `defineResource`',
      '## Quick start',
      'See [the DSL](#the-dsl-defineresource), [`x`](docs/diff.md) and ![shot](docs/api-reference.png "a title").',
      '`[not](a-link.md)` and',
      '```ts',
      'const a = b[0](c); // [not](either.md)',
      '```',
    ].join('\n');
    expect(linksOf(text)).toEqual([
      { line: 4, target: '#the-dsl-defineresource' },
      { line: 4, target: 'docs/diff.md' },
      { line: 4, target: 'docs/api-reference.png' },
    ]);
    expect([...anchorsOf(text)]).toEqual(['quick-start', 'the-dsl-defineresource', 'quick-start-1']);
    expect(problemOf('README.md', { line: 1, target: 'docs/nowhere.md' })).toMatch(/no such file/);
    expect(problemOf('README.md', { line: 1, target: 'docs/diff.md#no-such-heading' })).toMatch(/no heading/);
    expect(problemOf('README.md', { line: 1, target: 'docs/diff.md' })).toBeUndefined();
  });
});
