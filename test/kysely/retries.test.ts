/**
 * PostgreSQL aborts one of two transactions that deadlock (40P01); kyselyTransaction runs the
 * aborted request again, so both writers succeed and neither sees a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorOf } from '../support/demo.js';
import { type Fixture, openFixture } from './harness.js';

describe('deadlocked transactions on PostgreSQL', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await openFixture('postgres', 10);
  });
  afterAll(async () => fixture?.close());

  it('two Atomic Operations requests updating two articles in opposite orders both succeed', async () => {
    // Articles 1 and 6 have the same author, so one user may update both.
    expect(authorOf(1)).toBe(authorOf(6));
    const update = (id: number, title: string) => ({
      op: 'update',
      data: { type: 'articles', id: String(id), attributes: { title } },
    });
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([
        fixture.request('POST', '/operations', authorOf(1), {
          'atomic:operations': [update(1, `a${round}`), update(6, `a${round}`)],
        }),
        fixture.request('POST', '/operations', authorOf(1), {
          'atomic:operations': [update(6, `b${round}`), update(1, `b${round}`)],
        }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
    }
  });
});
