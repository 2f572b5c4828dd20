#!/usr/bin/env node
// The jsonapi-gen command. A clone of the repository has the TypeScript sources and runs them
// through tsx with the repository's tsconfig (its `paths` serve the other packages from their
// sources too, whatever the working directory), so a stale dist/ never answers for them; the
// published package ships only the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../cli.ts', import.meta.url);

if (existsSync(source)) {
  const { tsImport } = await import('tsx/esm/api');
  const tsconfig = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
  const { main } = await tsImport(source.href, { parentURL: import.meta.url, tsconfig });
  await main(process.argv);
} else {
  const { main } = await import(new URL('../dist/cli.js', import.meta.url).href);
  await main(process.argv);
}
