import { describe, expect, it } from 'vitest';
import { flow } from '../types.js';

describe('flow', () => {
  it('answers at once while every step does, and with a promise from the first step that waits', async () => {
    function* steps(second: unknown) {
      const a: number = yield 1;
      const b: number = yield second;
      return a + b;
    }
    expect(flow(steps(2))).toBe(3);
    const waited = flow(steps(Promise.resolve(5)));
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toBe(6);
  });

  it('throws a rejected step into the generator, where try/catch sees it; an uncaught one rejects', async () => {
    function* recovering() {
      try {
        yield Promise.reject(new Error('lookup failed'));
        return 'not reached';
      } catch (thrown) {
        return `recovered from ${(thrown as Error).message}`;
      }
    }
    expect(await flow(recovering())).toBe('recovered from lookup failed');
    function* failing() {
      yield Promise.resolve(1);
      throw new Error('late');
    }
    await expect(flow(failing())).rejects.toThrow('late');
  });

  it('throws synchronously what a step throws before any promise', () => {
    function* failing(): Generator<unknown, void> {
      yield 1;
      throw new Error('at once');
    }
    expect(() => flow(failing())).toThrow('at once');
  });
});
