/**
 * The demo's database: SQLite (better-sqlite3, WAL) in a file, PostgreSQL when given a
 * `postgres://` URL, or MySQL / MariaDB (mysql2) when given a `mysql://` URL. All get the same
 * tables through `migrate()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type ColumnType, type Generated, Kysely, type LogConfig, Migrator, MysqlDialect } from 'kysely';
import mysql from 'mysql2';
import pg from 'pg';
import { type RunnerName, dateTimeText, mysqlPreparedPool, postgresKysely, sqliteKysely } from '@jsonapi-gen/kysely';
import { createMigrations } from './migrations/index.js';

/** A timestamp: written as RFC 3339 text, read back as such (on PostgreSQL through `dateTimeText`; a Date only past its fast path). */
export type Timestamp = ColumnType<string | Date, string, string>;

export interface PeopleTable {
  id: Generated<number>;
  name: string;
  email: string | null;
  created_at: Timestamp;
}

export interface ArticlesTable {
  id: Generated<number>;
  title: string;
  body: string | null;
  status: 'draft' | 'published';
  author_id: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Added by one on every write (optimistic concurrency, `If-Match`). */
  version: Generated<number>;
}

export interface CommentsTable {
  id: Generated<number>;
  body: string;
  author_id: number;
  article_id: number;
  created_at: Timestamp;
}

export interface TagsTable {
  id: Generated<number>;
  name: string;
}

export interface ArticleTagsTable {
  article_id: number;
  tag_id: number;
}

/** The outbox (`outboxMigration` of @jsonapi-gen/kysely): one row per successful write of an article. */
export interface OutboxTable {
  id: Generated<number>;
  action: 'create' | 'update' | 'delete';
  resource_type: string;
  resource_id: string;
  /** The member names written, as a JSON array. */
  changed: string;
  occurred_at: Timestamp;
}

/** The demo's tables, for Kysely. */
export interface Database {
  people: PeopleTable;
  articles: ArticlesTable;
  comments: CommentsTable;
  tags: TagsTable;
  article_tags: ArticleTagsTable;
  jsonapi_outbox: OutboxTable;
}

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

export interface OpenOptions {
  /** A `postgres://` or `mysql://` URL; otherwise SQLite. */
  databaseUrl?: string | undefined;
  /** The SQLite file. Default: a fresh file in a new directory under the OS temp dir, removed by `close()`. */
  file?: string | undefined;
  /** Kysely's `log` option (tests count statements with it); it sees only what Kysely runs. */
  log?: LogConfig;
  /**
   * How the store runs its statements: on the driver directly (`'direct'`), or through Kysely
   * (`'kysely'`). Default: `'direct'`, or `'kysely'` with `log`, which the direct runner refuses.
   */
  runner?: RunnerName;
  /** Called with the SQL of every statement the driver runs, on either runner (tests count statements with it). */
  onStatement?: (sql: string) => void;
}

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where the data lives: the SQLite file, or the database's URL. */
  location: string;
  /** Closes the connections (and removes a temporary SQLite file). */
  close(): Promise<void>;
}

