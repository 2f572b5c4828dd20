/** `npx tsx examples/hono/server.ts` (PORT, HOST to change where it listens). */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';

const server = serve(
  { fetch: createApp().fetch, port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? '127.0.0.1' },
  (info: AddressInfo) => {
    console.log(`Listening on http://${info.address}:${info.port}/api/v1/books`);
  },
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
