/** examples/fastify: Fastify 5, the API in a plugin scope with a pass-through body parser and `reply.hijack()`. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { json, jsonError } from '../support/validate.js';
import { BIN, JSON_API, type Running, adapterSuite, startExample } from './support.js';

let server: Running;
beforeAll(async () => {
  server = await startExample(BIN('tsx'), ['examples/fastify/server.ts']);
});
afterAll(() => server?.stop());

describe('Fastify example', () => {
  adapterSuite(() => server, { outside: 'framework' });

  test("the app's own routes still answer beside the API", async () => {
    const response = await fetch(`${server.origin}/health`);
    expect(await response.json()).toEqual({ ok: true });
  });

  test('a chunked request body (no Content-Length) reaches the API', async () => {
    const parts = ['{"data":{"type":"authors",', '"attributes":{"name":"N. K. Jemisin"}}}'];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await fetch(`${server.origin}/api/v1/authors`, {
      method: 'POST',
      headers: { accept: JSON_API, 'content-type': JSON_API },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(201);
    expect((await json(response)).data.attributes).toEqual({ name: 'N. K. Jemisin' });
  });

  test("media types Fastify has parsers for (application/json, text/plain) get the API's 415, not Fastify's", async () => {
    for (const type of ['application/json', 'text/plain', 'application/xml']) {
      const response = await fetch(`${server.origin}/api/v1/books`, {
        method: 'POST',
        headers: { accept: JSON_API, 'content-type': type },
        body: '{"data":{}}',
      });
      const doc = await jsonError(response, 415);
      expect(doc.errors[0].detail).toContain(type);
    }
  });
});
