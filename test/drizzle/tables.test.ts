/**
 * The demo's Drizzle tables (examples/blog/drizzle/sqlite.ts, postgresql.ts) against the tables
 * its Kysely migrations make, on SQLite and PostgreSQL: every table, column (name, type,
 * nullability), primary key, foreign key (its columns, the table and columns it references,
 * what a delete does), unique column and index, described from the Drizzle declarations and
 * from the database's own catalogue, and the two descriptions equal (SQLite's column types by
 * their affinity, the only thing SQLite reads of them; MySQL's as its catalogue's full column
 * type).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type Column, type Table, getTableName, is } from 'drizzle-orm';
import { MySqlTable, getTableConfig as mysqlTableConfig } from 'drizzle-orm/mysql-core';
import { PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { SQLiteTable, getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import mysqlPromise from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import * as mysqlTables from '../../examples/blog/drizzle/mysql.js';
import * as postgresTables from '../../examples/blog/drizzle/postgresql.js';
import * as sqliteTables from '../../examples/blog/drizzle/sqlite.js';
import { createMysqlDatabase, createPostgresDatabase } from '../support/databases.js';

/** Kysely's own bookkeeping: tables of the migrator, not of the demo. */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/** One table, described alike from either side; lists sorted, so that order does not matter. */
interface TableShape {
  /** `name type null|not null`. */
  columns: string[];
  primaryKey: string[];
  /** `columns -> table(columns) on delete action`. */
  foreignKeys: string[];
  /** Columns a unique constraint or index holds alone or together (the primary key aside). */
  unique: string[];
  /** `name (columns)` of each index that is not a constraint's. */
  indexes: string[];
}

/** Each database's own word for a Drizzle column type, where they differ. */
const SAME_TYPE: Record<string, string> = { serial: 'integer' };

/**
 * A SQLite column's declared type as SQLite reads it, its affinity (a type naming INT is an
 * integer, CHAR, CLOB or TEXT text, ...): `bigint` and `integer` columns hold the same values.
 */
function affinity(type: string): string {
  const t = type.toLowerCase();
  if (t.includes('int')) return 'integer';
  if (/char|clob|text/.test(t)) return 'text';
  if (t === '' || t.includes('blob')) return 'blob';
  if (/real|floa|doub/.test(t)) return 'real';
  return 'numeric';
}

/** The tables of a Drizzle schema module, described. */
function drizzleShapes(module: Record<string, unknown>): Record<string, TableShape> {
  const shapes: Record<string, TableShape> = {};
  for (const value of Object.values(module)) {
    if (!is(value, PgTable) && !is(value, SQLiteTable) && !is(value, MySqlTable)) continue;
    const config = is(value, PgTable)
      ? pgTableConfig(value)
      : is(value, MySqlTable)
        ? mysqlTableConfig(value)
        : sqliteTableConfig(value);
    const columns = config.columns as Column[];
    const composite = config.primaryKeys.flatMap((key) => key.columns.map((c) => c.name));
    const primaryKey = composite.length > 0 ? composite : columns.filter((c) => c.primary).map((c) => c.name);
    shapes[getTableName(value as Table)] = {
      columns: columns
        .map((c) => {
          const declared = c.getSQLType().toLowerCase();
          const type = is(value, SQLiteTable) ? affinity(declared) : (SAME_TYPE[declared] ?? declared);
          return `${c.name} ${type} ${c.notNull || c.primary ? 'not null' : 'null'}`;
        })
        .sort(),
      primaryKey: primaryKey.sort(),
      foreignKeys: config.foreignKeys
        .map((key) => {
          const { columns: from, foreignTable, foreignColumns } = key.reference();
          return `${from.map((c) => c.name).join(',')} -> ${getTableName(foreignTable as Table)}(${foreignColumns
            .map((c) => c.name)
            .join(',')}) on delete ${key.onDelete ?? 'no action'}`;
        })
        .sort(),
      unique: [
        ...columns.filter((c) => c.isUnique).map((c) => c.name),
        ...config.uniqueConstraints.map((u) => u.columns.map((c) => c.name).join(',')),
      ].sort(),
      indexes: config.indexes
        .map((index) => {
          const on = index.config.columns.map((c) => (c as Column).name).join(',');
          return `${index.config.name} (${on})${index.config.unique ? ' unique' : ''}`;
        })
        .sort(),
    };
  }
  return shapes;
}

