/** `npx tsx examples/express/server.ts` (PORT, HOST to change where it listens). */
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';

const server = createApp().listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`Listening on http://${address}:${port}/api/v1/books`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
