/**
 * `build --watch`: builds, then rebuilds whenever a source file in the schema's directory
 * changes (the schema and the modules next to it; editors that save by renaming included),
 * until SIGINT or SIGTERM. One build at a time; changes during a build queue one more.
 */
import { type FSWatcher, watch as watchFs } from 'node:fs';
import { dirname, resolve } from 'node:path';

const SOURCE = /\.(?:[cm]?[jt]sx?|json)$/;

export interface Watching {
  /** Resolves when watching stops (a signal, or `stop()`). */
  readonly done: Promise<void>;
  stop(): void;
}

/** Runs `rebuild` now and after every change; `rebuild` reports its own results and errors. */
export function watchSchema(
  schema: string,
  rebuild: () => Promise<unknown>,
  options: { debounceMs?: number; signals?: boolean } = {},
): Watching {
  const dir = dirname(resolve(schema));
  const debounce = options.debounceMs ?? 100;
  let running: Promise<void> | undefined;
  let pending = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const run = (): void => {
    if (stopped) return;
    if (running) {
      pending = true;
      return;
    }
    running = rebuild()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        running = undefined;
        if (pending) {
          pending = false;
          run();
        }
      });
  };

  const watcher: FSWatcher = watchFs(dir, { persistent: true }, (_event, file) => {
    if (file !== null && !SOURCE.test(String(file))) return;
    clearTimeout(timer);
    timer = setTimeout(run, debounce);
  });

  let finish!: () => void;
  const done = new Promise<void>((resolveDone) => (finish = resolveDone));
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    watcher.close();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    void (running ?? Promise.resolve()).then(finish);
  };
  watcher.on('error', stop);
  if (options.signals !== false) {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  run();
  return { done, stop };
}