/** The tables of a SQLite file, described from its catalogue. */
function sqliteShapes(file: string): Record<string, TableShape> {
  const db = new SQLite(file, { readonly: true });
  try {
    const tables = db
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)
      .pluck()
      .all() as string[];
    const shapes: Record<string, TableShape> = {};
    for (const table of tables.filter((t) => !MIGRATOR_TABLES.has(t))) {
      const columns = db.prepare(`select name, type, "notnull", pk from pragma_table_info(?)`).all(table) as Array<{
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }>;
      const keys = db
        .prepare(`select id, "from", "to", "table", on_delete from pragma_foreign_key_list(?) order by id, seq`)
        .all(table) as Array<{ id: number; from: string; to: string; table: string; on_delete: string }>;
      const indexes = db.prepare(`select name, "unique", origin from pragma_index_list(?)`).all(table) as Array<{
        name: string;
        unique: number;
        origin: string;
      }>;
      const indexColumns = (name: string) =>
        (db.prepare(`select name from pragma_index_info(?) order by seqno`).pluck().all(name) as string[]).join(',');
      shapes[table] = {
        columns: columns
          .map((c) => `${c.name} ${affinity(c.type)} ${c.notnull === 1 || c.pk > 0 ? 'not null' : 'null'}`)
          .sort(),
        primaryKey: columns
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name)
          .sort(),
        foreignKeys: keys.map((k) => `${k.from} -> ${k.table}(${k.to}) on delete ${k.on_delete.toLowerCase()}`).sort(),
        unique: indexes
          .filter((i) => i.origin === 'u')
          .map((i) => indexColumns(i.name))
          .sort(),
        indexes: indexes
          .filter((i) => i.origin === 'c')
          .map((i) => `${i.name} (${indexColumns(i.name)})${i.unique === 1 ? ' unique' : ''}`)
          .sort(),
      };
    }
    return shapes;
  } finally {
    db.close();
  }
}

/** The tables of a PostgreSQL database's public schema, described from its catalogue. */
async function postgresShapes(url: string): Promise<Record<string, TableShape>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async <R extends pg.QueryResultRow>(text: string) => (await client.query<R>(text)).rows;
    const columns = await rows<{ table: string; name: string; type: string; nullable: string }>(
      `select table_name as table, column_name as name, data_type as type, is_nullable as nullable
       from information_schema.columns where table_schema = 'public'`,
    );
    // Constraints with their columns in key order: p(rimary), f(oreign), u(nique).
    const constraints = await rows<{
      table: string;
      kind: string;
      columns: string[];
      target: string | null;
      targets: string[] | null;
      ondelete: string;
    }>(
      `select c.conrelid::regclass::text as table, c.contype as kind,
         array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
               join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns,
         c.confrelid::regclass::text as target,
         array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
               join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as targets,
         c.confdeltype as ondelete
       from pg_constraint c join pg_namespace s on s.oid = c.connamespace
       where s.nspname = 'public' and c.contype in ('p', 'f', 'u')`,
    );
    // Indexes no constraint made.
    const indexes = await rows<{ table: string; name: string; unique: boolean; columns: string[] }>(
      `select t.relname as table, i.relname as name, x.indisunique as unique,
         array(select a.attname::text from unnest(x.indkey) with ordinality k(n, o)
               join pg_attribute a on a.attrelid = t.oid and a.attnum = k.n order by k.o) as columns
       from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
       join pg_namespace s on s.oid = t.relnamespace
       where s.nspname = 'public' and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)`,
    );
    const onDelete: Record<string, string> = {
      a: 'no action',
      r: 'restrict',
      c: 'cascade',
      n: 'set null',
      d: 'set default',
    };
    const shapes: Record<string, TableShape> = {};
    const tables = [...new Set(columns.map((c) => c.table))].filter((t) => !MIGRATOR_TABLES.has(t));
    for (const table of tables) {
      const of = constraints.filter((c) => c.table === table);
      shapes[table] = {
        columns: columns
          .filter((c) => c.table === table)
          .map((c) => `${c.name} ${c.type} ${c.nullable === 'YES' ? 'null' : 'not null'}`)
          .sort(),
        primaryKey: of
          .filter((c) => c.kind === 'p')
          .flatMap((c) => c.columns)
          .sort(),
        foreignKeys: of
          .filter((c) => c.kind === 'f')
          .map(
            (c) =>
              `${c.columns.join(',')} -> ${c.target}(${(c.targets ?? []).join(',')}) on delete ${onDelete[c.ondelete]}`,
          )
          .sort(),
        unique: of
          .filter((c) => c.kind === 'u')
          .map((c) => c.columns.join(','))
          .sort(),
        indexes: indexes
          .filter((i) => i.table === table)
          .map((i) => `${i.name} (${i.columns.join(',')})${i.unique ? ' unique' : ''}`)
          .sort(),
      };
    }
    return shapes;
  } finally {
    await client.end();
  }
}

