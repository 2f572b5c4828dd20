# {{name}}

A JSON:API server made with [jsonapi-gen](https://www.npmjs.com/package/jsonapi-gen), on Drizzle ORM.

    npm install
    npm start            # builds src/generated from src/schema.ts, then serves on $PORT (3000)

- `src/schema.ts`: the resources. Change it, then `npm run build` (or `npm run watch`).
- `src/generated/`: written by the build; commit it. `npm run check` fails when it is stale.
- `src/tables.ts`: the tables as Drizzle tables, with the `relations()` the relationships
  follow; `src/store.ts` maps the resources to them (`defineStore` of `@jsonapi-gen/drizzle`);
  `src/db.ts` opens the SQLite database.
- `drizzle/`: the tables, as SQL migrations that `npm start` runs (`migrate()` in `src/db.ts`,
  with drizzle-orm's migrator, which records them in `__drizzle_migrations`), in drizzle-kit's
  folder layout. To change a table, add the next migration (`drizzle/0002_....sql`, statements
  separated by `--> statement-breakpoint`), add its entry to `drizzle/meta/_journal.json` with
  a later `when`, and change `src/tables.ts` to match; never edit a migration that has run.
- `src/server.ts`: the HTTP server; every write request is one transaction, a POST retried
  with the same `Idempotency-Key` gets the first response again, and a write with `If-Match`
  changes a row only at the version its ETag names. `GET /openapi.json` is the OpenAPI 3.1
  document. A 500 answers nothing of its cause; `onError` logs it on stderr.
- `npm test`: builds, then `src/api.test.ts` serves a request, checks that `src/tables.ts`
  declares the columns the migrations make, and compares the generated OpenAPI document with
  its snapshot. Commit `src/__snapshots__/`: after a schema change,
  `npx vitest run -u` updates it, and the diff in review shows what the change did to the API.
- `vendor/` (when made from a clone of jsonapi-gen): the packed jsonapi-gen packages this host
  installs. Once they are published, depend on the registry instead
  (`npm install jsonapi-gen @jsonapi-gen/drizzle && npm install -D @jsonapi-gen/cli`) and delete it.
