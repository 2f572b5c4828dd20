/** examples/express: Express 5, the API mounted with `app.use('/api/v1', toNodeHandler(api))`. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { jsonError } from '../support/validate.js';
import { BIN, JSON_API, type Running, adapterSuite, startExample } from './support.js';

let server: Running;
beforeAll(async () => {
  server = await startExample(BIN('tsx'), ['examples/express/server.ts']);
});
afterAll(() => server?.stop());

describe('Express example', () => {
  adapterSuite(() => server, { outside: 'framework' });

  test("the app's own routes still answer beside the API", async () => {
    const response = await fetch(`${server.origin}/health`);
    expect(await response.json()).toEqual({ ok: true });
  });

  test("a body express.json() already parsed (Content-Type: application/json) still gets the API's 415, not a hang", async () => {
    const response = await fetch(`${server.origin}/api/v1/books`, {
      method: 'POST',
      headers: { accept: JSON_API, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'books', attributes: { title: 'x' } } }),
      signal: AbortSignal.timeout(5_000),
    });
    const doc = await jsonError(response, 415);
    expect(doc.errors[0].detail).toContain('application/json');
  });
});
