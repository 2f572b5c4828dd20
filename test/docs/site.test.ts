/**
 * The documentation site as a reader gets it: `npm run docs:build` (TypeDoc's reference, then
 * VitePress) run once, its output served by a small static server on 127.0.0.1 and opened in
 * real headless Chromium (Debian's, driven by playwright-core). The start page, the DSL page and
 * a reference page render their headings and code blocks; every internal link on them answers;
 * the pages load nothing from anywhere else; every page of the sidebar was built. A screenshot
 * of the start page goes into a temp dir, or into docs/public/site.png with UPDATE_SCREENSHOT=1.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import type { Page } from 'playwright-core';
import type { DefaultTheme } from 'vitepress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, ensureChromium, launch } from './chromium.js';
import { DOC_PAGES, ROOT } from './readme.js';

const DIST = join(ROOT, 'dist', 'site');
const REFERENCE_PAGE = '/reference/classes/jsonapi-gen.JsonApi/';

/** Runs `npm run docs:build`; rejects with the end of its output when it fails. */
function buildSite(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', 'docs:build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`npm run docs:build failed (exit ${code}):\n${output.split('\n').slice(-30).join('\n')}`));
    });
  });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The built file a URL path names, as a static host finds it: `/x/` is `/x/index.html`; undefined when none. */
function fileOf(pathname: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(DIST, path));
  if (!file.startsWith(DIST + sep)) return undefined;
  return existsSync(file) && statSync(file).isFile() ? file : undefined;
}

