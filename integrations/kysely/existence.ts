import type { Context, ExistenceLookup, SharedExistence } from 'jsonapi-gen';
import type { Kysely } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { runStatement } from './errors.js';
import { distinct } from './reads.js';
import { countedExistence } from 'jsonapi-gen/internal';
import type { StoreTables } from './store-tables.js';
import type { TableResource } from './table-resource.js';
import { executorFor } from './transaction.js';

/** One lookup's table and keys: each id parsed (undefined: not a key), and the distinct keys. */
interface Keys {
  table: TableResource;
  parsed: unknown[];
  keys: unknown[];
}

/**
 * The existence check every data layer of one store shares (`Findable.existence`): the ids of
 * several resources in one statement, `select (select count(*) from people where people.id in
 * (...)) as n0, (select count(...) from tags ...) as n1`, each table read within its resource's
 * scope, as `findMany` reads it (`count(distinct id)` where there is one: a scope may join). When a count falls short (an id
 * names no row the request may see), that resource's rows are read by key to tell which.
 */
export function storeExistence(t: StoreTables): SharedExistence {
  return {
    async exist(lookups: readonly ExistenceLookup[], context: Context): Promise<boolean[][]> {
      const all: Keys[] = lookups.map(({ member, ids }) => {
        const table = t.tables.get(member);
        if (!table) throw new TypeError(`defineStore: the store does not map "${member}"`);
        const parsed = ids.map((id) => table.parseId(id));
        return { table, parsed, keys: distinct(parsed) };
      });
      return countedExistence(
        all,
        (counted) => countVisible(t, counted, context),
        async ({ table, keys }) => new Set((await t.modelsByKey(table, keys, context)).keys()),
      );
    },
  };
}

/** How many of each lookup's keys name a row its resource's scope lets the request see: one statement. */
async function countVisible(t: StoreTables, lookups: readonly Keys[], context: Context): Promise<number[]> {
  const build = (on: Kysely<AnyDatabase>) =>
    on.selectNoFrom(
      lookups.map(({ table, keys }, i) =>
        // The id is the table's primary key: without a scope (which may join) each key is one row,
        // and `count(*)` spares MySQL and MariaDB the temporary table of `count(distinct ...)`.
        (table.scope
          ? table
              .select(on, context)
              .clearSelect()
              .select((eb) => eb.fn.count(table.qualifiedId).distinct().as('n'))
          : on.selectFrom(table.table).select((eb) => eb.fn.countAll().as('n'))
        )
          .where(table.qualifiedId, 'in', keys)
          .as(`n${i}`),
      ),
    );
  const ex = executorFor(t.db, context);
  // A scope may read the request: its SQL is built anew each time.
  const scoped = lookups.some(({ table }) => table.scope);
  const shape = `exist ${JSON.stringify(lookups.map(({ table, keys }) => [table.type, keys.length]))}`;
  const [row] = await runStatement(() =>
    scoped
      ? build(ex).execute()
      : t.statements.rows(
          ex,
          shape,
          lookups.flatMap(({ keys }) => keys),
          build,
        ),
  );
  return lookups.map((_, i) => Number(row?.[`n${i}`] ?? 0));
}
