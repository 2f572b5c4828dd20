# The host's CI: the generated code is current, the tests pass, and on a pull request
# `jsonapi-gen diff` compares the schema with the one on the target branch: it lists every
# change for clients, prints the semver verdict and fails on a breaking change (add
# `--allow-breaking` to the command for a release that means to break).
name: api
on:
  push:
  pull_request:
jobs:
  api:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - run: npm ci
      - run: npm run prisma:generate --if-present
      - run: npm run check
      - run: npm test
      - name: What the change does to clients
        if: github.event_name == 'pull_request'
        run: npx jsonapi-gen diff --against origin/${{ github.base_ref }} src/schema.ts