/** Serves DIST on 127.0.0.1 (a port the system picks): what a static host does, nothing more. */
async function serveSite(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const file = fileOf(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    if (!file || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Every link of the sidebar (groups' links included), as written in the config. */
function sidebarLinks(items: readonly DefaultTheme.SidebarItem[]): string[] {
  return items.flatMap((item) => [...(item.link ? [item.link] : []), ...sidebarLinks(item.items ?? [])]);
}

/** The text a heading shows, without VitePress's permalink anchor (a zero-width space). */
const shown = (text: string | null) => (text ?? '').replace(/\u200b/g, '').trim();

/** The first `# ` heading of a Markdown page as it reads once rendered (code spans and emphasis marks dropped). */
function firstHeading(page: string): string {
  const line = readFileSync(join(ROOT, page), 'utf8')
    .split('\n')
    .find((text) => text.startsWith('# '));
  if (!line) throw new Error(`${page} has no "# " heading`);
  return line
    .slice(2)
    .replace(/`|\*\*/g, '')
    .trim();
}

describe('the documentation site', () => {
  let browser: Browser;
  let server: Server;
  let origin: string;
  let shots: string;

  beforeAll(async () => {
    ensureChromium();
    shots = mkdtempSync(join(tmpdir(), 'jsonapi-gen-site-'));
    await buildSite();
    ({ server, origin } = await serveSite());
    browser = await launch();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  /** Opens `path` with every request outside the site refused and recorded. */
  async function open(path: string): Promise<{ page: Page; outside: string[]; errors: string[] }> {
    const page = await browser.context.newPage();
    const outside: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const response = await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    expect(response?.status(), path).toBe(200);
    return { page, outside, errors };
  }

  /** The page's internal links (`href="/..."`), each answered 200 by the static server. */
  async function expectInternalLinksResolve(page: Page, path: string): Promise<number> {
    const hrefs = await page.$$eval('a[href^="/"]', (links) => links.map((link) => link.getAttribute('href') ?? ''));
    const targets = [...new Set(hrefs.map((href) => new URL(href, origin).pathname))];
    const broken: string[] = [];
    for (const target of targets) {
      const status = (await fetch(`${origin}${target}`)).status;
      if (status !== 200) broken.push(`${target} (${status})`);
    }
    expect(broken, `links of ${path} that do not resolve`).toEqual([]);
    return targets.length;
  }

  it('renders the start page with its hero heading, loads nothing from elsewhere, and takes the screenshot', async () => {
    const { page, outside, errors } = await open('/');
    const hero = page.locator('.VPHero h1');
    await hero.waitFor();
    expect(shown(await hero.textContent())).toContain('jsonapi-gen');
    expect(await expectInternalLinksResolve(page, '/')).toBeGreaterThan(3);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);

    const file =
      process.env.UPDATE_SCREENSHOT === '1' ? join(ROOT, 'docs', 'public', 'site.png') : join(shots, 'site.png');
    mkdirSync(join(file, '..'), { recursive: true });
    await page.screenshot({ path: file });
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(20_000);
    await page.close();
  }, 120_000);

  it('renders the DSL page with its title and highlighted code', async () => {
    const { page, outside, errors } = await open('/guide/dsl.html');
    expect(shown(await page.locator('.vp-doc h1').first().textContent())).toBe(firstHeading('docs/guide/dsl.md'));
    const code = await page.$$eval('.vp-doc div[class*="language-"] pre code', (blocks) =>
      blocks.map((block) => ({ text: block.textContent ?? '', colored: block.querySelectorAll('span[style]').length })),
    );
    expect(code.length).toBeGreaterThan(0);
    expect(code[0]!.text.trim()).not.toBe('');
    // Shiki colours tokens with inline styles: a block without them was not highlighted.
    expect(code.some((block) => block.colored > 0)).toBe(true);
    await expectInternalLinksResolve(page, '/guide/dsl.html');
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("renders a reference page: the export's name as its title, its example as code", async () => {
    const { page, outside, errors } = await open(REFERENCE_PAGE);
    expect(shown(await page.locator('.vp-doc h1').first().textContent())).toBe('Class: JsonApi');
    const code = await page.$$eval('.vp-doc div.language-ts pre code', (blocks) =>
      blocks.map((block) => block.textContent ?? ''),
    );
    expect(code.some((text) => text.includes('new JsonApi('))).toBe(true);
    // The sidebar lists the packages, this page's among them; every link on the page resolves.
    expect(await page.locator('.VPSidebar a[href="/reference/modules/jsonapi-gen/"]').count()).toBe(1);
    expect(await expectInternalLinksResolve(page, REFERENCE_PAGE)).toBeGreaterThanOrEqual(6);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('has an HTML file for every page of the sidebar and the nav, and every page of docs/ is in the sidebar', async () => {
    const { default: config } = await import('../../docs/.vitepress/config.js');
    const theme = config.themeConfig ?? {};
    const sidebar = theme.sidebar ?? {};
    const sidebars = Array.isArray(sidebar) ? [sidebar] : Object.values(sidebar);
    const links = [
      ...sidebars.flatMap((items) => sidebarLinks(Array.isArray(items) ? items : items.items)),
      ...(theme.nav ?? []).flatMap((item) => ('link' in item ? [item.link] : [])),
      '/',
      '/reference/',
    ];
    const htmlOf = (link: string) => (link.endsWith('/') || link.endsWith('.html') ? link : `${link}.html`);
    const missing = [...new Set(links)].filter((link) => !fileOf(htmlOf(link.replace(/\.md$/, ''))));
    expect(missing).toEqual([]);
    // A reference page per export, as TypeDoc listed them, beyond the packages' own pages.
    const exports = sidebarLinks(
      JSON.parse(
        readFileSync(join(ROOT, 'docs', 'reference', 'typedoc-sidebar.json'), 'utf8'),
      ) as DefaultTheme.SidebarItem[],
    );
    expect(exports.filter((link) => link.startsWith('/reference/classes/')).length).toBeGreaterThan(10);
    expect(exports.filter((link) => !fileOf(htmlOf(link)))).toEqual([]);

    const linked = new Set(links.map((link) => link.replace(/\.(md|html)$/, '')));
    const orphans = DOC_PAGES.filter((page) => page !== 'docs/index.md')
      .map((page) => `/${page.slice('docs/'.length).replace(/\.md$/, '')}`)
      .filter((page) => !linked.has(page));
    expect(orphans, 'pages of docs/ the sidebar does not list').toEqual([]);
  });
});
