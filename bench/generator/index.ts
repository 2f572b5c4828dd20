/**
 * `npx tsx bench/generator/index.ts [N ...]` (or `npm run bench -- --generator`): the generator
 * section alone, printed as markdown. Default sizes 20, 100, 500, plus the example (4 resources).
 * Works under .tmp/bench-generator (the schema resolves `jsonapi-gen` through the repository's tsconfig).
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SIZES, generatorReport, runGenerator } from './measure.js';

const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const rows = await runGenerator(sizes.length > 0 ? sizes : SIZES, join(root, '.tmp', 'bench-generator'), (line) =>
  console.error(line),
);
const { lines, targets } = generatorReport(rows);
console.log(lines.join('\n'));
for (const [name, ok, value] of targets) console.log(`- ${name}: ${value} (${ok ? 'met' : 'missed'})`);
