/**
 * Prisma's failures as the runtime's errors, each triggered for real through the generated
 * clients and their adapters: a taken unique value is 409 at the attribute, a taken id at
 * /data/id, a related row gone is 404 at the relationship, an unreachable PostgreSQL is 503
 * with Retry-After, and a serialization failure between two serializable transactions is run
 * again until it commits.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { Context } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient as PostgresClient } from '../../examples/blog/prisma/generated/postgresql/client.js';
import { prismaError, retryable } from '../../integrations/prisma/errors.js';
import { clientFor, prismaTransaction } from '../../integrations/prisma/transaction.js';
import { createRecord } from '../../integrations/prisma/writes.js';
import { freePort } from '../support/net.js';
import { type DemoDatabase, demoDatabase } from './writes-databases.js';
import { ARTICLES, TAGS } from './writes-models.js';

const context = () => new Context(new Request('http://localhost/tags', { method: 'POST' }));

describe.each(['sqlite', 'postgres'] as const)('Prisma failures on %s', (dialect) => {
  let d: DemoDatabase;
  beforeAll(async () => {
    d = await demoDatabase(dialect, 3);
  });
  afterAll(() => d.close());

  it('answers a taken unique value with 409 at the attribute', async () => {
    const taken = createRecord(d.prisma, TAGS, { attributes: { name: 'json' }, relationships: {} }, context());
    await expect(taken).rejects.toMatchObject({
      status: 409,
      code: 'unique_violation',
      source: { pointer: '/data/attributes/name' },
    });
  });

  it('answers a taken client-generated id with 409 at /data/id', async () => {
    const taken = createRecord(d.prisma, TAGS, { id: '1', attributes: { name: 'new' }, relationships: {} }, context());
    await expect(taken).rejects.toMatchObject({ status: 409, source: { pointer: '/data/id' } });
  });

  it('answers a foreign key to no row with 404 at the relationship', async () => {
    const dangling = createRecord(
      d.prisma,
      ARTICLES,
      { attributes: { title: 'x' }, relationships: { author: { type: 'people', id: '999' } } },
      context(),
    );
    await expect(dangling).rejects.toMatchObject({
      status: 404,
      code: 'related_not_found',
      source: { pointer: '/data/relationships/author/data' },
    });
  });

  it('leaves other failures as they are', () => {
    const other = new Error('something else');
    expect(prismaError(other)).toBe(other);
    expect(retryable(other)).toBe(false);
  });
});

describe('PostgreSQL: conflicts and outages', () => {
  let d: DemoDatabase;
  beforeAll(async () => {
    d = await demoDatabase('postgres', 3);
  });
  afterAll(() => d.close());

  it('runs a request again when PostgreSQL aborted it for a serialization failure', async () => {
    const transaction = prismaTransaction(d.prisma, { isolationLevel: 'Serializable' });
    // Two requests each count the tags and then add one named after the count: under
    // serializable isolation, one of the first attempts must fail (40001), and its retry sees
    // the other's tag.
    let arrived = 0;
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    let attempts = 0;
    const request = (prefix: string) => {
      const ctx = context();
      return transaction(async () => {
        attempts++;
        const tx = clientFor(d.prisma, ctx);
        const count = await tx.tag.count();
        if (++arrived <= 2) {
          if (arrived === 2) release();
          await bothRead;
        }
        await tx.tag.create({ data: { name: `${prefix}-${count}` } });
      }, ctx);
    };
    const before = await d.prisma.tag.count();
    await Promise.all([request('a'), request('b')]);
    expect(attempts).toBe(3);
    const names = (await d.prisma.tag.findMany({ where: { id: { gt: 0 } }, orderBy: { id: 'asc' } })).map(
      (t) => t.name,
    );
    expect(names.slice(before).sort((x, y) => Number(x.split('-')[1]) - Number(y.split('-')[1]))).toEqual([
      expect.stringMatching(new RegExp(`-${before}$`)),
      expect.stringMatching(new RegExp(`-${before + 1}$`)),
    ]);
  });

  it('answers 503 with Retry-After when the database is unreachable', async () => {
    const port = await freePort(); // nothing listens there
    const unreachable = new PostgresClient({
      adapter: new PrismaPg({ connectionString: `postgresql://nobody:secret@127.0.0.1:${port}/none` }),
    });
    try {
      const ctx = context();
      const write = prismaTransaction(unreachable)(
        () => createRecord(unreachable, TAGS, { attributes: { name: 'x' }, relationships: {} }, ctx),
        ctx,
      );
      await expect(write).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
      const outside = createRecord(unreachable, TAGS, { attributes: { name: 'x' }, relationships: {} }, context());
      await expect(outside).rejects.toMatchObject({ status: 503, code: 'database_unavailable' });
    } finally {
      await unreachable.$disconnect();
    }
  });
});
