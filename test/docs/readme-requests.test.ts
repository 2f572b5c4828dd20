/**
 * Every HTTP request README.md and examples/blog/README.md print is sent, as printed, to the
 * demo (`npm run demo`'s API on SQLite, seeded as it seeds by default), and gets the answer
 * the README states beside it: a status (any 2xx where none is stated), and an error's code
 * and source, or response headers, where it prints them. test/docs/printed-requests.ts says
 * which text counts as a request; a request added to a README is run without being listed
 * here. Reads share one demo; each write gets a fresh one, so that no request depends on
 * another having run (or not) before it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { DEMO_ORIGIN, type PrintedRequest, printedRequests, shellWords } from './printed-requests.js';
import { DOC_PAGES, readReadme } from './readme.js';

const README = 'README.md';
const BLOG = 'examples/blog/README.md';
const openapi = JSON.parse(
  readFileSync(new URL('../../examples/blog/generated/openapi.json', import.meta.url), 'utf8'),
) as {
  paths: Record<string, Record<string, unknown>>;
};

/** Where requests are printed: the READMEs and the documentation site's pages. */
const PRINTED = [README, BLOG, ...DOC_PAGES];
const requests = PRINTED.flatMap((readme) => printedRequests(readme, readReadme(readme)));
const name = (r: PrintedRequest) =>
  `${r.readme}:${r.line} ${r.text.length > 110 ? `${r.text.slice(0, 107)}...` : r.text}`;
/** A POST or PATCH printed inline has no body: it names an endpoint rather than being a request. */
const namesAnEndpoint = (r: PrintedRequest) =>
  r.form === 'inline' && (r.method === 'POST' || r.method === 'PATCH' || r.method === 'PUT');
const isRead = (r: PrintedRequest) => r.method === 'GET' || r.method === 'HEAD';

interface ErrorsDocument {
  errors?: Array<{ status: string; code?: string; source?: { pointer?: string; parameter?: string; header?: string } }>;
}

async function send(demo: Demo, request: PrintedRequest): Promise<Response> {
  return fetch(demo.url + request.path, {
    method: request.method,
    headers: request.headers.map(([n, v]) => [n, v]),
    ...(request.body !== undefined && { body: request.body }),
    redirect: 'manual',
  });
}

async function check(response: Response, request: PrintedRequest): Promise<void> {
  const text = await response.text();
  const said = `${request.method} ${request.path} answered ${response.status}: ${text.slice(0, 400)}`;
  const { status, code, source, headers } = request.expected;
  if (status === undefined) expect(response.status >= 200 && response.status < 300, said).toBe(true);
  else expect(response.status, said).toBe(status);
  for (const [header, value] of Object.entries(headers ?? {}))
    expect(response.headers.get(header), `${header} of ${said}`).toBe(value);
  if (code === undefined && source === undefined) return;
  const errors = (JSON.parse(text) as ErrorsDocument).errors ?? [];
  expect(errors, said).toContainEqual(
    expect.objectContaining({
      ...(code !== undefined && { code }),
      ...(source !== undefined && { source: source.startsWith('/') ? { pointer: source } : { parameter: source } }),
    }),
  );
}

