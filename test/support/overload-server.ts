/**
 * The blog demo in a process of its own, for test/security/overload-load.test.ts: seeded with
 * `argv[2]` articles, on SQLite, or on the PostgreSQL database `argv[3]` names; default limits. It sends `{ url }` over IPC once it listens, answers
 * `'rss'` with `{ rss }` (its resident set after full collections, when run with --expose-gc)
 * and `'cpu'` with `{ cpu }` (its CPU time so far, µs), and stops on `'stop'`.
 */
import { startDemo } from '../../examples/blog/server.js';

const demo = await startDemo({ port: 0, seed: Number(process.argv[2] ?? 1000), databaseUrl: process.argv[3] ?? null });
const send = (message: unknown) => process.send!(message);
send({ url: demo.url });
process.on('message', (message) => {
  if (message === 'rss') void settledRss().then((rss) => send({ rss }));
  else if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ cpu: user + system });
  } else if (message === 'stop') void demo.close().then(() => process.exit(0));
});

async function settledRss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return process.memoryUsage.rss();
}
