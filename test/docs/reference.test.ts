/**
 * The API reference page end to end: the demo's `GET /docs` opened in real headless Chromium
 * (Debian's, driven by playwright-core). Every path of the OpenAPI document is listed, the page
 * loads nothing but the demo's own URLs (the renderer's assets come from node_modules, no CDN),
 * and a screenshot is taken: into docs/api-reference.png with UPDATE_SCREENSHOT=1 (the README
 * shows it), into a temp dir otherwise so a test run leaves the tree clean.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { type Browser, ensureChromium, launch } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TYPES = ['people', 'articles', 'comments', 'tags'];

describe('GET /docs, the API reference page', () => {
  let demo: Demo;
  let browser: Browser;
  let shots: string;

  beforeAll(async () => {
    ensureChromium();
    shots = mkdtempSync(join(tmpdir(), 'jsonapi-gen-docs-'));
    demo = await startDemo({ port: 0, seed: 5, databaseUrl: null });
    browser = await launch();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  it('serves the page and its assets from node_modules; nothing else under /docs/assets', async () => {
    const page = await fetch(`${demo.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${demo.url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await bundle.text()).toBe(
      readFileSync(join(ROOT, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'), 'utf8'),
    );
    expect((await fetch(`${demo.url}/docs/assets/swagger-ui.css`)).status).toBe(200);
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/assets/index.html']) {
      expect((await fetch(`${demo.url}${path}`)).status, path).toBe(404);
    }
    expect((await fetch(`${demo.url}/docs`, { method: 'POST' })).status).toBe(405);
  });

  it('lists every endpoint of every resource in headless Chromium, loading only local URLs, and takes the screenshot', async () => {
    const document = (await (await fetch(`${demo.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const page = await browser.context.newPage();
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    // Anything but the demo is refused, so a CDN dependency would show up as a broken page.
    await page.route('**/*', (route) =>
      route.request().url().startsWith(demo.url) ? route.continue() : route.abort(),
    );

    await page.goto(`${demo.url}/docs`, { waitUntil: 'load' });
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });

    // Swagger UI renders one block per operation: its method and path.
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent?.trim().toLowerCase() ?? '';
        const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    const expected = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'post', 'patch', 'delete', 'put'].includes(key))
        .map((method) => `${method} ${path}`),
    );
    expect(shown.sort()).toEqual(expected.sort());
    for (const type of TYPES) {
      for (const operation of [
        `get /${type}`,
        `post /${type}`,
        `get /${type}/{id}`,
        `patch /${type}/{id}`,
        `delete /${type}/{id}`,
      ]) {
        expect(shown, operation).toContain(operation);
      }
    }
    // The resources are the page's sections.
    const sections = await page.$$eval('.opblock-tag', (tags) => tags.map((tag) => tag.getAttribute('data-tag')));
    expect(sections).toEqual(expect.arrayContaining(TYPES));

    expect(errors).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(demo.url))).toEqual([]);
    expect(requested).toContain(`${demo.url}/openapi.json`);

    const file =
      process.env.UPDATE_SCREENSHOT === '1'
        ? join(ROOT, 'docs', 'api-reference.png')
        : join(shots, 'api-reference.png');
    await page.screenshot({ path: file });
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(20_000);
    await page.close();
  }, 90_000);
});
