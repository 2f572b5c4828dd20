/** A value or a promise of it: data layers and callbacks may answer either way. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `fn` of a value at once, or of a promise's value once it resolves. On the request path a value
 * that is there already is used as it is: each `await` costs a turn of the microtask queue.
 */
export function andThen<T, U>(value: MaybePromise<T>, fn: (value: T) => U): MaybePromise<U> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
