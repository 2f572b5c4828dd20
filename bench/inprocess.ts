/**
 * The pipeline's own cost: `api.handle(request)` of the generated blog API over an in-memory
 * data layer (pre-built, pre-sorted arrays: nearly free), against `JSON.stringify` of the same
 * finished document, for routes a, b and f. `node --import tsx bench/inprocess.ts FILE [--quick] [--json]`
 * (FILE: a seeded blog database, read once into arrays).
 */
import SQLite from 'better-sqlite3';
import { Bench } from 'tinybench';
import type { OffsetPagination } from 'jsonapi-gen';
import {
  type ArticlesModel,
  type CommentsModel,
  type DataLayers,
  type EventsModel,
  type PeopleModel,
  type TagsModel,
  createApi,
} from '../examples/blog/generated/index.js';
import { ROUTES } from './routes.js';

/** A row of one of the blog's tables as the in-memory layers hold it. */
type Model = { readonly id: number };

/** A model's value of `column`, for sorting. */
const valueOf = (model: Model, column: string) =>
  String((model as unknown as Record<string, string | number | boolean | Date | null>)[column] ?? '');

/** A query over one array: the sorts `orderBy` applies, then a page. */
class MemoryQuery<M extends Model> {
  constructor(
    readonly table: MemoryTable<M>,
    readonly sorts: ReadonlyArray<readonly [string, 'asc' | 'desc']> = [],
    readonly offset = 0,
    readonly limit = Infinity,
  ) {}
  orderBy(column: string, direction: 'asc' | 'desc'): MemoryQuery<M> {
    return new MemoryQuery(this.table, [...this.sorts, [column, direction]], this.offset, this.limit);
  }
  page({ offset, limit }: OffsetPagination): MemoryQuery<M> {
    return new MemoryQuery(this.table, this.sorts, offset, limit);
  }
  rows(): M[] {
    const sorted = this.table.sorted(this.sorts);
    return sorted.slice(this.offset, this.offset + this.limit);
  }
}

/** A table's rows as models, with each sort order computed once. */
class MemoryTable<M extends Model> {
  readonly #orders = new Map<string, M[]>();
  constructor(
    readonly models: M[],
    readonly columns: Record<string, string>,
  ) {}
  sorted(sorts: ReadonlyArray<readonly [string, 'asc' | 'desc']>): M[] {
    const signature = sorts.map(([c, d]) => `${c} ${d}`).join(',');
    let order = this.#orders.get(signature);
    if (!order) {
      const keys = [
        ...sorts.map(([column, direction]) => [this.columns[column] ?? column, direction === 'asc' ? 1 : -1] as const),
        ['id', 1] as const,
      ];
      order = [...this.models].sort((x, y) => {
        for (const [k, d] of keys) {
          const [a, b] = k === 'id' ? [x.id, y.id] : [valueOf(x, k), valueOf(y, k)];
          if (a !== b) return (a < b ? -1 : 1) * d;
        }
        return 0;
      });
      this.#orders.set(signature, order);
    }
    return order;
  }
}

