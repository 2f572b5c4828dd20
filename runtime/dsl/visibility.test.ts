import { describe, expect, it } from 'vitest';
import { Show } from './endpoints.js';

const thenable = <T>(value: T): PromiseLike<T> => ({ then: (resolve) => Promise.resolve(value).then(resolve) });

describe('visible() and hidden()', () => {
  it('with no callbacks, permits at once (no promise)', async () => {
    const show = Show.make();
    expect(show.permits({} as never)).toBe(true);
    await expect(show.isVisible({} as never)).resolves.toBe(true);
  });

  it('answers synchronously while the callbacks do', () => {
    expect(
      Show.make()
        .visible(() => true)
        .permits({} as never),
    ).toBe(true);
    expect(
      Show.make()
        .visible(() => false)
        .permits({} as never),
    ).toBe(false);
    expect(
      Show.make()
        .hidden(() => true)
        .permits({} as never),
    ).toBe(false);
    expect(
      Show.make()
        .hidden(() => false)
        .visible(() => true)
        .permits({} as never),
    ).toBe(true);
  });

  it('waits for promises and foreign thenables, and refuses when any refuses', async () => {
    await expect(
      Show.make()
        .visible(async () => false)
        .permits({} as never),
    ).resolves.toBe(false);
    await expect(
      Show.make()
        .hidden(async () => true)
        .permits({} as never),
    ).resolves.toBe(false);
    await expect(
      Show.make()
        .visible(() => thenable(false) as never)
        .permits({} as never),
    ).resolves.toBe(false);
    await expect(
      Show.make()
        .hidden(() => thenable(true) as never)
        .permits({} as never),
    ).resolves.toBe(false);
    await expect(
      Show.make()
        .visible(async () => true)
        .hidden(() => false)
        .permits({} as never),
    ).resolves.toBe(true);
    await expect(
      Show.make()
        .visible(async () => true)
        .visible(() => false)
        .isVisible({} as never),
    ).resolves.toBe(false);
  });

  it('asks each callback in order, and none after the first refusal', async () => {
    const asked: string[] = [];
    const endpoint = Show.make()
      .visible(async () => (asked.push('a'), true))
      .visible(() => (asked.push('b'), false))
      .visible(() => (asked.push('c'), true));
    await expect(endpoint.permits({} as never)).resolves.toBe(false);
    expect(asked).toEqual(['a', 'b']);
  });
});
