import { describe, expect, it } from 'vitest';
import { Attribute, Create, JsonApi, Show, ToMany, ToOne, defineResource, type ResourceDefinition } from 'jsonapi-gen';
import { json } from '../support/validate.js';

/** Notes with an owner and labels; labels (1-150) answer `findMany`, people (1-2) only `find`. */
function host(findMany: (ids: readonly string[]) => unknown[] = (ids) => ids.map((id) => (Number(id) <= 150 ? { id: Number(id) } : null))) {
  const calls: Array<[string, string | readonly string[]]> = [];
  const errors: unknown[] = [];
  const notes: Array<{ id: number }> = [];
  const api = new JsonApi({ onError: (e) => errors.push(e) });
  const byId = (type: string, max: number): Partial<ResourceDefinition> => ({
    find: (id) => {
      calls.push([`${type}.find`, id]);
      return Number(id) <= max ? { id: Number(id) } : null;
    },
  });
  api.resource({
    ...defineResource({ type: 'labels', fields: [Attribute.make('name')], endpoints: [Show.make()] }),
    ...byId('labels', 150),
    findMany: (ids: readonly string[]) => {
      calls.push(['labels.findMany', ids]);
      return findMany(ids);
    },
  });
  api.resource({ ...defineResource({ type: 'people', fields: [Attribute.make('name')], endpoints: [Show.make()] }), ...byId('people', 2) });
  api.resource({
    ...defineResource({
      type: 'notes',
      fields: [ToOne.make('owner').type('people').writable(), ToMany.make('labels').type('labels').writable()],
      endpoints: [Show.make(), Create.make()],
    }),
    find: (id) => notes.find((n) => String(n.id) === id) ?? null,
    create: () => {
      const note = { id: notes.length + 1 };
      notes.push(note);
      return note;
    },
    loadRelated: (_relationship, models) => models.map(() => []),
  });
  const post = (labels: string[], owner = '1') =>
    api.fetch(
      new Request('http://localhost/notes', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({
          data: { type: 'notes', relationships: { owner: { data: { type: 'people', id: owner } }, labels: { data: labels.map((id) => ({ type: 'labels', id })) } } },
        }),
      }),
    );
  return { post, calls, errors, notes };
}

describe('findMany checks written linkage in batches', () => {
  it('one call per related type with findMany (distinct ids, at most 100 each); find for the others', async () => {
    const { post, calls, notes } = host();
    const labels = [...Array.from({ length: 120 }, (_, i) => String(i + 1)), '7', '3'];
    const response = await post(labels);
    expect(response.status).toBe(201);
    expect(notes).toHaveLength(1);
    expect(calls.map(([name]) => name).sort()).toEqual(['labels.findMany', 'labels.findMany', 'people.find']);
    const batches = calls.filter(([name]) => name === 'labels.findMany').map(([, ids]) => ids as string[]);
    expect(batches.map((b) => b.length)).toEqual([100, 20]);
    expect(batches.flat()).toEqual(Array.from({ length: 120 }, (_, i) => String(i + 1)));
  });

  it('a 404 at every place that names a missing resource, and nothing created', async () => {
    const { post, notes } = host();
    const response = await post(['1', '151', '2', '151', '999'], '3');
    expect(response.status).toBe(404);
    const document = await json(response);
    expect(document.errors.map((e: any) => e.source.pointer)).toEqual([
      '/data/relationships/owner/data',
      '/data/relationships/labels/data/1',
      '/data/relationships/labels/data/3',
      '/data/relationships/labels/data/4',
    ]);
    expect(notes).toHaveLength(0);
  });

  it('a findMany that answers for the wrong number of ids is a 500 naming it, and nothing is created', async () => {
    const { post, errors, notes } = host((ids) => ids.slice(1).map(() => ({})));
    const response = await post(['1', '2']);
    expect(response.status).toBe(500);
    expect(String(errors[0])).toMatch(/labels\.findMany returned 1 models for 2 ids/);
    expect(notes).toHaveLength(0);
  });
});
