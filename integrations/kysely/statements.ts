import {
  Kysely,
  type KyselyConfig,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import { type RunnerName, type StatementRunner, chooseRunner } from './runner.js';

/** What `cachedStatements` needs of a better-sqlite3 `Database`. */
export interface PreparingDatabase {
  close(): unknown;
  prepare(sql: string): SqliteStatement & { readonly busy?: boolean };
}

/**
 * Wraps a better-sqlite3 database for Kysely's `SqliteDialect` so that each distinct SQL text
 * is prepared once and reused (Kysely prepares every query anew, which costs about as much as
 * running a point lookup). The runtime's statements are few and parameterized, so a small
 * cache holds them all; past `size`, one not used lately is dropped (a second-chance clock:
 * a hit only marks its statement, so reads cost a lookup, not a reordering). A statement still
 * busy (an unfinished `stream()`) is never handed out twice: a fresh one is prepared.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * import { Kysely, SqliteDialect } from 'kysely';
 * import type { Database } from './db.js';
 * const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedStatements(new SQLite('blog.sqlite')) }) });
 */
export function cachedStatements(database: PreparingDatabase, size = 500): SqliteDatabase {
  /** Oldest first; `used`: hit since the clock last passed it; `ddl`: it changes the schema (see `allRows`). */
  const cache = new Map<
    string,
    { statement: SqliteStatement & { readonly busy?: boolean }; used: boolean; ddl: boolean }
  >();
  /** Drops the oldest statement not used since the clock last passed it (never `newest`); the used ones it passes go last, unmarked. */
  const evict = (newest: string) => {
    for (const [sql, entry] of cache) {
      if (sql === newest) continue;
      cache.delete(sql);
      if (!entry.used) return;
      entry.used = false;
      cache.set(sql, entry);
    }
  };
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached !== undefined) {
        if (cached.ddl) schemaChanges++;
        if (cached.statement.busy === true) return database.prepare(sql);
        cached.used = true;
        return cached.statement;
      }
      // Told apart once per SQL text, not on every run.
      const ddl = SCHEMA_CHANGE.test(sql);
      if (ddl) schemaChanges++;
      const statement = database.prepare(sql);
      cache.set(sql, { statement, used: false, ddl });
      if (cache.size > size) evict(sql);
      return statement;
    },
  };
}

/** What `sqliteKysely` needs of a better-sqlite3 `Database`: `cachedStatements`'s, and (for the direct runner) whether a transaction is open. */
export interface DirectDatabase extends PreparingDatabase {
  readonly inTransaction: boolean;
}

/** What better-sqlite3's statements have beyond Kysely's `SqliteStatement`: rows as arrays. */
interface RawStatement extends SqliteStatement {
  raw?(toggle: boolean): unknown;
  columns?(): Array<{ name: string }>;
}

/** A SQLite connection's database, for the statements `sqliteRunner` runs on it directly. */
interface DirectSqlite {
  /** The cached statement of `sql`. */
  prepare(sql: string): RawStatement;
  /** Whether a transaction is open on the connection (then only Kysely, which waits for it, may run statements). */
  readonly inTransaction: boolean;
}

/**
 * Kysely's `SqliteDialect` on a better-sqlite3 database, with `cachedStatements`.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * import { Kysely } from 'kysely';
 * import type { Database } from './db.js';
 * const db = new Kysely<Database>({ dialect: sqliteDialect(new SQLite('blog.sqlite')) });
 */
export function sqliteDialect(
  database: PreparingDatabase,
  config: Omit<SqliteDialectConfig, 'database'> = {},
): SqliteDialect {
  return new SqliteDialect({ ...config, database: cachedStatements(database) });
}

/**
 * A Kysely on a better-sqlite3 database (`sqliteDialect`'s statement cache). The store runs
 * its statements through Kysely's executor, unless you choose `runner: 'direct'`
 * (`sqliteRunner`): then, outside transactions, a read the store has compiled once runs on the
 * database directly and synchronously, without Kysely's per-query layers (a mutex and a dozen
 * promises around a call that takes microseconds); inside the transactions `withTransaction`
 * runs, `begin`, `commit` and the store's statements do too (the transaction holds the one
 * connection). Kysely's `log` and plugins never see those statements, so a `config` with
 * either and `runner: 'direct'` is refused (a `TypeError`).
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * import type { Database } from './db.js';
 * const db = sqliteKysely<Database>(new SQLite('blog.sqlite'), { runner: 'direct' });
 * const logged = sqliteKysely<Database>(new SQLite('blog.sqlite'), { log: ['query'] }); // runner 'kysely'
 */