/** The blog's data read once from FILE into arrays, and data layers over them. */
export function memoryDataLayers(file: string): DataLayers {
  const sqlite = new SQLite(file, { readonly: true });
  // The selects give exactly the generated models' fields (plus the keys the loaders follow).
  const rows = <T>(sql: string) => sqlite.prepare(sql).all() as T[];
  const people = rows<PeopleModel & Model>('select id, name, email, created_at as createdAt from people');
  const articles = rows<ArticlesModel & Model & { authorId: number }>(
    'select id, title, body, status, author_id as authorId, created_at as createdAt, updated_at as updatedAt from articles',
  );
  const comments = rows<CommentsModel & Model & { authorId: number; articleId: number }>(
    'select id, body, author_id as authorId, article_id as articleId, created_at as createdAt from comments',
  );
  const tags = rows<TagsModel & Model>('select id, name from tags');
  const links = rows<{ article_id: number; tag_id: number }>(
    'select article_id, tag_id from article_tags order by tag_id',
  );
  sqlite.close();

  const byId = <M extends Model>(models: M[]) => new Map(models.map((m) => [m.id, m]));
  const peopleById = byId(people);
  const articlesById = byId(articles);
  const tagsById = byId(tags);
  const commentsByArticle = new Map<number, typeof comments>();
  for (const c of comments)
    (commentsByArticle.get(c.articleId) ?? commentsByArticle.set(c.articleId, []).get(c.articleId)!).push(c);
  const tagsByArticle = new Map<number, typeof tags>();
  for (const l of links)
    (tagsByArticle.get(l.article_id) ?? tagsByArticle.set(l.article_id, []).get(l.article_id)!).push(
      tagsById.get(l.tag_id)!,
    );

  const layer = <M extends Model, R extends Record<string, (model: M) => unknown>>(models: M[], related: R) => {
    const table = new MemoryTable(models, {});
    const index = byId(models);
    const unsupported = () => {
      throw new Error('the in-memory data layer is read-only');
    };
    return {
      find: (id: string) => Promise.resolve(index.get(Number(id)) ?? null),
      query: () => new MemoryQuery<M>(table),
      results: (query: MemoryQuery<M>) => Promise.resolve(query.rows()),
      paginate: (query: MemoryQuery<M>, page: OffsetPagination) => query.page(page),
      count: () => Promise.resolve(models.length),
      paginateCursor: unsupported,
      related: Object.fromEntries(
        Object.entries(related).map(([name, read]) => [name, (list: readonly M[]) => Promise.resolve(list.map(read))]),
      ) as {
        [K in keyof R]: (list: readonly M[]) => Promise<Array<ReturnType<R[K]>>>;
      },
      where: unsupported,
      countRelated: unsupported,
      orderBy: (query: MemoryQuery<M>, field: string, direction: 'asc' | 'desc') => query.orderBy(field, direction),
      customFilters: { search: unsupported },
      can: unsupported,
      delete: unsupported,
      create: unsupported,
      update: unsupported,
      addToRelationship: unsupported,
      removeFromRelationship: unsupported,
    };
  };
  return {
    people: layer(people, { articles: (p) => articles.filter((a) => a.authorId === p.id) }),
    articles: layer(articles, {
      author: (a) => peopleById.get(a.authorId) ?? null,
      comments: (a) => commentsByArticle.get(a.id) ?? [],
      tags: (a) => tagsByArticle.get(a.id) ?? [],
    }),
    comments: layer(comments, {
      author: (c) => peopleById.get(c.authorId) ?? null,
      article: (c) => articlesById.get(c.articleId) ?? null,
    }),
    // The outbox: the bench reads no events.
    events: layer([] as Array<EventsModel & Model>, {}),
    tags: layer(tags, {
      articles: (t) =>
        [...tagsByArticle].filter(([, list]) => list.includes(t)).flatMap(([id]) => articlesById.get(id) ?? []),
    }),
  };
}

export interface InProcessResult {
  route: string;
  path: string;
  handleUs: number;
  stringifyUs: number;
  ratio: number;
  bytes: number;
}

/** Runs the comparison; `time` is the measuring time per task in ms. */
export async function runInProcess(file: string, time = 1000): Promise<InProcessResult[]> {
  const api = createApi(memoryDataLayers(file));
  const results: InProcessResult[] = [];
  for (const route of ROUTES.filter((r) => ['a', 'b', 'f'].includes(r.name))) {
    const request = new Request(`http://127.0.0.1:3000${route.path}`);
    const first = await api.handle(request);
    if (first.status !== 200) throw new Error(`${route.path}: ${first.status} ${await first.text()}`);
    const text = await first.text();
    const document = JSON.parse(text) as unknown;
    const bench = new Bench({ time, warmupTime: Math.min(300, time / 2) });
    bench.add('handle', async () => {
      await api.handle(request);
    });
    bench.add('stringify', () => {
      JSON.stringify(document);
    });
    await bench.warmup();
    await bench.run();
    const [handle, stringify] = bench.tasks.map((t) => t.result!.mean * 1000); // ms -> µs
    results.push({
      route: route.name,
      path: route.path,
      handleUs: handle!,
      stringifyUs: stringify!,
      ratio: handle! / stringify!,
      bytes: Buffer.byteLength(text),
    });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) throw new Error('usage: bench/inprocess.ts FILE [--quick] [--json]');
  const results = await runInProcess(file, args.includes('--quick') ? 300 : 1500);
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(results)}\n`);
  else console.table(results);
}
