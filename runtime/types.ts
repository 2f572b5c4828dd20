/** A value or a promise of it: data layers and callbacks may answer either way. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `fn` of a value at once, or of a promise's value once it resolves. On the request path a value
 * that is there already is used as it is: each `await` costs a turn of the microtask queue.
 */
export function andThen<T, U>(value: MaybePromise<T>, fn: (value: T) => U): MaybePromise<U> {
  return isPromise(value) ? value.then(fn) : fn(value);
}

/**
 * Whether a value is a promise, as `await` sees one (a thenable). Not `instanceof Promise`: that
 * asks a proxy for its prototype, and a planned Kysely query (a proxy) would build itself.
 */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
