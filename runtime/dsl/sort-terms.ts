/**
 * The sort syntax, which both the `sort` query parameter and `Index.defaultSort` take:
 * comma-separated names, `-` for descending.
 */
import { invalidParameter } from '../core/errors.js';
import type { SortDirection } from './filters.js';

/** One term of `sort`. */
export interface SortTerm {
  readonly name: string;
  readonly direction: SortDirection;
}

/** Parses `sort` syntax: comma-separated names, `-` for descending. */
export function parseSort(value: string, parameter = 'sort'): SortTerm[] {
  return value.split(',').map((raw) => {
    const descending = raw.startsWith('-');
    const name = descending ? raw.slice(1) : raw;
    if (name === '') throw invalidParameter(parameter, `"${value}" has an empty sort field`);
    return { name, direction: descending ? 'desc' : 'asc' };
  });
}