export function sqliteKysely<DB>(
  database: DirectDatabase,
  config: Omit<KyselyConfig, 'dialect'> & { runner?: RunnerName } = {},
): Kysely<DB> {
  const { runner: _, ...kysely } = config;
  const statements = cachedStatements(database);
  const db = new Kysely<DB>({ ...kysely, dialect: new SqliteDialect({ database: statements }) });
  chooseRunner('sqliteKysely', db, config, () =>
    sqliteRunner({
      prepare: (sql) => statements.prepare(sql),
      get inTransaction() {
        return database.inTransaction;
      },
    }),
  );
  return db;
}

/**
 * The direct runner of a SQLite database (the one connection of Kysely's `SqliteDriver`).
 * Outside transactions, a read runs on the database at once (a read needs no connection of
 * its own: SQLite runs it now, as Kysely would once its mutex let it), unless a transaction is
 * open on the connection: then it waits for it through Kysely, as do writes. Inside the store's
 * own transactions (`withTransaction`, which holds the one connection while the request's
 * work runs), every statement and the transaction control go to the database at once.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * import type { Database } from './db.js';
 * const db = sqliteKysely<Database>(new SQLite('blog.sqlite'), { runner: 'direct' }); // sqliteRunner under it
 */
function sqliteRunner(sqlite: DirectSqlite): StatementRunner {
  return {
    run(executor, db, compiled, parameters) {
      if (executor !== db) return runDirect(sqlite, compiled.sql, parameters);
      if (!sqlite.inTransaction) {
        const statement = sqlite.prepare(compiled.sql);
        if (statement.reader === true) return { rows: allRows(statement, parameters) };
      }
      return executor.executeQuery({ ...compiled, parameters });
    },
    control(_connection, text) {
      runDirect(sqlite, text, []);
      return undefined;
    },
  };
}

/**
 * Runs `sql` on a SQLite connection's database at once, with the result Kysely's SQLite driver
 * would give: only on a connection nothing else uses meanwhile (a transaction's own).
 */
function runDirect(sqlite: DirectSqlite, sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
  const statement = sqlite.prepare(sql);
  if (statement.reader === true) return { rows: allRows(statement, parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
    rows: [],
  };
}

/** A row maker: an object of a statement's columns from its raw values. */
interface RowMaker {
  make: (values: readonly unknown[]) => Record<string, unknown>;
  /** How many columns it names. */
  width: number;
  /** `schemaChanges` when it was made. */
  made: number;
}

/** Per statement: what makes a row object of its values, or null where better-sqlite3 must. */
const rowMakers = new WeakMap<RawStatement, RowMaker | null>();

/** Schema changes `cachedStatements` has prepared: each one retires every row maker. */
let schemaChanges = 0;
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * The rows of a read, as better-sqlite3's `all` returns them (objects keyed by column), but
 * built in JavaScript from its raw arrays: better-sqlite3 builds each object through V8's C++
 * API, one property at a time, which costs about as much as the read itself (bench/results.md).
 * A maker is generated per statement, for its columns (without `raw`, better-sqlite3 builds
 * the objects), and made anew when the row's width changes or after a schema change prepared
 * through `cachedStatements` (a `select *` then names other columns). The statement is back in
 * object mode before anything else can use it: everything here is synchronous.
 */
export function allRows(statement: RawStatement, parameters: readonly unknown[]): Record<string, unknown>[] {
  let maker = rowMakers.get(statement);
  if (maker === undefined && (typeof statement.raw !== 'function' || typeof statement.columns !== 'function'))
    rowMakers.set(statement, (maker = null));
  if (maker === null) return statement.all(parameters) as Record<string, unknown>[];
  let arrays: unknown[][];
  statement.raw!(true);
  try {
    arrays = statement.all(parameters) as unknown[][];
  } finally {
    statement.raw!(false);
  }
  // Made after the run: SQLite prepares a statement anew, for the schema it finds, when it runs it.
  if (maker === undefined || maker.made !== schemaChanges || (arrays.length > 0 && arrays[0]!.length !== maker.width)) {
    rowMakers.set(statement, (maker = rowMaker(statement as Required<RawStatement>)));
  }
  const rows = new Array<Record<string, unknown>>(arrays.length);
  for (let i = 0; i < arrays.length; i++) rows[i] = maker.make(arrays[i]!);
  return rows;
}

function rowMaker(statement: Required<RawStatement>): RowMaker {
  const names = statement.columns().map((column) => column.name);
  // An object literal of one fixed shape per statement; names are data, each written as a JSON
  // string literal (a column named `__proto__` sets the prototype, as better-sqlite3's objects do).
  const members = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- deliberate: a literal of the statement's own columns, each name a JSON string literal (see above)
  const make = new Function('values', `return { ${members} };`) as RowMaker['make'];
  return { make, width: names.length, made: schemaChanges };
}
