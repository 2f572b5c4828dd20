/**
 * Which MySQL-protocol server the store talks to, where that changes its statements: MariaDB
 * 10.5 and later answer `insert ... returning *` (the row as stored, defaults included), so a
 * create needs no read-back by key; MySQL 8 has no `returning`. The server's `version()` is
 * read once per database.
 */
import { type Kysely, sql } from 'kysely';
import type { AnyDatabase } from './any-database.js';

/**
 * Whether the server whose `version()` is `version` answers `insert ... returning`: MariaDB
 * 10.5 and later (`10.11.19-MariaDB-0+deb12u1`, `11.4.2-MariaDB`), not MySQL (`8.0.36`).
 *
 * @example
 * insertReturning('10.11.19-MariaDB-0+deb12u1'); // true
 * insertReturning('8.0.36'); // false
 */
export function insertReturning(version: string): boolean {
  // The MariaDB number is the one just before `-MariaDB` (an old handshake put `5.5.5-` in front).
  const match = /(\d+)\.(\d+)\.\d+-MariaDB/i.exec(version);
  if (!match) return false;
  const major = Number(match[1]);
  return major > 10 || (major === 10 && Number(match[2]) >= 5);
}

const returning = new WeakMap<Kysely<AnyDatabase>, Promise<boolean>>();

/**
 * Whether `db`'s server answers `insert ... returning` (`insertReturning` of its `version()`),
 * read once (a failed read is tried again next time) on `on`: the write's transaction, since a
 * transaction waiting for another connection of the pool would wait forever once every
 * connection is held by a transaction doing the same.
 *
 * @example
 * import { db } from './db.js';
 * if (await mysqlInsertReturning(db)) console.log('MariaDB: no read-back after an insert');
 */
export function mysqlInsertReturning(db: Kysely<AnyDatabase>, on: Kysely<AnyDatabase> = db): Promise<boolean> {
  let known = returning.get(db);
  if (known === undefined) {
    known = sql<{ version: string }>`select version() as version`
      .execute(on)
      .then(({ rows }) => insertReturning(String(rows[0]?.version ?? '')));
    const reading = known;
    // Forgotten if it fails (read again next time), unless something else was said meanwhile.
    reading.catch(() => {
      if (returning.get(db) === reading) returning.delete(db);
    });
    returning.set(db, known);
  }
  return known;
}

/**
 * Overrides what `db`'s `version()` says about `insert ... returning` (undefined: reads it again):
 * for a proxy in front of the server whose version misleads, and to run MySQL 8's path, the
 * read-back by key, on MariaDB.
 *
 * @example
 * import { db } from './db.js';
 * assumeInsertReturning(db, false); // every create reads its row back by key
 */
export function assumeInsertReturning<DB>(db: Kysely<DB>, answer: boolean | undefined): void {
  const key = db as unknown as Kysely<AnyDatabase>;
  if (answer === undefined) returning.delete(key);
  else returning.set(key, Promise.resolve(answer));
}
