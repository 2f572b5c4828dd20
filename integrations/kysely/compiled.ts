import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { type DirectPostgres, directPostgresOf } from './prepared-pool.js';
import { type DirectSqlite, allRows, directSqliteOf, runDirect } from './statements.js';
import type { Row } from './table-resource.js';

/** The most values a statement compiled once per shape binds (`in (?, ?, ...)`); longer lists are built anew. */
const MAX_CACHED_ARITY = 100;
/** The most shapes kept compiled. */
const MAX_SHAPES = 2000;

/**
 * Statements whose SQL depends only on their shape (reads by key and by a list of keys, an
 * Index's `ListQuery`, inserts by their columns), compiled once per shape with Kysely's public
 * `compile()` and run with each call's values through `executeQuery`: Kysely builds and
 * compiles every query anew, which costs about as much as a point lookup on SQLite. A shape
 * names every identifier it depends on, quoted, so that two statements never share one; a
 * statement whose compiled parameters are not exactly the shape's values (a value written
 * into the SQL, an expression) is built anew every time.
 *
 * On a database `sqliteKysely` made (no `log`, no plugins), reads outside transactions and
 * every statement of the store's own SQLite transactions run on better-sqlite3 directly,
 * without Kysely's per-query layers (a mutex and a dozen promises around a call of microseconds).
 * On one `postgresKysely` made, statements outside transactions go to a client of its `pg` Pool directly.
 */
export class CompiledStatements {
  readonly #db: Kysely<any>;
  readonly #cache = new Map<string, CompiledQuery | null>();
  readonly #direct: DirectSqlite | undefined;
  readonly #postgres: DirectPostgres | undefined;

  constructor(db: Kysely<any>) {
    this.#db = db;
    this.#direct = directSqliteOf(db);
    this.#postgres = directPostgresOf(db);
  }

  /**
   * Runs the statement `build` makes from `db` for `shape`, which binds exactly `values`, in
   * order, on `executor` (the request's transaction, or `db`).
   */
  execute(executor: Kysely<any>, shape: string, values: readonly unknown[], build: (db: Kysely<any>) => Compilable): QueryResult<any> | Promise<QueryResult<any>> {
    let compiled = values.length <= MAX_CACHED_ARITY ? this.#cache.get(shape) : null;
    if (compiled === undefined) {
      const query = build(this.#db).compile();
      const binds = query.parameters.length === values.length && query.parameters.every((value, i) => value === values[i]);
      // Shapes are bounded by the API's filters, sorts and arities; a host inventing them without end starts over.
      if (this.#cache.size >= MAX_SHAPES) this.#cache.clear();
      this.#cache.set(shape, (compiled = binds ? query : null));
    }
    if (compiled === null) return executor.executeQuery(build(executor));
    // Outside transactions, on a pool `postgresKysely` made: a client of the pool runs it, as under Kysely.
    if (this.#postgres !== undefined && executor === this.#db) return this.#postgres(compiled.sql, values);
    const direct = this.#direct;
    if (direct !== undefined) {
      if (executor !== this.#db) {
        // The store's own SQLite transaction (`withTransaction`) holds the one connection while
        // this request's work runs: its statements go to the database at once.
        return runDirect(direct, compiled.sql, values);
      }
      // Outside transactions a read needs no connection of its own: SQLite runs it now, as
      // Kysely would once its mutex let it. A transaction open on the connection is checked
      // for (then the read waits for it through Kysely).
      if (!direct.inTransaction) {
        const statement = direct.prepare(compiled.sql);
        if (statement.reader === true) return { rows: allRows(statement, values) };
      }
    }
    return executor.executeQuery({ ...compiled, parameters: values });
  }

  /** The rows of `execute`. */
  async rows(executor: Kysely<any>, shape: string, values: readonly unknown[], build: (db: Kysely<any>) => Compilable): Promise<Row[]> {
    return (await this.execute(executor, shape, values, build)).rows as Row[];
  }
}
