/** A value or a promise of it: data layers and callbacks may answer either way. */
export type MaybePromise<T> = T | Promise<T>;
