import { JsonApiError } from '../core/errors.js';
import type { Limits } from '../core/limits.js';
import type { HttpRequest } from './request.js';

/** Runs `f` in the next turn of the event loop, after the I/O that is ready (Workers and Deno have no `setImmediate`). */
const nextTurn: (f: () => void) => void =
  typeof setImmediate === 'function' ? (f) => void setImmediate(f) : (f) => void setTimeout(f, 0);

/** A request waiting for its turn. */
interface Waiter {
  cost: number;
  /** Arrival order, to keep equal costs first come, first served. */
  seq: number;
  deadline: number;
  request: HttpRequest;
  start: () => void;
  refuse: (error: unknown) => void;
}

/**
 * The bound on concurrent work of a `JsonApi` (see `Limits`): at most `concurrentRequests`
 * requests are served at once; a request costing more than `heavyCost` starts only when no
 * other heavy one started in the same turn of the event loop, so that requests arriving
 * meanwhile are read between them (a synchronous data layer, such as SQLite's, would otherwise
 * run every request it read in one turn before reading the next). The others wait, cheapest
 * first, at most `queuedRequests` of them and `queueTimeoutMs` each; past that, and for a full
 * queue the most expensive, 503 with `Retry-After`. A waiting request whose client went away
 * is dropped without being started.
 *
 * Not saturated, a request costs a counter increment and decrement (a heavy one, one
 * `setImmediate` a turn); waiting costs a promise and a place in the queue.
 *
 * @example
 * const gate = new RequestGate(DEFAULT_LIMITS);
 * async function inTurn<T>(request: HttpRequest, cost: number, work: () => Promise<T>): Promise<T> {
 *   if (!gate.tryEnter(cost)) await gate.wait(cost, request); // a 503 when the queue is full
 *   try {
 *     return await work();
 *   } finally {
 *     gate.leave();
 *   }
 * }
 */
export class RequestGate {
  readonly #max: number;
  readonly #queueLength: number;
  readonly #timeoutMs: number;
  readonly #heavy: number;
  #running = 0;
  /** Cheapest first, then oldest. */
  readonly #queue: Waiter[] = [];
  #seq = 0;
  /** A heavy request started in this turn of the event loop. */
  #heavyStarted = false;
  #pumpScheduled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(limits: Pick<Limits, 'concurrentRequests' | 'queuedRequests' | 'queueTimeoutMs' | 'heavyCost'>) {
    this.#max = limits.concurrentRequests;
    this.#queueLength = limits.queuedRequests;
    this.#timeoutMs = limits.queueTimeoutMs;
    this.#heavy = limits.heavyCost;
  }

  /** Requests being served. */
  get running(): number {
    return this.#running;
  }

  /** Requests waiting for a turn. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Takes a turn now if one is free (then `leave()` must follow); false: `wait`. */
  tryEnter(cost: number): boolean {
    if (this.#running >= this.#max) return false;
    if (cost > this.#heavy) {
      if (this.#heavyStarted || this.#queue.length > 0) return false;
      this.#heavyStarted = true;
      this.#schedule();
    }
    this.#running++;
    return true;
  }

  /**
   * Resolves when the request's turn comes (then `leave()` must follow); rejects with a 503 when
   * the queue is full or the wait too long, with an `AbortError` when the client went away.
   */
  wait(cost: number, request: HttpRequest): Promise<void> {
    const queue = this.#queue;
    if (queue.length >= this.#queueLength) {
      const last = queue.at(-1);
      if (last === undefined || last.cost <= cost)
        return Promise.reject(this.#busy(`${queue.length} requests are waiting already`));
      // The newcomer is cheaper than the most expensive waiting request: that one gives way.
      queue.pop();
      last.refuse(this.#busy(`${queue.length + 1} requests are waiting, all cheaper than this one`));
    }
    return new Promise<void>((start, refuse) => {
      const waiter: Waiter = { cost, seq: this.#seq++, deadline: Date.now() + this.#timeoutMs, request, start, refuse };
      let i = queue.length;
      while (i > 0 && queue[i - 1]!.cost > cost) i--;
      queue.splice(i, 0, waiter);
      this.#schedule();
    });
  }

  /** Ends a turn `tryEnter` or `wait` gave. */
  leave(): void {
    this.#running--;
    if (this.#queue.length > 0) this.#schedule();
  }

  #schedule(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    nextTurn(this.#pump);
  }

  /** A new turn of the event loop: drops the expired and abandoned waiters, then starts what it may. */
  readonly #pump = (): void => {
    this.#pumpScheduled = false;
    this.#heavyStarted = false;
    const queue = this.#queue;
    if (queue.length === 0) return;
    const now = Date.now();
    for (let i = queue.length - 1; i >= 0; i--) {
      const waiter = queue[i]!;
      if (waiter.request.aborted) {
        queue.splice(i, 1);
        waiter.refuse(new DOMException('The client went away while the request waited for its turn', 'AbortError'));
      } else if (waiter.deadline <= now) {
        queue.splice(i, 1);
        waiter.refuse(this.#busy(`the request waited ${this.#timeoutMs} ms for its turn`));
      }
    }
    while (queue.length > 0 && this.#running < this.#max) {
      const next = queue[0]!;
      if (next.cost > this.#heavy) {
        if (this.#heavyStarted) break;
        this.#heavyStarted = true;
      }
      queue.shift();
      this.#running++;
      next.start();
    }
    if (queue.length === 0) return;
    // Another heavy request may start next turn; with every turn taken, one leaving schedules the
    // next pump, and the timer refuses whoever waits too long meanwhile.
    if (this.#running < this.#max || this.#heavyStarted) this.#schedule();
    if (this.#timer === undefined) {
      const first = Math.min(...queue.map((w) => w.deadline));
      this.#timer = setTimeout(
        () => {
          this.#timer = undefined;
          this.#schedule();
        },
        Math.max(0, first - now) + 1,
      );
      // A waiting request does not keep the process alive by itself.
      this.#timer.unref?.();
    }
  };

  #busy(why: string): JsonApiError {
    return new JsonApiError(503, {
      detail: `The server is busy (${why}); retry in a second`,
      code: 'server_busy',
      meta: { concurrentRequests: this.#max, queuedRequests: this.#queueLength },
      headers: { 'retry-after': '1' },
    });
  }
}
