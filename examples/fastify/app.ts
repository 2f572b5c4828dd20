/**
 * JSON:API on Fastify 5 through the Node adapter. The API lives in its own plugin scope, where
 * Fastify's body parsers are replaced by one that reads nothing: the API reads the raw body
 * stream itself (and answers 415 for media types it does not take, rather than Fastify).
 * `reply.hijack()` hands the raw response to the adapter; Fastify's onSend/onResponse hooks do
 * not run for these routes.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { JsonApi } from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
import { createApi } from '../shared/api.js';

export function createApp(api: JsonApi = createApi()): FastifyInstance {
  const app = Fastify();
  app.get('/health', () => ({ ok: true }));
  const handler = toNodeHandler(api);
  app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null));
    scope.all('/api/v1/*', async (request, reply) => {
      reply.hijack();
      await handler(request.raw, reply.raw);
    });
    done();
  });
  return app;
}
