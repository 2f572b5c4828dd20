/**
 * The cost of one Prisma call, below which no Prisma store can go: the CPU this process spends
 * per call reading one article by id, straight through the database driver, through Prisma's
 * raw query (`$queryRawUnsafe`, no query compiler) and through a model query (`findFirst`).
 * Part of `npm run bench -- --store prisma` (bench/stores.ts writes the table).
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { openPrisma } from '../examples/blog/prisma-store.js';
import type { StoreDb } from './stores.js';

export interface FloorRow {
  call: string;
  /** CPU µs of this process per call (user + system), the median of the rounds. */
  micros: number;
}

/** The median over `rounds` of the CPU µs per call of `calls` calls of `call`, after a warm-up. */
async function cpuPerCall(call: () => unknown, calls: number, rounds = 5): Promise<number> {
  for (let i = 0; i < calls / 5; i++) await call();
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) await call();
    const used = process.cpuUsage(before);
    perRound.push((used.user + used.system) / calls);
  }
  return perRound.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}

/** One article by id three ways, on the run's database; `calls` per round. */
export async function prismaFloor(db: StoreDb, calls = 2_000): Promise<FloorRow[]> {
  const byId = 'select * from articles where id = $1';
  const prisma = openPrisma(db.kind === 'sqlite' ? { file: db.file } : { databaseUrl: db.url });
  try {
    let driver: FloorRow;
    if (db.kind === 'sqlite') {
      const sqlite = new SQLite(db.file, { readonly: true });
      const statement = sqlite.prepare(byId.replace('$1', '?'));
      driver = {
        call: 'better-sqlite3, a prepared statement',
        micros: await cpuPerCall(() => statement.get(1), calls),
      };
      sqlite.close();
    } else {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      driver = {
        call: 'node-postgres, a named (prepared) query',
        micros: await cpuPerCall(() => client.query({ name: 'floor', text: byId, values: [1] }), calls),
      };
      await client.end();
    }
    const raw = db.kind === 'sqlite' ? byId.replace('$1', '?') : byId;
    return [
      driver,
      { call: 'Prisma `$queryRawUnsafe`', micros: await cpuPerCall(() => prisma.$queryRawUnsafe(raw, 1), calls) },
      {
        call: 'Prisma `article.findFirst({ where: { id } })`',
        micros: await cpuPerCall(() => prisma.article.findFirst({ where: { id: 1 } }), calls),
      },
    ];
  } finally {
    await prisma.$disconnect();
  }
}
