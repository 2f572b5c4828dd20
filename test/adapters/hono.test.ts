/** examples/hono: Hono on @hono/node-server, the API mounted with `app.all('/api/v1/*')`. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, type Running, adapterSuite, startExample } from './support.js';

let server: Running;
beforeAll(async () => {
  server = await startExample(BIN('tsx'), ['examples/hono/server.ts']);
});
afterAll(() => server?.stop());

describe('Hono example', () => {
  adapterSuite(() => server, { outside: 'framework' });

  test("the app's own routes still answer beside the API", async () => {
    const response = await fetch(`${server.origin}/health`);
    expect(await response.json()).toEqual({ ok: true });
  });
});
