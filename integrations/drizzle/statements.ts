/**
 * The store's statements: Drizzle select queries built with a slot for each value, prepared once
 * per shape (`prepare()` with `sql.placeholder` slots; on PostgreSQL a named statement) and run
 * with each call's values; on PostgreSQL, in a transaction, prepared once per shape on the pool
 * connection the transaction holds and sent under the shape's name. A statement whose SQL may
 * vary (a scope, a custom filter), or that runs in a MySQL transaction, is built with its values
 * in place and run once.
 */
import { type Column, type SQL, type Table, sql } from 'drizzle-orm';
import type { Model } from './resource.js';

/** The `i`th value of a statement: a placeholder in a prepared one, the value itself otherwise. */
export type Slot = (i: number) => unknown;

/** A select of either dialect's query builder, as the store chains it. */
export interface Select extends PromiseLike<Model[]> {
  innerJoin(table: Table, on: SQL): Select;
  where(condition: SQL | undefined): Select;
  orderBy(...terms: SQL[]): Select;
  groupBy(...terms: Array<SQL | Column>): Select;
  limit(limit: unknown): Select;
  offset(offset: unknown): Select;
  prepare(name?: string): { execute(values?: Record<string, unknown>): Promise<Model[]> | Model[] };
}

/** A Drizzle database or transaction (SQLite or PostgreSQL): what the store reads through. */
export interface Database {
  select(fields: Record<string, unknown>): { from(table: Table): Select };
}

/** A Drizzle query builder that prepares (a select, an insert, an update, a delete), resolving to `R`. */
export interface Preparable<R> extends PromiseLike<R> {
  prepare(name?: string): { execute(values?: Record<string, unknown>): Promise<R> | R };
}

/** The most values a statement prepared once per shape binds; longer lists are built anew. */
const MAX_PREPARED_ARITY = 100;
/** The most shapes kept prepared. */
const MAX_SHAPES = 2000;
/** Named statements are per connection and per text: a name is never reused for another text. */
let names = 0;

/**
 * Statements prepared once per shape on one database (`prepare()` with `sql.placeholder`
 * slots; on PostgreSQL a named statement), run with each call's values.
 *
 * @example
 * import { eq, sql } from 'drizzle-orm';
 * import { db } from './db.js';
 * import { tags } from './tables.js';
 * const shapes = new PreparedShapes(db, false);
 * const rows = await shapes.run(db, 'tag by id', [1], (on, slot) => on.select().from(tags).where(eq(tags.id, slot(0))));
 */
export class PreparedShapes<D extends object = object> {
  readonly db: D;
  readonly postgres: boolean;
  readonly #prepared = new Map<string, Prepared>();
  /**
   * PostgreSQL: per pooled connection (a transaction's, see `connectionOf`), the statements
   * prepared on it per shape. A transaction is a new Drizzle object each time on one of a few
   * connections, and building and compiling a statement costs more than running it.
   */
  readonly #onConnection = new WeakMap<object, Map<string, Prepared>>();
  /** PostgreSQL: shape -> statement name (see `#nameOf`). */
  readonly #names = new Map<string, string>();

  constructor(db: D, postgres: boolean) {
    this.db = db;
    this.postgres = postgres;
  }

  /**
   * What the statement `build` makes resolves to, binding `values`: prepared once for `shape`
   * when it runs on the database itself; on PostgreSQL in a transaction (`on`: its own pool
   * connection), prepared once for `shape` on that connection and sent under the shape's name,
   * so that Drizzle builds it and PostgreSQL parses and plans it once per connection; otherwise
   * (or with `shape` undefined: its SQL may vary) built with its values in place and run once.
   */
  async run<R>(
    on: D,
    shape: string | undefined,
    values: readonly unknown[],
    build: (on: D, slot: Slot) => Preparable<R>,
  ): Promise<R> {
    if (shape === undefined || values.length > MAX_PREPARED_ARITY || (on !== this.db && !this.postgres))
      return await build(on, (i) => values[i]);
    const bound: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) bound[`p${i}`] = values[i];
    let statements = this.#prepared;
    if (on !== this.db) {
      const connection = connectionOf(on);
      if (connection === undefined) return await build(on, placeholder).prepare(this.#nameOf(shape)).execute(bound);
      let own = this.#onConnection.get(connection);
      if (own === undefined) this.#onConnection.set(connection, (own = new Map<string, Prepared>()));
      statements = own;
    }
    let prepared = statements.get(shape) as Prepared<R> | undefined;
    if (prepared === undefined) {
      // Shapes are bounded by the API's filters, sorts and arities; a host inventing them without end starts over.
      if (statements.size >= MAX_SHAPES) statements.clear();
      // Prepared on `on`: a transaction's statement runs on its connection, which it is kept for.
      const query = build(on, placeholder);
      prepared = this.postgres ? query.prepare(this.#nameOf(shape)) : query.prepare();
      statements.set(shape, prepared);
    }
    return await prepared.execute(bound);
  }

  /**
   * The PostgreSQL statement name of `shape`: one per shape, whether it runs on the database or
   * in a transaction (the same text either way, so a connection parses it once for both).
   */
  #nameOf(shape: string): string {
    let name = this.#names.get(shape);
    if (name === undefined) {
      if (this.#names.size >= MAX_SHAPES) this.#names.clear();
      this.#names.set(shape, (name = `jsonapi_drizzle_${++names}`));
    }
    return name;
  }
}

/** A statement prepared by a Drizzle query builder, resolving to `R`. */
type Prepared<R = unknown> = ReturnType<Preparable<R>['prepare']>;

/**
 * The driver connection a node-postgres transaction `on` holds (its session's client, the
 * pool connection), or undefined when there is none to be found: then its statements are built
 * anew each time.
 */
function connectionOf(on: object): object | undefined {
  const client = (on as { _?: { session?: { client?: unknown } } })._?.session?.client;
  return typeof client === 'object' && client !== null ? client : undefined;
}

/** The slot of a statement prepared once per shape: the `i`th placeholder. */
const placeholder: Slot = (i) => sql.placeholder(`p${i}`);

/** See the module comment: the store's selects, resolving to their rows. */
export class Statements extends PreparedShapes<Database> {
  /** The rows of the select `build` makes on `on` for `shape` (undefined: its SQL may vary), binding `values`. */
  rows(
    on: Database,
    shape: string | undefined,
    values: readonly unknown[],
    build: (on: Database, slot: Slot) => Select,
  ): Promise<Model[]> {
    return this.run(on, shape, values, build);
  }
}

/** `slot`'s values `from` to `from + count` as one SQL list (`?, ?, ?`). */
export function list(slot: Slot, from: number, count: number): SQL {
  return sql.join(
    Array.from({ length: count }, (_, i) => sql`${slot(from + i)}`),
    sql`, `,
  );
}
