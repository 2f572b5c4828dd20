/**
 * The query language answers the same on every backend: the demo on SQLite, on PostgreSQL and
 * on the hand-written memory store (examples/blog/memory.ts) gives the same articles for each
 * operator and path of examples/blog/README.md (test/kysely/operators.test.ts checks them against plain
 * TypeScript on both databases).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, type Backend, startDemoOn } from '../support/demo.js';

const QUERIES = [
  'filter[createdAt][gte]=2024-01-01T00:30:00%2B01:00',
  'filter[createdAt][lt]=2024-01-01T02:00:00Z&filter[createdAt][gt]=2023-12-31T23:00:00Z',
  'filter[updatedAt][ne]=2024-01-01T00:00:00Z',
  'filter[title][contains]=practice',
  'filter[title][startsWith]=Kysely',
  'filter[title][endsWith]=part%203',
  'filter[status][nin]=draft',
  'filter[status][in]=draft',
  'filter[author.name]=Ada%20Lovelace',
  'filter[author.name][contains]=Hopper',
  'filter[tags.name][in]=typescript,sqlite',
  'filter[tags.name]=postgres&filter[status]=published',
];

describe('filter operators on every backend', () => {
  const demos = new Map<Backend, Demo>();
  beforeAll(async () => {
    for (const backend of BACKENDS) demos.set(backend, await startDemoOn(backend, 30));
  }, 120_000);
  afterAll(async () => {
    for (const demo of demos.values()) await demo.close();
  });

  it('gives the same articles for each operator and path on SQLite, PostgreSQL, the memory store and the Prisma store', async () => {
    let matched = 0;
    for (const query of QUERIES) {
      const answers = new Map<Backend, string[]>();
      for (const [backend, demo] of demos) {
        const response = await fetch(`${demo.url}/articles?page[limit]=50&${query}`, {
          headers: { authorization: 'Bearer 1' },
        });
        const body = (await response.json()) as { data: Array<{ id: string }>; errors?: unknown };
        expect(response.status, `${backend} ${query}: ${JSON.stringify(body.errors)}`).toBe(200);
        answers.set(
          backend,
          body.data.map((a) => a.id).sort((a, b) => Number(a) - Number(b)),
        );
      }
      expect(answers.get('postgres'), query).toEqual(answers.get('sqlite'));
      expect(answers.get('memory'), query).toEqual(answers.get('sqlite'));
      if (answers.get('sqlite')!.length > 0) matched++;
    }
    // Most queries select something (a suite of empty answers would agree trivially).
    expect(matched).toBeGreaterThan(QUERIES.length / 2);
  });

  it("orders by a to-one relationship's attribute the same way on every backend", async () => {
    const orders = new Map<Backend, string[]>();
    for (const [backend, demo] of demos) {
      const response = await fetch(`${demo.url}/articles?page[limit]=50&sort=author.name,-createdAt`);
      expect(response.status, backend).toBe(200);
      orders.set(
        backend,
        ((await response.json()) as { data: Array<{ id: string }> }).data.map((a) => a.id),
      );
    }
    expect(orders.get('sqlite')!.length).toBe(30);
    expect(orders.get('postgres')).toEqual(orders.get('sqlite'));
    expect(orders.get('memory')).toEqual(orders.get('sqlite'));
  });
});
