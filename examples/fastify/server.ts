/** `npx tsx examples/fastify/server.ts` (PORT, HOST to change where it listens). */
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';

const app = createApp();
await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
const { address, port } = app.server.address() as AddressInfo;
console.log(`Listening on http://${address}:${port}/api/v1/books`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
