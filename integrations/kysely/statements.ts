import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** What `cachedStatements` needs of a better-sqlite3 `Database`. */
export interface PreparingDatabase {
  close(): unknown;
  prepare(sql: string): SqliteStatement & { readonly busy?: boolean };
}

/**
 * Wraps a better-sqlite3 database for Kysely's `SqliteDialect` so that each distinct SQL text
 * is prepared once and reused (Kysely prepares every query anew, which costs about as much as
 * running a point lookup). The runtime's statements are few and parameterized, so a small
 * cache holds them all; the least recently used is dropped past `size`. A statement still
 * busy (an unfinished `stream()`) is never handed out twice: a fresh one is prepared.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedStatements(new SQLite('blog.sqlite')) }) });
 */
export function cachedStatements(database: PreparingDatabase, size = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement & { readonly busy?: boolean }>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached !== undefined) {
        if (cached.busy === true) return database.prepare(sql);
        // Most recently used last, so the first key is the one to drop.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      cache.set(sql, statement);
      if (cache.size > size) cache.delete(cache.keys().next().value!);
      return statement;
    },
  };
}
