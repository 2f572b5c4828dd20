/**
 * The lists of ids the store works out for conditions Prisma's `where` cannot say (a count
 * other than existence; on SQLite a case-sensitive text operator), and the 400 of a list longer
 * than one statement can bind.
 */
import { BadRequestError, type Condition, type Context } from 'jsonapi-gen';

/** A list of ids a query binds, and the filter parameter it came from. */
export interface IdList {
  readonly parameter: string;
  readonly size: number;
}

/**
 * The request's query parameter a condition was read from (`filter[or][1][title][contains]`):
 * the first `filter…` parameter ending in the condition's field and operator (or, for `eq` and
 * `in`, in the field alone), else `filter[field][op]`.
 */
export function filterParameter(context: Context, condition: Condition): string {
  const own = `[${condition.field}][${condition.op}]`;
  const tails =
    condition.op === 'eq'
      ? [own, `[${condition.field}]`]
      : condition.op === 'in'
        ? [own, `[${condition.field}][]`, `[${condition.field}]`]
        : [own];
  const names = context.http ? [...context.url.searchParams.keys()] : [];
  return (
    names.find((name) => name.startsWith('filter[') && tails.some((tail) => name.endsWith(tail))) ?? `filter${own}`
  );
}

/** Whether Prisma refused a statement for binding more values than the database takes (P2029). */
function pastBindLimit(thrown: unknown): boolean {
  return (thrown as { code?: unknown } | null)?.code === 'P2029';
}

/**
 * Runs a query that binds `lists`: when Prisma refuses it for binding more values than the
 * database takes (P2029), a 400 naming the parameter of the longest list.
 */
export async function withinBindLimit<T>(lists: readonly IdList[] | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (thrown) {
    if (!lists?.length || !pastBindLimit(thrown)) throw thrown;
    const longest = lists.reduce((a, b) => (b.size > a.size ? b : a));
    throw new BadRequestError({
      detail: `${longest.parameter} matches ${longest.size} resources, more than this data layer can filter by in one query: narrow the filter`,
      source: { parameter: longest.parameter },
      code: 'filter_too_broad',
    });
  }
}
