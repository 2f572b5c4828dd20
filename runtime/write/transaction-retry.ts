/**
 * Running a request's transaction again when the database aborted it for a conflict with
 * another one: what the `transaction` option of the SQL stores shares.
 */

/** How many times a request's transaction runs at most when the database aborts it for a conflict. */
const RETRIES = 4;

/** How a store tells what its transaction threw. */
export interface RetryRules {
  /** What to throw in place of `thrown` (e.g. the 503 of a database that is away); `thrown` itself to go on. */
  replace(thrown: unknown): unknown;
  /** Whether running the transaction again may succeed (a serialization failure, a deadlock). */
  retryable(thrown: unknown): boolean;
}

/**
 * Runs `attempt` (one whole transaction) until it resolves, at most 4 times: again only when
 * it threw what `rules.retryable` accepts (it was rolled back entirely, so running the request
 * again is safe), after a short jittered wait; anything `rules.replace` maps is thrown at once.
 *
 * @example
 * declare const transaction: () => Promise<void>;
 * await retryConflicts(transaction, { replace: (thrown) => thrown, retryable: () => false });
 */
export async function retryConflicts<T>(attempt: () => Promise<T>, rules: RetryRules): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      const mapped = rules.replace(error);
      if (mapped !== error) throw mapped;
      if (round >= RETRIES || !rules.retryable(error)) throw error;
      // A little jitter keeps the transactions that collided from colliding again in step.
      await new Promise((resolve) => setTimeout(resolve, round * 5 + Math.random() * 10));
    }
  }
}
