/**
 * A value or a promise of it: what data layers and callbacks may answer (a host's in-memory
 * layer answers at once, a database's with a promise). The runtime awaits every one of them:
 * one async model, with no path of its own for values that are there already (measured in
 * bench/results.md, "One async model").
 */
export type MaybePromise<T> = T | Promise<T>;
