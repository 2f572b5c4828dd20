#!/usr/bin/env node
// The jsonapi-gen command. A clone of the repository has the TypeScript sources and runs them
// through tsx (so a stale dist/ never answers for them); a published package ships only the
// compiled dist/.
import { existsSync } from 'node:fs';

const source = new URL('../generator/cli.ts', import.meta.url);

if (existsSync(source)) {
  const { tsImport } = await import('tsx/esm/api');
  const { main } = await tsImport(source.href, import.meta.url);
  await main(process.argv);
} else {
  const { main } = await import(new URL('../dist/generator/cli.js', import.meta.url).href);
  await main(process.argv);
}
