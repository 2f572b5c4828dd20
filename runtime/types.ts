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

/** Steps for `flow`: a generator that yields values or promises and is sent what each settles with. */
export type Steps<T> = Generator<unknown, T, any>;

/**
 * Runs a generator that yields values or promises, as an async function awaits them, but
 * synchronously for as long as it yields values: the result is a promise only once a yielded
 * promise had to be waited for. A step that throws synchronously throws out of `flow`.
 *
 * @example
 * const total = flow((function* () {
 *   const rows: Row[] = yield layer.results(query, context); // a value or a promise
 *   return rows.length;
 * })());
 */
export function flow<T>(steps: Steps<T>, sent?: unknown, failed = false): MaybePromise<T> {
  let next = failed ? steps.throw(sent) : steps.next(sent);
  while (!next.done) {
    const value = next.value;
    if (isPromise(value)) return value.then((settled) => flow(steps, settled), (thrown: unknown) => flow(steps, thrown, true));
    next = steps.next(value);
  }
  return next.value;
}
