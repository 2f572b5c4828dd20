import { describe, expect, it } from 'vitest';
import {
  Attribute,
  CustomFilter,
  CustomSort,
  Index,
  JsonApi,
  Show,
  ToOne,
  Update,
  defineResource,
  type Context,
} from 'jsonapi-gen';
import { json } from '../support/validate.js';

type Person = { id: number; name: string; email: string };
type Article = { id: number; title: string; authorId: number; reviewerId: number };

/** email: only its owner sees it (and only signed-in users may use it as such); reviewer: signed-in users only. */
function host() {
  const people: Person[] = [
    { id: 1, name: 'Ada', email: 'ada@example.com' },
    { id: 2, name: 'Grace', email: 'grace@example.com' },
  ];
  const articles: Article[] = [{ id: 1, title: 'First', authorId: 2, reviewerId: 1 }];
  const user = (ctx: Context) => ctx.getAttribute('user');
  const api = new JsonApi({ onError: () => {} });
  api.resource({
    ...defineResource({
      type: 'people',
      fields: [
        Attribute.make('name').writable(),
        Attribute.make('email')
          .writable()
          .visible((person: Person | undefined, ctx) =>
            person ? String(person.id) === user(ctx) : user(ctx) !== undefined,
          ),
      ],
      endpoints: [Show.make(), Index.make(), Update.make()],
      filters: [CustomFilter.make('email', (rows: Person[], value) => rows.filter((p) => p.email === value))],
      sorts: [CustomSort.make('email', (rows: Person[]) => rows)],
    }),
    find: (id) => people.find((p) => String(p.id) === id),
    query: () => people,
    results: (rows: Person[]) => rows,
    update: (model: Person, values) => Object.assign(model, values.attributes),
  });
  const byId = (id: number) => people.find((p) => p.id === id) ?? null;
  api.resource({
    ...defineResource({
      type: 'articles',
      fields: [
        Attribute.make('title'),
        ToOne.make('author').type('people').includable(),
        ToOne.make('reviewer')
          .type('people')
          .includable()
          .visible((_article, ctx) => user(ctx) !== undefined),
      ],
      endpoints: [Show.make(), Index.make()],
    }),
    find: (id) => articles.find((a) => String(a.id) === id),
    query: () => articles,
    results: (rows: Article[]) => rows,
    loadRelated: (relationship, models: Article[]) =>
      models.map((a) => byId(relationship.name === 'author' ? a.authorId : a.reviewerId)),
  });
  const get = async (path: string, as?: string) =>
    api.fetch(new Request(`http://localhost${path}`), { attributes: as ? { user: as } : {} });
  const patch = (path: string, body: unknown, as: string) =>
    api.fetch(
      new Request(`http://localhost${path}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify(body),
      }),
      { attributes: { user: as } },
    );
  return { get, patch, people };
}

describe('field visibility', () => {
  it('leaves a hidden attribute out of each resource object it is hidden for', async () => {
    const { get } = host();
    const own = await json(await get('/people/1', '1'));
    expect(own.data.attributes).toEqual({ name: 'Ada', email: 'ada@example.com' });
    const other = await json(await get('/people/2', '1'));
    expect(other.data.attributes).toEqual({ name: 'Grace' });
    const list = await json(await get('/people', '2'));
    expect(list.data.map((p: { attributes: object }) => Object.keys(p.attributes))).toEqual([
      ['name'],
      ['name', 'email'],
    ]);
  });

  it('applies per model to included resources', async () => {
    const { get } = host();
    const doc = await json(await get('/articles/1?include=author,reviewer', '1'));
    const included = Object.fromEntries(
      doc.included.map((p: { id: string; attributes: object }) => [p.id, p.attributes]),
    );
    expect(included).toEqual({ '1': { name: 'Ada', email: 'ada@example.com' }, '2': { name: 'Grace' } });
  });

  it('hides a relationship from output, include, and its endpoints', async () => {
    const { get } = host();
    const doc = await json(await get('/articles/1'));
    expect(Object.keys(doc.data.relationships)).toEqual(['author']);
    for (const path of ['/articles/1?include=reviewer', '/articles?include=reviewer']) {
      const response = await get(path);
      expect(response.status).toBe(400);
      expect((await json(response)).errors[0].source.parameter).toBe('include');
    }
    expect((await get('/articles/1/reviewer')).status).toBe(404);
    expect((await get('/articles/1/relationships/reviewer')).status).toBe(404);
    expect((await get('/articles/1/reviewer', '1')).status).toBe(200);
  });

  it.each([
    ['a filter', '/people?filter[email]=ada@example.com', 'filter[email]'],
    ['a sort', '/people?sort=email', 'sort'],
    ['a sparse fieldset', '/people?fields[people]=email', 'fields[people]'],
  ])('makes the field unusable in %s when hidden as such', async (_name, path, parameter) => {
    const { get } = host();
    const anonymous = await get(path);
    expect(anonymous.status).toBe(400);
    expect((await json(anonymous)).errors[0].source.parameter).toBe(parameter);
    expect((await get(path, '1')).status).toBe(200);
  });

  it('refuses a hidden field in input as if it did not exist, and accepts it where visible', async () => {
    const { patch, people } = host();
    const refused = await patch(
      '/people/2',
      { data: { type: 'people', id: '2', attributes: { email: 'x@example.com' } } },
      '1',
    );
    expect(refused.status).toBe(422);
    expect((await json(refused)).errors[0]).toMatchObject({
      code: 'unknown_field',
      source: { pointer: '/data/attributes/email' },
    });
    expect(people[1]!.email).toBe('grace@example.com');
    const accepted = await patch(
      '/people/1',
      { data: { type: 'people', id: '1', attributes: { email: 'new@example.com' } } },
      '1',
    );
    expect(accepted.status).toBe(200);
    expect(people[0]!.email).toBe('new@example.com');
  });
});
