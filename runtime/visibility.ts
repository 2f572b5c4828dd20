import type { MaybePromise } from './types.js';

/** A callback that decides whether something may be seen or used. */
export type VisibilityCallback<Args extends unknown[]> = (...args: Args) => MaybePromise<boolean>;

/**
 * The `visible(cb)` / `hidden(cb)` pair shared by endpoints, filters and sorts. Every callback
 * must agree: `visible` permits when it returns true, `hidden` when it returns false.
 */
export abstract class Visibility<Args extends unknown[]> {
  #checks: VisibilityCallback<Args>[] = [];

  /** Permit only when `callback` returns true. */
  visible(callback: VisibilityCallback<Args>): this {
    this.#checks.push(callback);
    return this;
  }

  /** Refuse when `callback` returns true. */
  hidden(callback: VisibilityCallback<Args>): this {
    this.#checks.push(async (...args) => !(await callback(...args)));
    return this;
  }

  /** Whether every callback permits. */
  async isVisible(...args: Args): Promise<boolean> {
    for (const check of this.#checks) if (!(await check(...args))) return false;
    return true;
  }
}
