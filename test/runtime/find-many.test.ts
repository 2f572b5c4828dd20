import { describe, expect, it } from 'vitest';
import {
  Attribute,
  Create,
  JsonApi,
  Show,
  ToMany,
  ToOne,
  defineResource,
  type ExistenceLookup,
  type ResourceDefinition,
  type SharedExistence,
} from 'jsonapi-gen';
import { json } from '../support/validate.js';

/** Serves `notes` (a writable owner and labels) on `api`; `post` creates one with the given linkage (no labels member when undefined). */
function serveNotes(api: JsonApi) {
  const notes: Array<{ id: number }> = [];
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
  const post = (labels: string[] | undefined, owner = '1') =>
    api.fetch(
      new Request('http://localhost/notes', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({
          data: {
            type: 'notes',
            relationships: {
              owner: { data: { type: 'people', id: owner } },
              ...(labels && { labels: { data: labels.map((id) => ({ type: 'labels', id })) } }),
            },
          },
        }),
      }),
    );
  return { notes, post };
}

/** Notes with an owner and labels; labels (1-150) answer `findMany`, people (1-2) only `find`. */
function host(
  findMany: (ids: readonly string[]) => unknown[] = (ids) =>
    ids.map((id) => (Number(id) <= 150 ? { id: Number(id) } : null)),
) {
  const calls: Array<[string, string | readonly string[]]> = [];
  const errors: unknown[] = [];
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
  api.resource({
    ...defineResource({ type: 'people', fields: [Attribute.make('name')], endpoints: [Show.make()] }),
    ...byId('people', 2),
  });
  const { notes, post } = serveNotes(api);
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

/** Notes linking an owner (people) and labels, both answered by one shared existence check. */
function sharedHost(
  exist: (lookups: readonly ExistenceLookup[]) => boolean[][] = (lookups) =>
    lookups.map(({ member, ids }) => ids.map((id) => Number(id) <= (member === 'p' ? 2 : 150))),
) {
  const calls: Array<[string, unknown]> = [];
  const errors: unknown[] = [];
  const check: SharedExistence = {
    exist: (lookups) => {
      calls.push(['exist', lookups.map(({ member, ids }) => [member, [...ids]])]);
      return exist(lookups);
    },
  };
  const api = new JsonApi({ onError: (e) => errors.push(e) });
  const layer = (type: string, member: string, max: number): Partial<ResourceDefinition> => ({
    find: (id) => (Number(id) <= max ? { id: Number(id) } : null),
    findMany: (ids) => {
      calls.push([`${type}.findMany`, ids]);
      return ids.map((id) => (Number(id) <= max ? { id: Number(id) } : null));
    },
    existence: { check, member },
  });
  api.resource({
    ...defineResource({ type: 'labels', fields: [Attribute.make('name')], endpoints: [Show.make()] }),
    ...layer('labels', 'l', 150),
  });
  api.resource({
    ...defineResource({ type: 'people', fields: [Attribute.make('name')], endpoints: [Show.make()] }),
    ...layer('people', 'p', 2),
  });
  const { notes, post } = serveNotes(api);
  return { post, calls, errors, notes };
}

describe('a shared existence check answers for several related types at once', () => {
  it('one call for the owner and the labels (distinct ids, at most 100 per type and call)', async () => {
    const { post, calls, notes } = sharedHost();
    const labels = [...Array.from({ length: 120 }, (_, i) => String(i + 1)), '7', '3'];
    const response = await post(labels);
    expect(response.status).toBe(201);
    expect(notes).toHaveLength(1);
    expect(calls).toEqual([
      [
        'exist',
        [
          ['p', ['1']],
          ['l', Array.from({ length: 100 }, (_, i) => String(i + 1))],
        ],
      ],
      ['exist', [['l', Array.from({ length: 20 }, (_, i) => String(i + 101))]]],
    ]);
  });

  it('a 404 at every place that names a missing resource, as with findMany', async () => {
    const { post, notes } = sharedHost();
    const response = await post(['1', '151', '2', '151', '999'], '3');
    expect(response.status).toBe(404);
    const document = await json(response);
    expect(document.errors.map((e: any) => [e.source.pointer, e.code])).toEqual([
      ['/data/relationships/owner/data', 'related_not_found'],
      ['/data/relationships/labels/data/1', 'related_not_found'],
      ['/data/relationships/labels/data/3', 'related_not_found'],
      ['/data/relationships/labels/data/4', 'related_not_found'],
    ]);
    expect(notes).toHaveLength(0);
  });

  it('a single related type is checked with its findMany', async () => {
    const { post, calls } = sharedHost();
    expect((await post(undefined, '2')).status).toBe(201);
    expect(calls).toEqual([['people.findMany', ['2']]]);
  });

  it('an answer of the wrong length is a 500 naming the member, and nothing is created', async () => {
    const { post, errors, notes } = sharedHost((lookups) => lookups.map(({ ids }) => ids.slice(1).map(() => true)));
    const response = await post(['1', '2']);
    expect(response.status).toBe(500);
    expect(String(errors[0])).toMatch(/existence\.exist answered 0 values for 1 ids of p/);
    expect(notes).toHaveLength(0);
  });
});
