import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Tests import the package by its published names, served from the TypeScript sources.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^jsonapi-gen$/, replacement: here('./runtime/index.ts') },
      { find: /^jsonapi-gen\/node$/, replacement: here('./runtime/adapters/node.ts') },
      { find: /^jsonapi-gen\/internal$/, replacement: here('./runtime/internal.ts') },
      { find: /^@jsonapi-gen\/kysely$/, replacement: here('./integrations/kysely/index.ts') },
      { find: /^@jsonapi-gen\/prisma$/, replacement: here('./integrations/prisma/index.ts') },
      { find: /^@jsonapi-gen\/drizzle$/, replacement: here('./integrations/drizzle/index.ts') },
      { find: /^@jsonapi-gen\/opentelemetry$/, replacement: here('./integrations/opentelemetry/index.ts') },
    ],
  },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', 'generator/templates/**', '**/.tmp/**'],
    testTimeout: 20_000,
    hookTimeout: 120_000,
    globalSetup: ['./test/support/postgres.ts', './test/support/mysql.ts', './test/support/prisma-clients.ts'],
  },
});
