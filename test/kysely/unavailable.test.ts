/**
 * A database that cannot serve a request for now is 503 with Retry-After, never a 500: SQLite
 * locked by another connection past busy_timeout, PostgreSQL unreachable; the idempotency keys'
 * table too (and a key the outage refused stays free for the retry).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { kyselyIdempotency, kyselyTransaction, postgresKysely } from '@jsonapi-gen/kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Database, SQLITE_BUSY_TIMEOUT_MS, migrate, openDatabase } from '../../examples/blog/db.js';
import { createApi } from '../../examples/blog/generated/index.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { createPostgresDatabase } from '../support/databases.js';

const JSONAPI = 'application/vnd.api+json';
const createTag = (name: string) =>
  new Request('http://localhost/tags', {
    method: 'POST',
    headers: { 'content-type': JSONAPI },
    body: JSON.stringify({ data: { type: 'tags', attributes: { name } } }),
  });

describe('a database that cannot answer', () => {
  it(`SQLite write-locked by another connection for longer than busy_timeout (${SQLITE_BUSY_TIMEOUT_MS} ms): 503, then 201 once it is free`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-busy-'));
    const file = join(dir, 'blog.sqlite');
    const database = openDatabase({ file });
    try {
      await migrate(database.db, 'sqlite');
      await seed(database.db, 5);
      const api = createApi(createStore(database.db), {
        transaction: kyselyTransaction(database.db),
        onError: () => {},
      });
      const other = new SQLite(file);
      other.exec('BEGIN IMMEDIATE');
      const busy = await api.fetch(createTag('while locked'));
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(((await busy.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
        status: '503',
        code: 'database_unavailable',
      });
      other.exec('ROLLBACK');
      other.close();
      expect((await api.fetch(createTag('after the lock'))).status).toBe(201);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("SQLite held by another connection's BEGIN EXCLUSIVE past busy_timeout, a POST with an Idempotency-Key: 503, and the key stays free", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-busy-key-'));
    const file = join(dir, 'blog.sqlite');
    const database = openDatabase({ file });
    try {
      await migrate(database.db, 'sqlite');
      await seed(database.db, 5);
      const api = createApi(createStore(database.db), {
        transaction: kyselyTransaction(database.db),
        idempotency: { store: kyselyIdempotency(database.db) },
        onError: () => {},
      });
      const keyed = () => {
        const request = createTag('keyed while locked');
        request.headers.set('idempotency-key', 'locked-key');
        return api.fetch(request);
      };
      const other = new SQLite(file);
      other.exec('BEGIN EXCLUSIVE');
      const busy = await keyed();
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(((await busy.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
        status: '503',
        code: 'database_unavailable',
      });
      other.exec('ROLLBACK');
      other.close();
      const retry = await keyed();
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotency-replayed')).toBeNull();
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('PostgreSQL refusing connections: 503 on reads, writes and writes with an Idempotency-Key', async () => {
    const database = openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/nowhere' });
    try {
      const api = createApi(createStore(database.db), {
        transaction: kyselyTransaction(database.db),
        idempotency: { store: kyselyIdempotency(database.db) },
        onError: () => {},
      });
      const keyed = createTag('nowhere, keyed');
      keyed.headers.set('idempotency-key', 'refused-key');
      for (const request of [new Request('http://localhost/articles/1'), createTag('nowhere'), keyed]) {
        const response = await api.fetch(request);
        expect(response.status, request.method).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
      }
    } finally {
      await database.close();
    }
  });
});

describe('a PostgreSQL pool with no connection to give in time', () => {
  it('a read while every pooled connection is taken past connectionTimeoutMillis: 503, then 200 once one is free', async () => {
    const created = await createPostgresDatabase();
    const setup = openDatabase({ databaseUrl: created.url });
    const pool = new pg.Pool({ connectionString: created.url, max: 1, connectionTimeoutMillis: 100 });
    try {
      await migrate(setup.db, 'postgres');
      await seed(setup.db, 5);
      const api = createApi(createStore(postgresKysely<Database>(pool)), { onError: () => {} });
      const held = await pool.connect();
      const busy = await api.fetch(new Request('http://localhost/articles/1'));
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      held.release();
      expect((await api.fetch(new Request('http://localhost/articles/1'))).status).toBe(200);
    } finally {
      await pool.end();
      await setup.close();
      await created.drop();
    }
  }, 30_000);
});
