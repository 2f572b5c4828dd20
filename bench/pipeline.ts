/**
 * The pipeline's own cost per request, without HTTP: `api.serve` of the runtime's request value
 * over the demo's SQLite store (1,000 articles), 7 rounds of 5,000 requests per path, min and
 * median µs. For A/B comparisons of runtime changes (bench/results.md, "One async model").
 *
 *   npx tsx bench/pipeline.ts '/articles/1,/articles?page[limit]=20'
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryRequest } from 'jsonapi-gen';
import { migrate, openDatabase } from '../examples/blog/db.js';
import { createApi } from '../examples/blog/generated/index.js';
import { seed } from '../examples/blog/seed.js';
import { createStore } from '../examples/blog/store.js';

const file = join(tmpdir(), `jsonapi-gen-pipeline-${process.pid}.sqlite`);
const database = openDatabase({ file });
await migrate(database.db, 'sqlite');
await seed(database.db, 1000);
const api = createApi(createStore(database.db));
const headers = { accept: 'application/vnd.api+json', host: '127.0.0.1' };
for (const path of (process.argv[2] ?? '/articles/1,/articles?page[limit]=20').split(',')) {
  const request = () => memoryRequest('GET', `http://127.0.0.1:3000${path}`, headers);
  for (let i = 0; i < 5000; i++) await api.serve(request());
  const times: number[] = [];
  for (let round = 0; round < 7; round++) {
    const started = performance.now();
    for (let i = 0; i < 5000; i++) await api.serve(request());
    times.push(((performance.now() - started) / 5000) * 1000);
  }
  times.sort((a, b) => a - b);
  console.log(`${path}: min ${times[0]!.toFixed(2)} µs, median ${times[3]!.toFixed(2)} µs`);
}
await database.close();
rmSync(file, { force: true });
for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true });
