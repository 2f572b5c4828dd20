/**
 * JSON:API on Bun: `api.fetch` is a Fetch handler, so Bun serves it as is.
 * `bun examples/bun/server.ts` (Bun runs TypeScript and reads the repo's tsconfig `paths`;
 * in your app, `bun add jsonapi-gen`). PORT, HOST to change where it listens.
 */
import { createApi } from '../shared/api.js';

// Bun's global, for type checkers without bun-types; drop this with `@types/bun` installed.
declare const Bun: {
  serve(options: { port: number; hostname: string; fetch: (request: Request) => Promise<Response> }): {
    url: URL;
    stop(): void;
  };
};

const api = createApi();
const server = Bun.serve({
  port: Number(process.env.PORT ?? 3000),
  hostname: process.env.HOST ?? '127.0.0.1',
  fetch: api.fetch,
});
console.log(`Listening on ${new URL('api/v1/books', server.url)}`);
