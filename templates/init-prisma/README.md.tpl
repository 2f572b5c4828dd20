# {{name}}

A JSON:API server made with [jsonapi-gen](https://www.npmjs.com/package/jsonapi-gen), on Prisma.

    npm install
    npm run prisma:generate   # the Prisma client of prisma/schema.prisma, into prisma/generated/
    npm start                 # builds src/generated from src/schema.ts, then serves on $PORT (3000)

`npm run prisma:generate` runs `prisma generate` offline: Prisma's CLI otherwise downloads a
schema engine first, which generating does not use. With internet, `npx prisma generate` does
the same. Run it again after each change to prisma/schema.prisma.

- `src/schema.ts`: the resources. Change it, then `npm run build` (or `npm run watch`).
- `src/generated/`: written by the build; commit it. `npm run check` fails when it is stale.
- `prisma/schema.prisma`: the tables as Prisma models; `src/store.ts` maps the resources to
  them (`defineStore` of `@jsonapi-gen/prisma`); `src/db.ts` opens the SQLite database.
- `src/migrations/`: the tables, as Kysely migrations that `npm start` runs (`migrate()` in
  `src/db.ts`, with Kysely's `Migrator`), not `prisma migrate`. To change a table, add the
  next migration (`0003_...ts`), list it in `src/migrations/index.ts`, change the model in
  `prisma/schema.prisma` to match and generate the client again; never edit a migration that
  has run.
- `src/server.ts`: the HTTP server; every write request is one Prisma transaction, and a POST
  retried with the same `Idempotency-Key` gets the first response again. `GET /openapi.json`
  is the OpenAPI 3.1 document. A 500 answers nothing of its cause; `onError` logs it on stderr.
- `npm test`: builds, then `src/api.test.ts` serves a request and compares the generated
  OpenAPI document with its snapshot. Commit `src/__snapshots__/`: after a schema change,
  `npx vitest run -u` updates it, and the diff in review shows what the change did to the API.
- `vendor/` (when made from a clone of jsonapi-gen): the packed jsonapi-gen packages this host
  installs. Once they are published, depend on the registry instead
  (`npm install jsonapi-gen @jsonapi-gen/prisma && npm install -D @jsonapi-gen/cli`) and delete it.
