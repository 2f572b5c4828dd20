/**
 * examples/nextjs: the App Router catch-all route `app/api/v1/[...path]/route.ts`, served by
 * `next dev --webpack` (webpack because the repository's TypeScript sources import './x.js',
 * which Turbopack cannot map to './x.ts' yet). The first request compiles the route, so
 * beforeAll makes it. Next's generated `.next/` and `next-env.d.ts` are removed afterwards.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { BIN, ROOT, type Running, adapterSuite, freePort, startExample } from './support.js';

const DIR = `${ROOT}examples/nextjs`;
let server: Running;

beforeAll(async () => {
  const port = await freePort();
  server = await startExample(BIN('next'), ['dev', '--webpack', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: DIR,
    env: { NEXT_TELEMETRY_DISABLED: '1' },
    ready: /Ready in/,
    origin: `http://127.0.0.1:${port}`,
    timeoutMs: 60_000,
  });
  // Compiles the route (a few seconds on two cores).
  const warm = await fetch(`${server.origin}/api/v1/authors`);
  expect(warm.status, server.output()).toBe(200);
  await warm.arrayBuffer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(`${DIR}/.next`, { recursive: true, force: true });
  rmSync(`${DIR}/next-env.d.ts`, { force: true });
});

describe('Next.js example', () => {
  adapterSuite(() => server, { outside: 'framework', exactOrigin: false });
});
