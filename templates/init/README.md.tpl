# {{name}}

A JSON:API server made with [jsonapi-gen](https://www.npmjs.com/package/jsonapi-gen).

    npm install
    npm start            # builds src/generated from src/schema.ts, then serves on $PORT (3000)

- `src/schema.ts`: the resources. Change it, then `npm run build` (or `npm run watch`).
- `src/generated/`: written by the build; commit it. `npm run check` fails when it is stale.
- `src/db.ts`, `src/store.ts`: the SQLite database and the tables' mapping to the resources.
- `src/migrations/`: the tables, as Kysely migrations that `npm start` runs (`migrate()` in
  `src/db.ts`, with Kysely's `Migrator`). To change a table, add the next migration
  (`0002_...ts`), list it in `src/migrations/index.ts` and update `Database` in `src/db.ts`;
  never edit a migration that has run.
- `src/server.ts`: the HTTP server; `GET /openapi.json` is the OpenAPI 3.1 document. A 500
  answers nothing of its cause; `onError` logs it on stderr.
- `npm test`: builds, then `src/api.test.ts` serves a request and compares the generated
  OpenAPI document with its snapshot. Commit `src/__snapshots__/`: after a schema change,
  `npx vitest run -u` updates it, and the diff in review shows what the change did to the API.
- `vendor/` (when made from a clone of jsonapi-gen): the packed jsonapi-gen packages this host
  installs. Once they are published, depend on the registry instead
  (`npm install jsonapi-gen @jsonapi-gen/kysely && npm install -D @jsonapi-gen/cli`) and delete it.
