/**
 * What `jsonapi-gen diff` reports: one change, its semver level, and the verdict of a list of
 * them. The rules deciding each change's level are in `compare.ts` and docs/diff.md.
 */

/** How a change moves the API's version: `major` breaks an existing client, `minor` adds, `patch` only describes. */
export type Level = 'major' | 'minor' | 'patch';

/** The verdict of a comparison: the highest level of its changes, `none` when there are none. */
export type Verdict = Level | 'none';

/** One change between two versions of an API. */
export interface Change {
  /** kebab-case: `attribute-removed`, `operator-added`, ... */
  readonly kind: string;
  readonly level: Level;
  /** The resource type, then the member, endpoint, filter, operator, sort or parameter: `articles.filter.createdAt.gte`. */
  readonly path: string;
  readonly message: string;
}

/** What `diff --json` prints of a change. */
export interface ChangeReport {
  readonly kind: string;
  readonly breaking: boolean;
  readonly path: string;
  readonly message: string;
}

/** What `diff --json` prints. */
export interface DiffReport {
  readonly verdict: Verdict;
  readonly changes: readonly ChangeReport[];
}

const RANK: Record<Verdict, number> = { none: 0, patch: 1, minor: 2, major: 3 };

/**
 * The highest level among `changes`.
 *
 * @example
 * verdict([{ kind: 'filter-added', level: 'minor', path: 'articles.filter.title', message: '' }]); // 'minor'
 */
export function verdict(changes: readonly Change[]): Verdict {
  return changes.reduce<Verdict>((worst, c) => (RANK[c.level] > RANK[worst] ? c.level : worst), 'none');
}

/**
 * The `--json` report of `changes`: breaking ones first, each group in the order found.
 *
 * @example
 * report([]); // { verdict: 'none', changes: [] }
 */
export function report(changes: readonly Change[]): DiffReport {
  const ordered = [...changes.filter((c) => c.level === 'major'), ...changes.filter((c) => c.level !== 'major')];
  return {
    verdict: verdict(changes),
    changes: ordered.map((c) => ({ kind: c.kind, breaking: c.level === 'major', path: c.path, message: c.message })),
  };
}
