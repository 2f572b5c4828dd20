/**
 * examples/deno: `Deno.serve(api.fetch)`, run by the real Deno binary from the `deno` npm
 * package (its platform binary comes in an optional dependency, @deno/linux-x64-glibc here),
 * with examples/deno/deno.json mapping `jsonapi-gen` to the sources.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { BIN, ROOT, type Running, adapterSuite, startExample } from './support.js';

let server: Running;
beforeAll(async () => {
  server = await startExample(BIN('deno'), ['run', '--allow-net', '--allow-env', 'server.ts'], {
    cwd: `${ROOT}examples/deno`,
    env: { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
});
afterAll(() => server?.stop());

describe('Deno example', () => {
  adapterSuite(() => server, { outside: 'api' });
});
