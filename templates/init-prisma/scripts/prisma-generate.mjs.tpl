/**
 * `npm run prisma:generate`: `prisma generate` (the client of prisma/schema.prisma, into
 * prisma/generated/) without a network. Generating needs no schema engine, but Prisma's CLI
 * looks for one, and downloads it, unless PRISMA_SCHEMA_ENGINE_BINARY names an executable:
 * here this Node.js, which `generate` never runs. With internet, `npx prisma generate` does
 * the same.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const prisma = join(dirname(createRequire(import.meta.url).resolve('prisma/package.json')), 'build', 'index.js');
execFileSync(process.execPath, [prisma, 'generate', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
