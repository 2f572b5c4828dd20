/**
 * Prepared statements on PostgreSQL through public APIs: a wrapper of the host's `pg` Pool, to
 * pass to Kysely's `PostgresDialect`, whose clients send Kysely's `query(text, values)` as
 * node-postgres's named query config `{ name, text, values }`. PostgreSQL then parses and plans
 * each statement once per connection instead of on every call.
 *
 * Names come from one process-wide map, text -> name, so a name never stands for two texts
 * (node-postgres would reject a name reused with another text on a connection). The map is
 * bounded: past `maxNames` distinct texts, new texts go unnamed, so a host with unbounded SQL
 * shapes (say `IN` lists of every length) cannot grow the server's or the process's memory; the
 * repeated shapes, seen first, keep their names. Transaction control (`begin`, `commit`,
 * savepoints) goes out unprepared, one simple-protocol message: there is nothing to plan.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/** A node-postgres client: Kysely's view of it, plus the named query config. */
export interface NamedQueryClient extends PostgresPoolClient {
  query<R>(config: { name?: string; text: string; values: unknown[] }): Promise<PostgresQueryResult<R>>;
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
}

/** A pool whose clients take named query configs (node-postgres's `pg.Pool`). */
export interface NamedQueryPool {
  connect(): Promise<NamedQueryClient>;
  end(): Promise<void>;
}

export interface PreparedPoolOptions {
  /** Distinct statement texts given a name, process-wide; later texts go unnamed. Default 1000. */
  maxNames?: number;
}

/** Statement text -> name, for the whole process (see the module's comment). */
const names = new Map<string, string>();

/** Names handed out so far: a name is never given twice, even after `renamed`. */
let issued = 0;

/** The name of `text`, or undefined once the bound is reached for a text not yet named. */
function statementName(text: string, maxNames: number): string | undefined {
  const name = names.get(text);
  if (name !== undefined || names.size >= maxNames) return name;
  const fresh = `jg${issued++}`;
  names.set(text, fresh);
  return fresh;
}

/**
 * After a schema change PostgreSQL refuses to run a prepared `select *` whose columns changed
 * ("cached plan must not change result type", 0A000), and the connection keeps the old
 * statement under its name: give the text a new name, which every connection prepares afresh.
 */
function renamed(text: string): string {
  const fresh = `jg${issued++}`;
  names.set(text, fresh);
  return fresh;
}

/** `begin`, `commit`, savepoints and the like: statements PostgreSQL has no plan to keep for. */
const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|savepoint|release|start transaction|end)\b/i;

const isStalePlan = (error: unknown) => (error as { code?: unknown } | null)?.code === '0A000' && /cached plan/.test((error as Error).message);

/**
 * Wraps a `pg` Pool so that Kysely's statements go out named (prepared once per connection).
 * Host queries through the wrapped pool or through Kysely keep working; the pool itself is
 * unchanged (its own `query` stays unnamed).
 *
 * @example
 * import pg from 'pg';
 * import { Kysely, PostgresDialect } from 'kysely';
 * import { preparedPool } from '@jsonapi-gen/kysely';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
 * const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparedPool(pool, { maxNames: 500 }) }) });
 */
export function preparedPool(pool: NamedQueryPool, options: PreparedPoolOptions = {}): PostgresPool {
  const maxNames = options.maxNames ?? 1000;
  if (!Number.isInteger(maxNames) || maxNames < 0) throw new TypeError(`preparedPool: maxNames must be a whole number, got ${maxNames}`);
  // One wrapper per physical client, made once: a checkout costs no allocation.
  const wrappers = new WeakMap<NamedQueryClient, PostgresPoolClient>();
  const wrap = (client: NamedQueryClient): PostgresPoolClient => {
    let wrapper = wrappers.get(client);
    if (wrapper) return wrapper;
    function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
    function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
    function query<R>(what: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
      if (typeof what !== 'string') return client.query(what);
      const values = parameters as unknown[];
      // Nothing to plan: one simple-protocol message instead of parse, bind, describe, execute.
      if (values.length === 0 && TRANSACTION_CONTROL.test(what)) return client.query<R>(what, values);
      const name = statementName(what, maxNames);
      if (name === undefined) return client.query<R>(what, values);
      return client.query<R>({ name, text: what, values }).catch((error: unknown) => {
        // Outside a transaction the retry succeeds; inside one PostgreSQL has aborted it anyway.
        if (!isStalePlan(error)) throw error;
        const next = names.get(what) === name ? renamed(what) : names.get(what);
        return next === undefined ? client.query<R>(what, values) : client.query<R>({ name: next, text: what, values });
      });
    }
    wrapper = { query, release: () => client.release() };
    wrappers.set(client, wrapper);
    return wrapper;
  };
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
