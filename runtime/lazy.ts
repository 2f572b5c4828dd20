/**
 * Lazy stand-ins for the platform's `Request` and `Response`: objects that pass as instances
 * of the platform class (`instanceof`, every method of its prototype) but build the real
 * object only when something needs its internals. Building a `Response` from a string costs a
 * `ReadableStream`, a `Headers` and their bookkeeping (about as much as serving a small
 * document), and a server adapter that knows the stand-in never needs them.
 *
 * It works where the platform keeps an instance's state in symbol-keyed properties (Node's
 * undici does): the stand-in's prototype forwards each of those to the real object. Where it
 * does not (private fields), `forwardSlots` reports false and callers build real objects.
 */

/** What a lazy stand-in implements: building (once) the platform object it stands for. */
export interface Materializable<T extends object> {
  materialize(): T;
}

/**
 * Makes instances of `Lazy` pass as instances of `Platform`: `Lazy.prototype` inherits from
 * `Platform.prototype`, and each symbol-keyed slot a `sample` of the platform class has is
 * forwarded to `materialize()`. `works` then checks a stand-in behaves (copy, clone, read);
 * when it does not, or the platform has no such slots, the prototype is put back and the
 * result is false.
 *
 * @example
 * const LAZY = forwardSlots(NodeRequest, Request, new Request('http://localhost/'), () => probeWorks());
 */
export function forwardSlots<T extends object>(
  Lazy: abstract new (...args: never[]) => Materializable<T>,
  Platform: abstract new (...args: never[]) => T,
  sample: T,
  works: () => boolean,
): boolean {
  const original = Object.getPrototypeOf(Lazy.prototype) as object;
  const slots = Object.getOwnPropertySymbols(sample).filter((slot) => !Object.hasOwn(Lazy.prototype, slot));
  if (slots.length === 0) return false;
  try {
    Object.setPrototypeOf(Lazy.prototype, Platform.prototype);
    for (const slot of slots) {
      Object.defineProperty(Lazy.prototype, slot, {
        configurable: true,
        get(this: Materializable<T>) {
          return (this.materialize() as Record<symbol, unknown>)[slot];
        },
        set(this: Materializable<T>, value: unknown) {
          (this.materialize() as Record<symbol, unknown>)[slot] = value;
        },
      });
    }
    if (works()) return true;
  } catch {
    // fall through: the platform does not take stand-ins
  }
  for (const slot of slots) delete (Lazy.prototype as Record<symbol, unknown>)[slot];
  Object.setPrototypeOf(Lazy.prototype, original);
  return false;
}
