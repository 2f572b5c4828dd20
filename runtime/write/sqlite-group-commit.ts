/**
 * SQLite write transactions of one connection, one group at a time, as the SQL stores run them:
 * each begun with `BEGIN IMMEDIATE` (the write lock first, so that with a busy_timeout a write
 * waits for another process's write rather than failing later with SQLITE_BUSY), first come
 * first served, and those that wait committed together (group commit): each runs in a savepoint
 * of one SQLite transaction, which commits once for all of them. A commit waits for the disk
 * (fsync), so with many writes at once, sharing it multiplies write throughput. Each still
 * succeeds or fails alone (a failure rolls back to its savepoint; where SQLite rolls the whole
 * transaction back, the others run again), and none resolves before the commit that made it
 * durable; if the commit fails, all of them reject.
 */

/** Runs `f` in the next turn of the event loop, after the I/O that is ready (Workers and Deno have no `setImmediate`). */
const nextTurn: (f: () => void) => void =
  typeof setImmediate === 'function' ? (f) => void setImmediate(f) : (f) => void setTimeout(f, 0);

/**
 * Runs `text` (`begin immediate`, `savepoint jsonapi_gen`, `commit`, ...) on the connection a
 * group holds; undefined when it ran at once (a synchronous driver).
 */
export type SqliteControl = (text: string) => Promise<unknown> | undefined;

/**
 * Holds the store's one SQLite connection for `run` (a group's transaction and its members'
 * work), giving it the connection and how to run control statements on it.
 */
export type HoldConnection<C> = (run: (connection: C, control: SqliteControl) => Promise<void>) => Promise<void>;

/** A transaction waiting for its turn, and what to settle once it has committed (or failed). */
interface Member<C> {
  fn: (connection: C) => Promise<unknown>;
  /** Commits on its own, not together with others. */
  alone: boolean;
  resolve: (result: unknown) => void;
  reject: (thrown: unknown) => void;
}

/** The most transactions one commit takes: the first of them waits for the others' work. */
const GROUP_COMMIT_LIMIT = 16;

/**
 * The write transactions of one SQLite connection (see the module comment). `hold` takes the
 * connection for one group; the stores' transaction functions call `run` for each transaction.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * const client = new SQLite('blog.sqlite');
 * const control = (text: string) => void client.exec(text);
 * const groups = new SqliteGroupCommit<SQLite.Database>((run) => run(client, control));
 * const id = await groups.run(async (c) => c.prepare('insert into tags (name) values (?)').run('sqlite').lastInsertRowid);
 */
export class SqliteGroupCommit<C> {
  readonly #hold: HoldConnection<C>;
  readonly #waiting: Member<C>[] = [];
  #draining = false;

  constructor(hold: HoldConnection<C>) {
    this.#hold = hold;
  }

  /**
   * Runs `fn` in its turn, in a savepoint of the group's transaction, and resolves with what it
   * resolved with once that transaction has committed. `alone`: commit this one on its own (for
   * a transaction that relies on a deferred constraint, whose failure at the commit fails
   * every transaction of that commit). Callers that need the caller's async context kept bind
   * `fn` to it first (`AsyncResource.bind`): the group runs it from whoever drains the queue.
   */
  run<T>(fn: (connection: C) => Promise<T>, alone = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ fn, alone, resolve: resolve as Member<C>['resolve'], reject });
      if (!this.#draining) void this.#drain();
    });
  }

  /** Runs the waiting transactions, a group at a time, until none is left. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#waiting.length > 0) await this.#hold((connection, control) => this.#group(connection, control));
    } catch (thrown) {
      // Taking the connection failed (the database was closed): nobody waiting can run.
      for (const member of this.#waiting.splice(0)) member.reject(thrown);
    } finally {
      this.#draining = false;
    }
  }

  /** One SQLite transaction for the transactions waiting (as many as join while it runs, up to the limit). */
  async #group(connection: C, raw: SqliteControl): Promise<void> {
    const waiting = this.#waiting;
    /** Members whose work is in the open transaction, with their results, to settle at its end. */
    let done: Array<[Member<C>, unknown]> = [];
    let open = false;
    /** Ends the open transaction: commits it (or, given what went wrong, rolls it back) and settles its members. */
    const end = async (thrown?: unknown) => {
      const members = done;
      done = [];
      open = false;
      try {
        await raw(thrown === undefined ? 'commit' : 'rollback');
      } catch (failed) {
        thrown ??= failed;
        await Promise.resolve()
          .then(() => raw('rollback'))
          .catch(() => undefined);
      }
      for (const [member, result] of members) {
        if (thrown === undefined) member.resolve(result);
        else member.reject(thrown);
      }
    };
    try {
      let taken = 0;
      let yielded = false;
      while (taken < GROUP_COMMIT_LIMIT) {
        if (waiting.length === 0) {
          // Requests that arrived meanwhile reach their transaction in this turn of the event loop's
          // I/O: let them, once, so that they share this commit rather than each wait for its own.
          if (yielded || !open) break;
          await new Promise<void>((resolve) => nextTurn(resolve));
          yielded = true;
          continue;
        }
        // One that commits alone starts a group of its own, after what is open has committed.
        if (waiting[0]!.alone && taken > 0) break;
        yielded = false;
        taken++;
        const member = waiting.shift()!;
        try {
          if (!open) {
            await raw('begin immediate');
            open = true;
          }
          await raw('savepoint jsonapi_gen');
        } catch (thrown) {
          member.reject(thrown);
          continue;
        }
        try {
          const result = await member.fn(connection);
          await raw('release jsonapi_gen');
          done.push([member, result]);
          if (member.alone) break;
        } catch (thrown) {
          try {
            await raw('rollback to jsonapi_gen');
            await raw('release jsonapi_gen');
          } catch {
            // SQLite rolled the whole transaction back (some errors do: a trigger's RAISE(ROLLBACK),
            // a full disk): the members before this one lost their work too. None was answered yet,
            // so they run again, first, in a new transaction.
            const lost = done.map(([earlier]) => earlier);
            done = [];
            open = false;
            await Promise.resolve()
              .then(() => raw('rollback'))
              .catch(() => undefined);
            waiting.unshift(...lost);
          }
          member.reject(thrown);
        }
      }
    } finally {
      if (open) await end();
    }
  }
}
