// ─── README host: copied verbatim into README.md ──────────────────────────────────────────
import { Attribute, Index, JsonApi, Show, defineResource } from 'jsonapi-gen';

const tags = [
  { id: '1', name: 'typescript' },
  { id: '2', name: 'json' },
];

const api = new JsonApi().resource({
  ...defineResource({
    type: 'tags',
    fields: [Attribute.make('name').type('string')],
    endpoints: [Show.make(), Index.make()],
  }),
  find: (id: string) => tags.find((tag) => tag.id === id),
  query: () => tags,
  results: (query: typeof tags) => query,
});

const response = await api.fetch(new Request('http://localhost/tags/1'));
// Serve it with `export default { fetch: api.fetch }` (Bun, Deno, Workers) or jsonapi-gen/node.
// ─── end of README host ───────────────────────────────────────────────────────────────────

import { expect, test } from 'vitest';
import { request } from '../support/request.js';
import { json } from '../support/validate.js';

test('the README host answers GET /tags/1 with a JSON:API document', async () => {
  expect(response.status).toBe(200);
  expect(await json(response)).toEqual({
    jsonapi: { version: '1.1' },
    links: { self: 'http://localhost/tags/1' },
    data: { type: 'tags', id: '1', attributes: { name: 'typescript' }, links: { self: 'http://localhost/tags/1' } },
  });
});

test('the README host lists, and answers 404 for what it does not have', async () => {
  const list = await json(await api.fetch(request('/tags')));
  expect(list.data.map((tag: { attributes: { name: string } }) => tag.attributes.name)).toEqual(['typescript', 'json']);
  const missing = await api.fetch(request('/tags/3'));
  expect(missing.status).toBe(404);
  expect((await json(missing)).errors[0].status).toBe('404');
});

test('README.md shows this host verbatim', async () => {
  const { readFileSync } = await import('node:fs');
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const host = source
    .slice(
      source.indexOf('\n', source.indexOf('README host: copied verbatim')) + 1,
      source.indexOf('// ─── end of README host'),
    )
    .trimEnd();
  expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain(host);
});
