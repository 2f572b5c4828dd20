import { type DatabaseConnection, type QueryResult, SqliteDialect, type SqliteDialectConfig, type SqliteDatabase, type SqliteStatement } from 'kysely';

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
 * const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedStatements(new SQLite('blog.sqlite')) }) });
 */
export function cachedStatements(database: PreparingDatabase, size = 500): SqliteDatabase {
  /** Oldest first; `used`: hit since the clock last passed it. */
  const cache = new Map<string, { statement: SqliteStatement & { readonly busy?: boolean }; used: boolean }>();
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
        if (cached.statement.busy === true) return database.prepare(sql);
        cached.used = true;
        return cached.statement;
      }
      const statement = database.prepare(sql);
      cache.set(sql, { statement, used: false });
      if (cache.size > size) evict(sql);
      return statement;
    },
  };
}

/** What `sqliteDialect` needs of a better-sqlite3 `Database`: `cachedStatements`'s, and whether a transaction is open. */
export interface DirectDatabase extends PreparingDatabase {
  readonly inTransaction: boolean;
}

/** A SQLite connection's database, for reads the Kysely store runs on it directly. */
export interface DirectSqlite {
  /** The cached statement of `sql`. */
  prepare(sql: string): SqliteStatement & { readonly reader?: boolean };
  /** Whether a transaction is open on the connection (then only Kysely, which waits for it, may run statements). */
  readonly inTransaction: boolean;
}

const direct = new WeakMap<DatabaseConnection, DirectSqlite>();

/**
 * Kysely's `SqliteDialect` on a better-sqlite3 database, with `cachedStatements`, and known to
 * the Kysely store: outside transactions, a read the store has compiled once runs on the
 * database directly and synchronously, without Kysely's per-query layers (a mutex and a dozen
 * promises around a call that takes microseconds). Inside the transactions `withTransaction`
 * runs, `begin`, `commit` and those statements run on the database directly too (the
 * transaction holds the connection). A read from outside while a transaction is open, and
 * everything while Kysely's `log` is on (so that every statement is logged), goes through Kysely.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * const db = new Kysely<Database>({ dialect: sqliteDialect(new SQLite('blog.sqlite')) });
 */
export function sqliteDialect(database: DirectDatabase, config: Omit<SqliteDialectConfig, 'database'> = {}): SqliteDialect {
  const statements = cachedStatements(database);
  return new SqliteDialect({
    ...config,
    database: statements,
    onCreateConnection: async (connection) => {
      direct.set(connection, {
        prepare: statements.prepare,
        get inTransaction() {
          return database.inTransaction;
        },
      });
      await config.onCreateConnection?.(connection);
    },
  });
}

/** The database under a connection `sqliteDialect` made, when Kysely does not log its queries (it would not see these). */
export function directSqlite(connection: DatabaseConnection): DirectSqlite | undefined {
  // Kysely's `log` wraps each connection's executeQuery in one of its own.
  return Object.hasOwn(connection, 'executeQuery') ? undefined : direct.get(connection);
}

/**
 * Runs `sql` on a SQLite connection's database at once, with the result Kysely's SQLite driver
 * would give: only on a connection nothing else uses meanwhile (a transaction's own).
 */
export function runDirect(sqlite: DirectSqlite, sql: string, parameters: readonly unknown[]): QueryResult<any> {
  const statement = sqlite.prepare(sql);
  if (statement.reader === true) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
    rows: [],
  };
}