/** The tables of a MySQL or MariaDB database, described from its `information_schema`. */
async function mysqlShapes(url: string): Promise<Record<string, TableShape>> {
  const connection = await mysqlPromise.createConnection({ uri: url });
  try {
    const rows = async <R>(text: string) => (await connection.query(text))[0] as R[];
    const columns = await rows<{ table: string; name: string; type: string; nullable: string }>(
      `select table_name as \`table\`, column_name as name, column_type as type, is_nullable as nullable
       from information_schema.columns where table_schema = database()`,
    );
    // Each index with its columns in key order; a constraint's (primary, unique, foreign) among them.
    const indexes = await rows<{ table: string; name: string; unique: number; columns: string }>(
      `select table_name as \`table\`, index_name as name, 1 - min(non_unique) as \`unique\`,
         group_concat(column_name order by seq_in_index) as columns
       from information_schema.statistics where table_schema = database() group by table_name, index_name`,
    );
    const keys = await rows<{
      table: string;
      name: string;
      columns: string;
      target: string;
      targets: string;
      ondelete: string;
    }>(
      `select k.table_name as \`table\`, k.constraint_name as name,
         group_concat(k.column_name order by k.ordinal_position) as columns, k.referenced_table_name as target,
         group_concat(k.referenced_column_name order by k.ordinal_position) as targets, r.delete_rule as ondelete
       from information_schema.key_column_usage k join information_schema.referential_constraints r
         on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name and r.table_name = k.table_name
       where k.table_schema = database() and k.referenced_table_name is not null
       group by k.table_name, k.constraint_name, k.referenced_table_name, r.delete_rule`,
    );
    const uniques = await rows<{ table: string; name: string }>(
      `select table_name as \`table\`, constraint_name as name from information_schema.table_constraints
       where table_schema = database() and constraint_type = 'UNIQUE'`,
    );
    const foreignKeyNames = new Set(keys.map((k) => `${k.table}.${k.name}`));
    const uniqueNames = new Set(uniques.map((u) => `${u.table}.${u.name}`));
    const shapes: Record<string, TableShape> = {};
    const tables = [...new Set(columns.map((c) => c.table))].filter((t) => !MIGRATOR_TABLES.has(t));
    for (const table of tables) {
      const of = indexes.filter((i) => i.table === table);
      shapes[table] = {
        columns: columns
          .filter((c) => c.table === table)
          // MariaDB shows integers' display width (`int(11)`), MySQL 8 no longer does.
          .map(
            (c) =>
              `${c.name} ${c.type.replace(/^(tinyint|smallint|mediumint|int|bigint)\(\d+\)/, '$1')} ${c.nullable === 'YES' ? 'null' : 'not null'}`,
          )
          .sort(),
        primaryKey: (of.find((i) => i.name === 'PRIMARY')?.columns.split(',') ?? []).sort(),
        foreignKeys: keys
          .filter((k) => k.table === table)
          .map((k) => `${k.columns} -> ${k.target}(${k.targets}) on delete ${k.ondelete.toLowerCase()}`)
          .sort(),
        unique: of
          .filter((i) => uniqueNames.has(`${table}.${i.name}`))
          .map((i) => i.columns)
          .sort(),
        // MySQL indexes every foreign key; an index of that key's name is the constraint's.
        indexes: of
          .filter(
            (i) =>
              i.name !== 'PRIMARY' &&
              !uniqueNames.has(`${table}.${i.name}`) &&
              !foreignKeyNames.has(`${table}.${i.name}`),
          )
          .map((i) => `${i.name} (${i.columns})${Number(i.unique) === 1 ? ' unique' : ''}`)
          .sort(),
      };
    }
    return shapes;
  } finally {
    await connection.end();
  }
}

const DECLARED: Record<'sqlite' | 'postgres' | 'mysql', Record<string, unknown>> = {
  sqlite: sqliteTables,
  postgres: postgresTables,
  mysql: mysqlTables,
};

describe.each(['sqlite', 'postgres', 'mysql'] as const)(
  'the demo Drizzle tables against the migrated %s database',
  (dialect) => {
    let migrated: Record<string, TableShape>;
    const cleanups: Array<() => unknown> = [];

    beforeAll(async () => {
      if (dialect === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-drizzle-tables-'));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        const file = join(dir, 'blog.sqlite');
        const database = openDatabase({ file });
        await migrate(database.db, 'sqlite');
        await database.close();
        migrated = sqliteShapes(file);
      } else if (dialect === 'mysql') {
        const created = await createMysqlDatabase();
        cleanups.push(() => created.drop());
        const database = openDatabase({ databaseUrl: created.url, runner: 'kysely' });
        await migrate(database.db, 'mysql');
        await database.close();
        migrated = await mysqlShapes(created.url);
      } else {
        const created = await createPostgresDatabase();
        cleanups.push(() => created.drop());
        const database = openDatabase({ databaseUrl: created.url });
        await migrate(database.db, 'postgres');
        await database.close();
        migrated = await postgresShapes(created.url);
      }
    });

    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
    });

    it('declares every table the migrations make, and no other', () => {
      expect(Object.keys(drizzleShapes(DECLARED[dialect])).sort()).toEqual(Object.keys(migrated).sort());
    });

    it.each(['people', 'articles', 'comments', 'tags', 'article_tags', 'jsonapi_idempotency_keys'])(
      '%s: columns, types, nullability, primary key, foreign keys, unique columns and indexes agree',
      (table) => {
        expect(migrated[table], `${table} in the database`).toBeDefined();
        expect(drizzleShapes(DECLARED[dialect])[table]).toEqual(migrated[table]);
      },
    );
  },
);
