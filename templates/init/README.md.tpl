# {{name}}

A JSON:API server made with [jsonapi-gen](https://www.npmjs.com/package/jsonapi-gen).

    npm install
    npm start            # builds src/generated from src/schema.ts, then serves on $PORT (3000)

- `src/schema.ts`: the resources. Change it, then `npm run build` (or `npm run watch`).
- `src/generated/`: written by the build; commit it. `npm run check` fails when it is stale.
- `src/db.ts`, `src/store.ts`: the SQLite tables and their mapping to the resources.
- `src/server.ts`: the HTTP server; `GET /openapi.json` is the OpenAPI 3.1 document.