describe('the requests the READMEs print, sent to the demo as printed', () => {
  let reads: Demo;
  beforeAll(async () => {
    reads = await startDemo({ port: 0 });
  });
  afterAll(async () => {
    await reads?.close();
  });

  it('finds them: every curl line, every ```http block, the inline requests', () => {
    for (const readme of PRINTED) {
      const text = readReadme(readme);
      const found = requests.filter((r) => r.readme === readme);
      // Nothing that looks like a request is left out: each curl line and each http request block is one.
      expect(found.filter((r) => r.form === 'curl').length).toBe(
        text.split('\n').filter((line) => /^\s*(\$\s+)?curl\s/.test(line)).length,
      );
      expect(found.filter((r) => r.form === 'http').length).toBe([...text.matchAll(/^ *```http\n(?!HTTP\/)/gm)].length);
    }
    const main = requests.filter((r) => r.readme === README);
    expect(main.map((r) => r.text)).toEqual(
      expect.arrayContaining([
        "curl -X DELETE -H 'Authorization: Bearer 1' http://127.0.0.1:3000/articles/1",
        'GET /articles?include=author,comments.author&page[limit]=50',
      ]),
    );
    // The guide's pages print theirs in each of the three forms.
    const guide = (page: string) => requests.filter((r) => r.readme === `docs/guide/${page}`).map((r) => r.text);
    expect(guide('writes.md')).toContain('POST /operations');
    expect(guide('generating.md')).toContain('GET /articles/1?include=author&fields[articles]=title,author');
    expect(guide('http.md').some((text) => text.startsWith("curl -X POST -H 'Idempotency-Key"))).toBe(true);
    // Templates are not requests.
    expect(requests.some((r) => r.path.includes('{'))).toBe(false);
  });

  it('reads the answer a README states', () => {
    const parsed = printedRequests(
      'x.md',
      [
        '```sh',
        `curl -X PATCH -H 'Content-Type: application/vnd.api+json' -d '{"a":1}' ${DEMO_ORIGIN}/articles/1   # 403 read_only at /data/attributes/createdAt: why`,
        `curl -g '${DEMO_ORIGIN}/articles?filter[status]=draft'  # 400 at filter[status]`,
        `curl ${DEMO_ORIGIN}/articles/1 # 404: gone`,
        '```',
        '```http',
        'POST /operations',
        'Accept: */*',
        '',
        '{"x": 1}',
        '```',
        '```http',
        'HTTP/1.1 200 OK',
        'Content-Type: text/plain',
        '```',
        'See `GET /articles/{id}` and `GET /articles?page[limit]=2`.',
      ].join('\n'),
    );
    expect(parsed.map((r) => [r.form, r.method, r.path, r.expected])).toEqual([
      ['curl', 'PATCH', '/articles/1', { status: 403, code: 'read_only', source: '/data/attributes/createdAt' }],
      ['curl', 'GET', '/articles?filter[status]=draft', { status: 400, source: 'filter[status]' }],
      ['curl', 'GET', '/articles/1', { status: 404 }],
      ['http', 'POST', '/operations', { status: 200, headers: { 'content-type': 'text/plain' } }],
      ['inline', 'GET', '/articles?page[limit]=2', {}],
    ]);
    expect(parsed[0]!.body).toBe('{"a":1}');
    expect(parsed[3]!.body).toBe('{"x": 1}');
    expect(shellWords(`curl -H "a: \\"b\\"" 'c d' # e`)).toEqual({
      words: ['curl', '-H', 'a: "b"', 'c d'],
      comment: 'e',
    });
  });

  it.each(requests.filter((r) => r.form === 'curl').map((r) => [name(r), r] as const))(
    '%s: brackets in the URL come with -g',
    (_, request) => {
      // Without -g, curl reads [] and {} in a URL as its own globbing and refuses the command.
      if (/[[\]{}]/.test(request.path)) expect(request.globOff).toBe(true);
    },
  );

  it.each(requests.filter((r) => !namesAnEndpoint(r)).map((r) => [name(r), r] as const))('%s', async (_, request) => {
    if (isRead(request)) {
      await check(await send(reads, request), request);
      return;
    }
    const demo = await startDemo({ port: 0 });
    try {
      await check(await send(demo, request), request);
    } finally {
      await demo.close();
    }
  });

  it.each(requests.filter(namesAnEndpoint).map((r) => [name(r), r] as const))(
    '%s: an endpoint the demo serves',
    (_, request) => {
      expect(openapi.paths[request.path.split('?')[0]!], request.path).toHaveProperty(request.method.toLowerCase());
    },
  );
});
