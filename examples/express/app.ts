/**
 * JSON:API on Express 5 through the Node adapter. `app.use('/api/v1', ...)` strips the mount
 * path from `req.url`; `toNodeHandler` reads `req.originalUrl`, so the API (created with
 * `basePath: '/api/v1'`) sees the full path and its links carry it.
 *
 * `express.json()` only parses `application/json`, so JSON:API bodies
 * (`application/vnd.api+json`) reach the API untouched. To pass the signed-in user:
 * `toNodeHandler(api, { attributes: (req) => ({ user: req.user }) })` (what your auth middleware
 * put on the request).
 */
import express, { type Express } from 'express';
import type { JsonApi } from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
import { createApi } from '../shared/api.js';

export function createApp(api: JsonApi = createApi()): Express {
  const app = express();
  app.use(express.json()); // for the app's other routes
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  app.use('/api/v1', toNodeHandler(api));
  return app;
}
