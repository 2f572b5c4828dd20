/**
 * examples/bun: `Bun.serve({ fetch: api.fetch })`, run by the real Bun binary from the `bun`
 * npm package (its platform binary comes in an optional dependency, @oven/bun-linux-x64 here).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { BIN, type Running, adapterSuite, startExample } from './support.js';

let server: Running;
beforeAll(async () => {
  server = await startExample(BIN('bun'), ['examples/bun/server.ts']);
});
afterAll(() => server?.stop());

describe('Bun example', () => {
  adapterSuite(() => server, { outside: 'api' });
});
