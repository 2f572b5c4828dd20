/**
 * The query value of a Drizzle-backed resource's Index (and related collections): a read
 * described as pieces (the start, each filter, each sort, the page), each with the shape of its
 * SQL and the values it binds, so that the store prepares it once per shape and binds each
 * request's values; a piece whose SQL may vary (a scope, a custom filter or sort) makes it
 * built anew each time.
 */
import type { SortDirection } from 'jsonapi-gen';
import { type SQL, type Table, getTableColumns, sql } from 'drizzle-orm';
import type { Piece } from './conditions.js';
import type { Model, TableResource } from './resource.js';
import type { Database, Select, Slot } from './statements.js';

/** The page of a query: by offset, or a keyset page's limit. */
interface Page {
  readonly shape: string;
  readonly values: readonly [number] | readonly [number, number];
}

/** A join the query starts from (a related collection through a join table). */
interface Join {
  readonly table: Table;
  readonly on: SQL;
}

/** See the module comment. */
export class TableQuery {
  readonly resource: TableResource;
  /** What the query runs on: the request's transaction, or the database. */
  readonly on: Database;
  readonly #join: Join | undefined;
  readonly #wheres: readonly Piece[];
  readonly #orders: readonly Piece[];
  readonly #page: Page | undefined;

  constructor(
    resource: TableResource,
    on: Database,
    join: Join | undefined,
    wheres: readonly Piece[],
    orders: readonly Piece[] = [],
    page?: Page,
  ) {
    this.resource = resource;
    this.on = on;
    this.#join = join;
    this.#wheres = wheres;
    this.#orders = orders;
    this.#page = page;
  }

  /** The query narrowed by one more condition. */
  where(piece: Piece): TableQuery {
    return new TableQuery(this.resource, this.on, this.#join, [...this.#wheres, piece], this.#orders, this.#page);
  }

  /** The query ordered by one more term (`SQL` without its direction: `direction` is added). */
  orderBy(
    shape: string | undefined,
    values: readonly unknown[],
    term: (slot: Slot) => SQL,
    direction: SortDirection,
  ): TableQuery {
    const piece: Piece = {
      shape: shape === undefined ? undefined : `${shape} ${direction}`,
      values,
      sql: (slot) => sql`${term(slot)} ${sql.raw(direction)}`,
    };
    return new TableQuery(this.resource, this.on, this.#join, this.#wheres, [...this.#orders, piece], this.#page);
  }

  /** The query ordered by terms a mapping's custom sort gives (their SQL may vary). */
  orderByTerms(terms: readonly SQL[]): TableQuery {
    const pieces = terms.map((term): Piece => ({ shape: undefined, values: [], sql: () => term }));
    return new TableQuery(this.resource, this.on, this.#join, this.#wheres, [...this.#orders, ...pieces], this.#page);
  }

  /** One page by offset, the id as a last sort (pages stay stable when the sort has ties). */
  page(limit: number, offset: number): TableQuery {
    const id = this.resource.id;
    return new TableQuery(
      this.resource,
      this.on,
      this.#join,
      this.#wheres,
      [...this.#orders, { shape: 'id', values: [], sql: () => sql`${id} asc` }],
      { shape: 'page', values: [limit, offset] },
    );
  }

  /** At most `limit` rows (a keyset page: its bound and order are pieces already). */
  limit(limit: number): TableQuery {
    return new TableQuery(this.resource, this.on, this.#join, this.#wheres, this.#orders, {
      shape: 'limit',
      values: [limit],
    });
  }

  /** Everything the SQL text depends on, or undefined when it may vary. */
  get shape(): string | undefined {
    const pieces = [...this.#wheres, ...this.#orders];
    if (pieces.some((p) => p.shape === undefined)) return undefined;
    const join = this.#join ? `join ${this.resource.type} ` : '';
    return `${this.resource.type} list ${join}where [${this.#wheres.map((p) => p.shape).join('; ')}] order [${this.#orders.map((p) => p.shape).join('; ')}] ${this.#page?.shape ?? ''}`;
  }

  /** The values the SQL binds, in order: the filters', the sorts', the page's. */
  get values(): unknown[] {
    return [...this.#wheres, ...this.#orders].flatMap((p) => p.values).concat(this.#page?.values ?? []);
  }

  /** The filters' condition, their slots from 0. */
  #condition(slot: Slot): SQL | undefined {
    if (this.#wheres.length === 0) return undefined;
    let offset = 0;
    const parts = this.#wheres.map((piece) => {
      const from = offset;
      offset += piece.values.length;
      return piece.sql((i) => slot(from + i));
    });
    return parts.length === 1
      ? parts[0]
      : sql.join(
          parts.map((p) => sql`(${p})`),
          sql` and `,
        );
  }

  /** The select of the rows (`fields`: default the table's columns), with the slots of `values`. */
  build(on: Database, slot: Slot, fields?: Record<string, unknown>): Select {
    const table = this.resource.table;
    let query = on.select(fields ?? getTableColumns(table)).from(table);
    if (this.#join) query = query.innerJoin(this.#join.table, this.#join.on);
    query = query.where(this.#condition(slot));
    let offset = this.#wheres.reduce((n, p) => n + p.values.length, 0);
    const terms = this.#orders.map((piece) => {
      const from = offset;
      offset += piece.values.length;
      return piece.sql((i) => slot(from + i));
    });
    if (terms.length > 0) query = query.orderBy(...terms);
    if (this.#page) {
      query = query.limit(slot(offset));
      if (this.#page.values.length === 2) query = query.offset(slot(offset + 1));
    }
    return query;
  }

  /** The count of the rows the filters keep (before pagination): `select count(*) ...`, with the slots of `countValues`. */
  buildCount(on: Database, slot: Slot): Select {
    const table = this.resource.table;
    let query = on.select({ count: sql<number>`count(*)` }).from(table);
    if (this.#join) query = query.innerJoin(this.#join.table, this.#join.on);
    return query.where(this.#condition(slot));
  }

  /** The values `buildCount` binds. */
  get countValues(): unknown[] {
    return this.#wheres.flatMap((p) => p.values);
  }

  /** The shape of `buildCount`'s SQL. */
  get countShape(): string | undefined {
    if (this.#wheres.some((p) => p.shape === undefined)) return undefined;
    return `${this.resource.type} count ${this.#join ? 'join ' : ''}[${this.#wheres.map((p) => p.shape).join('; ')}]`;
  }
}

export type { Model };
