/**
 * JSON:API on Deno: `api.fetch` is a Fetch handler, so `Deno.serve` takes it as is.
 * `cd examples/deno && deno run --allow-net --allow-env server.ts` (deno.json maps
 * `jsonapi-gen` to the sources here; in your app, `deno add npm:jsonapi-gen`).
 * PORT, HOST to change where it listens.
 */
import { createApi } from '../shared/api.js';

// Deno's global, for type checkers other than `deno check`.
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { port: number; hostname: string; onListen(address: { hostname: string; port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
};

const api = createApi();
Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 3000),
    hostname: Deno.env.get('HOST') ?? '127.0.0.1',
    onListen: ({ hostname, port }) => console.log(`Listening on http://${hostname}:${port}/api/v1/books`),
  },
  api.fetch,
);
