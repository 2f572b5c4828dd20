/**
 * Date-times are RFC 3339, normalized to UTC with milliseconds on the way in (so the data layer
 * stores, compares and sorts instants) and on the way out (stored text with an offset too).
 */
import {
  Attribute,
  Create,
  Index,
  JsonApi,
  Show,
  defineResource,
  normalizeDateTime,
  type WriteValues,
} from 'jsonapi-gen';
import { describe, expect, it } from 'vitest';
import { request } from '../support/request.js';

const events = defineResource({
  type: 'events',
  fields: [Attribute.make('at').type('date-time').writable().required(), Attribute.make('day').type('date').writable()],
  endpoints: [Show.make(), Index.make(), Create.make()],
});

function api() {
  const rows: Array<{ id: string; at: string; day?: string }> = [{ id: '1', at: '2024-01-01T10:00:00+02:00' }];
  const written: WriteValues[] = [];
  const server = new JsonApi().resource({
    ...events,
    find: (id: string) => rows.find((r) => r.id === id) ?? null,
    query: () => rows,
    results: (query: typeof rows) => query,
    create: (values: WriteValues) => {
      written.push(values);
      const row = { id: String(rows.length + 1), at: values.attributes.at as string };
      rows.push(row);
      return row;
    },
  });
  return { server, written };
}
const post = (attributes: Record<string, unknown>) =>
  request('/events', {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'events', attributes } }),
  });

describe('date-times', () => {
  it.each([
    ['2024-01-01T10:00:00+02:00', '2024-01-01T08:00:00.000Z'],
    ['2024-01-01t08:00:00.123456z', '2024-01-01T08:00:00.123Z'],
    ['2024-02-29T23:59:59-00:30', '2024-03-01T00:29:59.000Z'],
  ])('%s reaches the data layer and the response as %s', async (given, stored) => {
    const { server, written } = api();
    const response = await server.fetch(post({ at: given }));
    expect(response.status).toBe(201);
    expect(written[0]!.attributes.at).toBe(stored);
    expect(((await response.json()) as { data: { attributes: { at: string } } }).data.attributes.at).toBe(stored);
  });

  it.each([
    '2024-01-01',
    '2024-01-01T25:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-01-01T10:00:00',
    '2024-01-01T10:00:60Z',
    'yesterday',
  ])('%s is 422 at its pointer', async (given) => {
    const response = await api().server.fetch(post({ at: given }));
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
      source: { pointer: '/data/attributes/at' },
    });
  });

  it('stored text with an offset is served normalized; a date must be a real calendar date', async () => {
    const { server } = api();
    const shown = (await (await server.fetch(request('/events/1'))).json()) as { data: { attributes: { at: string } } };
    expect(shown.data.attributes.at).toBe('2024-01-01T08:00:00.000Z');
    expect((await server.fetch(post({ at: '2024-01-01T00:00:00Z', day: '2023-02-29' }))).status).toBe(422);
    expect((await server.fetch(post({ at: '2024-01-01T00:00:00Z', day: '2024-02-29' }))).status).toBe(201);
  });

  it('normalized texts sort as the instants they name', () => {
    const given = ['2024-01-01T10:00:00+02:00', '2024-01-01T09:00:00Z', '2024-01-01T08:30:00.5Z'];
    expect(given.map((t) => normalizeDateTime(t)!).sort()).toEqual([
      '2024-01-01T08:00:00.000Z',
      '2024-01-01T08:30:00.500Z',
      '2024-01-01T09:00:00.000Z',
    ]);
  });
});
