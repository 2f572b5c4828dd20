/**
 * A SQLite driver adapter made fit for a server: date-times bound as `…Z` text
 * (`zuluDateTimes`), the bind limit of the SQLite it runs on reported to Prisma, and every
 * transaction holding the write lock from its start.
 */
import { type Adapter, type AdapterFactory, type Queryable, type Statement, zuluDateTimes } from './sqlite-dates.js';

/**
 * How many values one statement binds at most on the SQLite that better-sqlite3 bundles
 * (SQLite's `SQLITE_MAX_VARIABLE_NUMBER` default since 3.32). Prisma assumes 999 for SQLite
 * when its adapter does not say.
 */
export const SQLITE_MAX_BIND_VALUES = 32766;

/** What Prisma reads of a connection (`ConnectionInfo` of `@prisma/driver-adapter-utils`). */
interface ConnectionInfo {
  readonly supportsRelationJoins: boolean;
  readonly maxBindValues?: number;
}

const statement = (text: string): Statement => ({ sql: text, args: [], argTypes: [] });

/** `adapter`, reporting the bind limit and starting its transactions with the write lock taken. */
function serverReady(adapter: Adapter & { getConnectionInfo?(): ConnectionInfo }): Adapter {
  const info = adapter.getConnectionInfo?.bind(adapter);
  adapter.getConnectionInfo = () => ({
    ...(info?.() ?? { supportsRelationJoins: false }),
    maxBindValues: SQLITE_MAX_BIND_VALUES,
  });
  const start = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (...args: unknown[]): Promise<Queryable> => {
    const transaction = (await start(...args)) as Queryable & { rollback(): Promise<void> };
    // The adapter began with a deferred BEGIN, which takes no lock yet: a transaction that
    // reads first could not wait for the write lock later (SQLITE_BUSY at once). Begun again
    // IMMEDIATE, it waits here, up to the busy timeout, for another connection's write.
    try {
      await transaction.executeRaw(statement('ROLLBACK'));
      await transaction.executeRaw(statement('BEGIN IMMEDIATE'));
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    return transaction;
  };
  return adapter;
}

/**
 * Wraps a SQLite driver adapter (`new PrismaBetterSqlite3(...)`) for serving requests:
 * date-times bound as `toISOString()`'s `…Z` text (see `zuluDateTimes`); the bind limit of the
 * SQLite better-sqlite3 bundles (`SQLITE_MAX_BIND_VALUES`) reported to Prisma, which otherwise
 * refuses a statement of more than 999 values; and every interactive transaction begun
 * `IMMEDIATE`, so that writers from several processes on one file wait their turn (the busy
 * timeout) rather than fail with SQLITE_BUSY. It changes the factory it is given and returns it.
 *
 * @example
 * import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
 * import { PrismaClient } from './generated/sqlite/client.js';
 * const prisma = new PrismaClient({ adapter: sqliteAdapter(new PrismaBetterSqlite3({ url: 'file:blog.sqlite', timeout: 5000 })) });
 */
export function sqliteAdapter<F extends object>(factory: F): F {
  const connectable = zuluDateTimes(factory) as unknown as AdapterFactory;
  const connect = connectable.connect.bind(factory);
  connectable.connect = async () => serverReady(await connect());
  return factory;
}
