/**
 * JSON:API on Hono: the API answers everything under /api/v1; Hono routes the rest.
 * `c.req.raw` is the Fetch Request, and `api.fetch` returns a Fetch Response, so nothing is
 * converted. To pass the signed-in user: `api.fetch(c.req.raw, { attributes: { user: c.get('user') } })`.
 */
import { Hono } from 'hono';
import type { JsonApi } from 'jsonapi-gen';
import { createApi } from '../shared/api.js';

export function createApp(api: JsonApi = createApi()): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true }));
  app.all('/api/v1/*', (c) => api.fetch(c.req.raw));
  return app;
}
