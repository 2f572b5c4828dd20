import type { Migration } from 'kysely';
import type { Dialect } from '../db.js';
import { initial } from './0001_initial.js';
import { articleVersions } from './0002_article_versions.js';
import { idempotencyMigration, outboxMigration } from '@jsonapi-gen/kysely';

/** The demo's migrations in order, for Kysely's `Migrator` (names sort in order). */
export function createMigrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0002_article_versions': articleVersions(),
    '0003_idempotency_keys': idempotencyMigration(),
    '0004_outbox': outboxMigration(),
  };
}
