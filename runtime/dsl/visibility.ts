import type { MaybePromise } from '../core/types.js';

/**
 * A callback that decides whether something may be seen or used. Declared as a method, so a
 * callback that names its model's type (`(article: Article, ctx) => ...`) fits where the
 * runtime only knows `unknown`.
 */
export type VisibilityCallback<Args extends unknown[]> = {
  bivariant(...args: Args): MaybePromise<boolean>;
}['bivariant'];

/**
 * The `visible(cb)` / `hidden(cb)` pair shared by endpoints, filters and sorts. Every callback
 * must agree: `visible` permits when it returns true, `hidden` when it returns false.
 */
export abstract class Visibility<Args extends unknown[]> {
  #checks: VisibilityCallback<Args>[] = [];
  #abilities: string[] = [];

  /** Permit only when `callback` returns true. */
  visible(callback: VisibilityCallback<Args>): this {
    this.#checks.push(callback);
    const ability = (callback as { ability?: unknown }).ability;
    if (typeof ability === 'string') this.#abilities.push(ability);
    return this;
  }

  /** The abilities its `can(ability)` callbacks ask the data layer's policy about. */
  get abilities(): readonly string[] {
    return this.#abilities;
  }

  /** Whether any `visible` or `hidden` callback was given: tools (`jsonapi-gen diff`) read it by property. */
  get isConditional(): boolean {
    return this.#checks.length > 0;
  }

  /** Refuse when `callback` returns true. */
  hidden(callback: VisibilityCallback<Args>): this {
    this.#checks.push((...args) => {
      const verdict = callback(...args);
      return isThenable(verdict) ? Promise.resolve(verdict).then((hide) => !hide) : !verdict;
    });
    return this;
  }

  /** Whether every callback permits. */
  async isVisible(...args: Args): Promise<boolean> {
    return this.permits(...args);
  }

  /**
   * `isVisible`, answered synchronously while the callbacks answer synchronously (most do, and
   * most things have none): the runtime checks this on every request.
   */
  permits(...args: Args): MaybePromise<boolean> {
    const checks = this.#checks;
    for (let i = 0; i < checks.length; i++) {
      const verdict = checks[i]!(...args);
      if (isThenable(verdict))
        return Promise.resolve(verdict).then((permitted) => (permitted ? this.#rest(i + 1, args) : false));
      if (!verdict) return false;
    }
    return true;
  }

  async #rest(from: number, args: Args): Promise<boolean> {
    for (const check of this.#checks.slice(from)) if (!(await check(...args))) return false;
    return true;
  }
}

/** A promise, of this realm or not: what `await` would wait for. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