/** How long a SQLite write waits for another connection's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** Opens the demo database. */
export function openDatabase(options: OpenOptions = {}): OpenDatabase {
  const { log, onStatement } = options;
  // The demo runs the store's statements on the driver directly (no per-query Kysely layers),
  // except when asked to log, which needs every statement to go through Kysely.
  const runner: RunnerName = options.runner ?? (log ? 'kysely' : 'direct');
  const config = log ? { log, runner } : { runner };
  if (options.databaseUrl && /^mysql:/i.test(options.databaseUrl)) return openMysql(options.databaseUrl, options);
  if (options.databaseUrl) {
    // Date-times come back as the text responses carry (no Date parsed and printed back); in
    // UTC, the session's wire form is rewritten by slicing.
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      options: '-c TimeZone=UTC',
      types: dateTimeText(pg.types),
    });
    let closing = false;
    // An idle client whose server ends the connection (a restart, a dropped database) emits
    // 'error' on the pool; without a listener that would crash the process. The pool replaces
    // the client; say so unless we are closing anyway.
    pool.on('error', (error) => {
      if (!closing) console.error(`PostgreSQL connection lost: ${error.message}`);
    });
    if (onStatement) pool.on('connect', (client) => traceQueries(client, onStatement));
    // Statements go out named (PostgreSQL parses and plans each once per connection); with the
    // direct runner the store's own run on the pool directly, outside transactions.
    const db = postgresKysely<Database>(pool, config);
    return {
      db,
      dialect: 'postgres',
      location: options.databaseUrl,
      close: () => {
        closing = true;
        return db.destroy();
      },
    };
  }
  let temporary: string | undefined;
  let file = options.file;
  if (!file) {
    temporary = mkdtempSync(join(tmpdir(), 'jsonapi-gen-blog-'));
    file = join(temporary, 'blog.sqlite');
  }
  const sqlite = new SQLite(file);
  if (onStatement) traceStatements(sqlite, onStatement);
  // What can contend: not this process's own requests (Kysely's SQLite driver runs every
  // statement and transaction on one connection, one at a time), but other connections to the
  // same file: another demo on the same --db, the sqlite3 shell, a backup. WAL lets their reads
  // and ours run alongside writes; busy_timeout makes a write wait (up to 5 s) for another
  // connection's write to finish instead of failing at once with SQLITE_BUSY. The wait is
  // synchronous (better-sqlite3), so it also holds this process's other requests: keep other
  // writers' transactions short.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  // With the direct runner, the store's reads outside transactions and everything inside its
  // own transactions run on better-sqlite3 directly.
  const db = sqliteKysely<Database>(sqlite, config);
  return {
    db,
    dialect: 'sqlite',
    location: file,
    close: async () => {
      await db.destroy();
      if (temporary) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

/**
 * MySQL or MariaDB through a mysql2 pool, on Kysely's own runner (there is no direct one for
 * mysql2), a transaction's statements prepared (`mysqlPreparedPool`). Sessions run in UTC and
 * date-times read as RFC 3339 text, so `DATETIME` columns hold UTC instants.
 */
function openMysql(url: string, options: OpenOptions): OpenDatabase {
  const { log, onStatement } = options;
  if (options.runner === 'direct') throw new TypeError("openDatabase: MySQL has no 'direct' runner; use 'kysely'");
  const pool = mysql.createPool({ uri: url, connectionLimit: 10, dateStrings: true, timezone: 'Z' });
  pool.on('connection', (connection) => {
    connection.query("set time_zone = '+00:00'");
    if (onStatement) traceMysql(connection, onStatement);
  });
  const db = new Kysely<Database>({
    dialect: new MysqlDialect({ pool: mysqlPreparedPool(pool) }),
    ...(log && { log }),
  });
  return { db, dialect: 'mysql', location: url, close: () => db.destroy() };
}

/** Calls `onStatement` with the text of every query `connection` runs (`onStatement` of `openDatabase`). */
function traceMysql(connection: mysql.PoolConnection, onStatement: (sql: string) => void): void {
  for (const method of ['query', 'execute'] as const) {
    const run = connection[method].bind(connection) as (...args: unknown[]) => unknown;
    (connection as unknown as Record<typeof method, (...args: unknown[]) => unknown>)[method] = (
      ...args: unknown[]
    ) => {
      const [what] = args;
      onStatement(typeof what === 'string' ? what : String((what as { sql?: unknown }).sql));
      return run(...args);
    };
  }
}

/** Calls `onStatement` with the SQL of every statement `sqlite` prepares, each time it runs (`onStatement` of `openDatabase`). */
function traceStatements(sqlite: SQLite.Database, onStatement: (sql: string) => void): void {
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source) as unknown as Record<
      'all' | 'get' | 'run' | 'iterate',
      (...args: unknown[]) => unknown
    >;
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const run = statement[method];
      statement[method] = function (this: unknown, ...args: unknown[]) {
        onStatement(source);
        return run.apply(this, args);
      };
    }
    return statement;
  }) as unknown as SQLite.Database['prepare'];
}

/** Calls `onStatement` with the text of every query `client` runs (`onStatement` of `openDatabase`). */
function traceQueries(client: pg.PoolClient, onStatement: (sql: string) => void): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [what] = args;
    onStatement(typeof what === 'string' ? what : String((what as { text?: unknown }).text));
    return query(...args);
  };
}

/** Brings the schema up to date (idempotent). */
export async function migrate(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(createMigrations(dialect)) } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a migration may throw anything; what is not an Error is shown as String() shows it
    throw new Error(`migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
