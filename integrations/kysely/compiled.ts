import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { type StatementRunner, runnerOf } from './runner.js';
import type { Row } from './table-resource.js';

/** The most values a statement compiled once per shape binds (`in (?, ?, ...)`); longer lists are built anew. */
const MAX_CACHED_ARITY = 100;
/** The most shapes kept compiled. */
const MAX_SHAPES = 2000;

/**
 * Statements whose SQL depends only on their shape (reads by key and by a list of keys, an
 * Index's `ListQuery`, inserts by their columns), compiled once per shape with Kysely's public
 * `compile()` and run with each call's values by the database's `StatementRunner` (Kysely's
 * executor, or the driver's with `runner: 'direct'`): Kysely builds and compiles every query
 * anew, which costs about as much as a point lookup on SQLite. A shape names every identifier
 * it depends on, quoted, so that two statements never share one; a statement whose compiled
 * parameters are not exactly the shape's values (a value written into the SQL, an expression)
 * is built anew every time, and runs through Kysely.
 */
export class CompiledStatements {
  readonly #db: Kysely<AnyDatabase>;
  readonly #cache = new Map<string, CompiledQuery | null>();
  readonly #runner: StatementRunner;

  constructor(db: Kysely<AnyDatabase>) {
    this.#db = db;
    this.#runner = runnerOf(db);
  }

  /**
   * Runs the statement `build` makes from `db` for `shape`, which binds exactly `values`, in
   * order, on `executor` (the request's transaction, or `db`).
   */
  execute(
    executor: Kysely<AnyDatabase>,
    shape: string,
    values: readonly unknown[],
    build: (db: Kysely<AnyDatabase>) => Compilable,
  ): QueryResult<unknown> | Promise<QueryResult<unknown>> {
    let compiled = values.length <= MAX_CACHED_ARITY ? this.#cache.get(shape) : null;
    if (compiled === undefined) {
      const query = build(this.#db).compile();
      const binds =
        query.parameters.length === values.length && query.parameters.every((value, i) => value === values[i]);
      // Shapes are bounded by the API's filters, sorts and arities; a host inventing them without end starts over.
      if (this.#cache.size >= MAX_SHAPES) this.#cache.clear();
      this.#cache.set(shape, (compiled = binds ? query : null));
    }
    if (compiled === null) return executor.executeQuery(build(executor));
    return this.#runner.run(executor, this.#db, compiled, values);
  }

  /** The rows of `execute`. */
  async rows(
    executor: Kysely<AnyDatabase>,
    shape: string,
    values: readonly unknown[],
    build: (db: Kysely<AnyDatabase>) => Compilable,
  ): Promise<Row[]> {
    return (await this.execute(executor, shape, values, build)).rows as Row[];
  }
}
