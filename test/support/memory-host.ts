/**
 * A small blog served by jsonapi-gen from memory: people write articles, articles have
 * comments and tags. The data layer's query is an immutable description (`Query`) run by
 * `results`; every data-layer call is counted in `blog.calls` (for the batching tests).
 *
 * @example
 * const blog = createBlog();
 * const response = await blog.api.fetch(request('/articles?include=author'), { attributes: { user: '1' } });
 */
import {
  Attribute,
  CustomFilter,
  CustomSort,
  Delete,
  Index,
  JsonApi,
  Show,
  ToMany,
  ToOne,
  defineResource,
  type Context,
  type FilterValue,
  type JsonApiOptions,
  type Relationship,
  type SortDirection,
} from 'jsonapi-gen';

export interface Person {
  id: string;
  name: string;
  email: string;
}

export interface Article {
  id: string;
  title: string;
  body: string;
  status: 'draft' | 'published';
  views: number;
  createdAt: Date;
  authorId: string;
  tagIds: string[];
}

export interface Comment {
  id: string;
  body: string;
  createdAt: Date;
  articleId: string;
  authorId: string;
}

export interface Tag {
  id: string;
  name: string;
}

export interface Tables {
  people: Person[];
  articles: Article[];
  comments: Comment[];
  tags: Tag[];
}

export type TableName = keyof Tables;
type Row = { id: string } & Record<string, unknown>;

/** What `results` will read: a table, conditions, an order and a page. Never mutated. */
export interface Query {
  readonly table: TableName;
  readonly where: ReadonlyArray<(row: Row) => boolean>;
  readonly orderBy: ReadonlyArray<{ readonly key: string; readonly direction: SortDirection }>;
  readonly page?: { readonly offset: number; readonly limit: number };
}

/** A new query with one more condition. */
export function where(query: Query, test: (row: Row) => boolean): Query {
  return Object.freeze({ ...query, where: Object.freeze([...query.where, test]) });
}

/** A new query with one more sort key (keys apply in the order given). */
export function orderBy(query: Query, key: string, direction: SortDirection): Query {
  return Object.freeze({ ...query, orderBy: Object.freeze([...query.orderBy, { key, direction }]) });
}

/** How a relationship is stored. */
export type Relation =
  /** This row's `key` holds the related id. */
  | { kind: 'belongsTo'; table: TableName; key: string }
  /** Related rows' `foreignKey` holds this row's id. */
  | { kind: 'hasMany'; table: TableName; foreignKey: string }
  /** This row's `key` holds an array of related ids. */
  | { kind: 'ids'; table: TableName; key: string };

/** Data-layer calls by `table.method`, e.g. `articles.results` or `articles.loadRelated`. */
export class CallLog {
  readonly counts = new Map<string, number>();

  record(table: TableName, method: string): void {
    const name = `${table}.${method}`;
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /** Calls of `method` on any table. */
  of(method: string): number {
    let total = 0;
    for (const [name, n] of this.counts) if (name.endsWith(`.${method}`)) total += n;
    return total;
  }

  reset(): void {
    this.counts.clear();
  }
}

export interface StoreOptions {
  /** Implement `count` (Countable). Default true. */
  count?: boolean;
  /** Implement `queryRelated`, so to-many related endpoints take index parameters. Default false. */
  queryRelated?: boolean;
}

/**
 * The data layer of one table: Findable, Deletable, Listable, Paginatable, Relatable, and
 * Countable unless told otherwise.
 */
export function memoryStore(
  db: Tables,
  table: TableName,
  relations: Record<string, Relation>,
  calls: CallLog,
  options: StoreOptions = {},
) {
  const rows = (name: TableName) => db[name] as unknown as Row[];
  const relationOf = (relationship: Relationship): Relation => {
    const relation = relations[relationship.name];
    if (!relation) throw new Error(`${table} stores no relationship "${relationship.name}"`);
    return relation;
  };
  const run = (query: Query): Row[] => {
    let found = rows(query.table).filter((row) => query.where.every((test) => test(row)));
    found = found.sort((a, b) => {
      for (const { key, direction } of query.orderBy) {
        const x = a[key] as string | number | Date;
        const y = b[key] as string | number | Date;
        if (x < y) return direction === 'asc' ? -1 : 1;
        if (x > y) return direction === 'asc' ? 1 : -1;
      }
      return 0;
    });
    return query.page ? found.slice(query.page.offset, query.page.offset + query.page.limit) : found;
  };

  const store = {
    find(id: string, _context: Context): Row | undefined {
      calls.record(table, 'find');
      return rows(table).find((row) => row.id === id);
    },
    delete(model: Row, _context: Context): void {
      calls.record(table, 'delete');
      const list = rows(table);
      list.splice(list.indexOf(model), 1);
    },
    query(_context: Context): Query {
      calls.record(table, 'query');
      return Object.freeze({ table, where: Object.freeze([]), orderBy: Object.freeze([]) });
    },
    paginate(query: Query, page: { offset: number; limit: number }, _context: Context): Query {
      calls.record(table, 'paginate');
      return Object.freeze({ ...query, page: { offset: page.offset, limit: page.limit } });
    },
    async results(query: Query, _context: Context): Promise<Row[]> {
      calls.record(table, 'results');
      return run(query);
    },
    loadRelated(relationship: Relationship, models: readonly Row[], _context: Context): unknown[] {
      calls.record(table, 'loadRelated');
      const relation = relationOf(relationship);
      const related = rows(relation.table);
      const byId = new Map(related.map((row) => [row.id, row]));
      switch (relation.kind) {
        case 'belongsTo':
          return models.map((model) => byId.get(model[relation.key] as string) ?? null);
        case 'ids':
          return models.map((model) => (model[relation.key] as string[]).map((id) => byId.get(id)!));
        case 'hasMany': {
          const groups = new Map<string, Row[]>();
          for (const row of related) {
            const owner = row[relation.foreignKey] as string;
            groups.set(owner, [...(groups.get(owner) ?? []), row]);
          }
          return models.map((model) => groups.get(model.id) ?? []);
        }
      }
    },
  };
  const count = (query: Query, _context: Context): number => {
    calls.record(table, 'count');
    return run({ ...query, page: undefined }).length;
  };
  const queryRelated = (relationship: Relationship, model: Row, _context: Context): Query => {
    calls.record(table, 'queryRelated');
    const relation = relationOf(relationship);
    const start: Query = Object.freeze({ table: relation.table, where: Object.freeze([]), orderBy: Object.freeze([]) });
    if (relation.kind === 'hasMany') return where(start, (row) => row[relation.foreignKey] === model.id);
    const ids = relation.kind === 'ids' ? (model[relation.key] as string[]) : [model[relation.key] as string];
    return where(start, (row) => ids.includes(row.id));
  };
  return {
    ...store,
    ...(options.count !== false && { count }),
    ...(options.queryRelated && { queryRelated }),
  };
}

/** `[value]` or the list itself: filters take `filter[x]=a` and `filter[x][]=a&filter[x][]=b` alike. */
const list = (value: FilterValue): string[] => (Array.isArray(value) ? value : [value]);
const isEditor = (context: Context) => context.getAttribute('role') === 'editor';

/** Articles: public reading, paginated (20, max 50) and counted, newest first. */
export const articles = defineResource<Article>({
  type: 'articles',
  fields: [
    Attribute.make('title').type('string').writable().required(),
    Attribute.make('body').type('string').writable(),
    Attribute.make('status').type('enum', ['draft', 'published']).writable(),
    Attribute.make('views').type('integer'),
    Attribute.make('createdAt').type('date-time'),
    Attribute.make('publishedOn')
      .type('date')
      .nullable()
      .get((article: Article) => (article.status === 'published' ? article.createdAt : null)),
    Attribute.make('wordCount')
      .type('integer')
      .get((article: Article) => article.body.split(/\s+/).filter(Boolean).length),
    ToOne.make('author').type('people').includable(),
    ToMany.make('comments').type('comments').includable(),
    ToMany.make('tags').type('tags').includable(),
  ],
  endpoints: [
    Show.make(),
    Index.make().paginate().defaultSort('-createdAt,title').countable(),
    Delete.make().visible((article: Article, context) => article.authorId === context.getAttribute('user')),
  ],
  filters: [
    CustomFilter.make('status', (query: Query, value) =>
      where(query, (row) => list(value).includes(row.status as string)),
    ),
    CustomFilter.make('author', (query: Query, value) =>
      where(query, (row) => list(value).includes(row.authorId as string)),
    ),
    CustomFilter.make('title', (query: Query, value) =>
      where(query, (row) => (row.title as string).toLowerCase().includes(String(value).toLowerCase())),
    ),
    // Editors only: how many views an article has at least.
    CustomFilter.make('minViews', (query: Query, value) =>
      where(query, (row) => (row.views as number) >= Number(value)),
    ).hidden((context) => !isEditor(context)),
  ],
  sorts: [
    CustomSort.make('title', (query: Query, direction) => orderBy(query, 'title', direction)),
    CustomSort.make('createdAt', (query: Query, direction) => orderBy(query, 'createdAt', direction)),
    CustomSort.make('views', (query: Query, direction) => orderBy(query, 'views', direction)).visible(isEditor),
  ],
});

/** People: anyone may read one; only signed-in users may list them. Not counted. */
export const people = defineResource<Person>({
  type: 'people',
  fields: [
    Attribute.make('name').type('string'),
    Attribute.make('email').type('string'),
    // Not includable: a prolific author's articles are for GET /people/{id}/articles.
    ToMany.make('articles').type('articles'),
  ],
  endpoints: [
    Show.make(),
    Index.make()
      .paginate(10, 20)
      .visible((context) => context.getAttribute('user') !== undefined),
  ],
  sorts: [CustomSort.make('name', (query: Query, direction) => orderBy(query, 'name', direction))],
});

/** Comments: paginated (5, max 10) but not counted; signed-in users may delete them. */
export const comments = defineResource<Comment>({
  type: 'comments',
  fields: [
    Attribute.make('body').type('string'),
    Attribute.make('createdAt').type('date-time'),
    ToOne.make('article').type('articles').includable(),
    ToOne.make('author').type('people').includable(),
  ],
  endpoints: [
    Show.make(),
    Index.make().paginate(5, 10),
    Delete.make().hidden((_comment, context) => context.getAttribute('user') === undefined),
  ],
  sorts: [CustomSort.make('createdAt', (query: Query, direction) => orderBy(query, 'createdAt', direction))],
});

/** Tags: a small unpaginated list. */
export const tags = defineResource<Tag>({
  type: 'tags',
  fields: [Attribute.make('name').type('string')],
  endpoints: [Show.make(), Index.make().defaultSort('name')],
  filters: [
    CustomFilter.make('name', (query: Query, value) => where(query, (row) => list(value).includes(row.name as string))),
  ],
  sorts: [CustomSort.make('name', (query: Query, direction) => orderBy(query, 'name', direction))],
});

const day = (n: number) => new Date(Date.UTC(2024, 0, n, 9, 30));

/** The blog's rows; `extraArticles` more articles by Ada for pagination and batching tests. */
export function seed(extraArticles = 0): Tables {
  const db: Tables = {
    people: [
      { id: '1', name: 'Ada', email: 'ada@example.com' },
      { id: '2', name: 'Brian', email: 'brian@example.com' },
      { id: '3', name: 'Chen', email: 'chen@example.com' },
    ],
    tags: [
      { id: '1', name: 'typescript' },
      { id: '2', name: 'json' },
      { id: '3', name: 'http' },
    ],
    articles: [
      {
        id: '1',
        title: 'JSON:API in an afternoon',
        body: 'Start with one resource.',
        status: 'published',
        views: 120,
        createdAt: day(1),
        authorId: '1',
        tagIds: ['1', '2'],
      },
      {
        id: '2',
        title: 'Compound documents',
        body: 'Include what you need, once.',
        status: 'published',
        views: 300,
        createdAt: day(3),
        authorId: '2',
        tagIds: ['2'],
      },
      {
        id: '3',
        title: 'Batching relationships',
        body: 'One query per relationship.',
        status: 'published',
        views: 45,
        createdAt: day(3),
        authorId: '1',
        tagIds: ['2', '3'],
      },
      {
        id: '4',
        title: 'Drafts and reviews',
        body: 'Not yet.',
        status: 'draft',
        views: 0,
        createdAt: day(5),
        authorId: '3',
        tagIds: [],
      },
    ],
    comments: [
      { id: '1', body: 'Helpful, thanks.', createdAt: day(2), articleId: '1', authorId: '2' },
      { id: '2', body: 'What about Atomic?', createdAt: day(2), articleId: '1', authorId: '3' },
      { id: '3', body: 'Answered below.', createdAt: day(4), articleId: '1', authorId: '1' },
      { id: '4', body: 'Nice diagrams.', createdAt: day(4), articleId: '2', authorId: '1' },
    ],
  };
  for (let i = 1; i <= extraArticles; i++) {
    db.articles.push({
      id: String(100 + i),
      title: `Note ${String(i).padStart(3, '0')}`,
      body: 'A short note.',
      status: 'published',
      views: i,
      createdAt: new Date(Date.UTC(2023, 0, 1, 0, i)),
      authorId: String((i % 3) + 1),
      tagIds: [String((i % 3) + 1)],
    });
  }
  return db;
}

export interface BlogOptions extends JsonApiOptions {
  /** More articles beyond the four of `seed()`. */
  extraArticles?: number;
}

/** The blog API over fresh rows, with its call log. */
export function createBlog(options: BlogOptions = {}) {
  const { extraArticles, ...apiOptions } = options;
  const db = seed(extraArticles);
  const calls = new CallLog();
  const api = new JsonApi({ onError: () => {}, ...apiOptions });
  api.resource({
    ...articles,
    ...memoryStore(
      db,
      'articles',
      {
        author: { kind: 'belongsTo', table: 'people', key: 'authorId' },
        comments: { kind: 'hasMany', table: 'comments', foreignKey: 'articleId' },
        tags: { kind: 'ids', table: 'tags', key: 'tagIds' },
      },
      calls,
      { queryRelated: true },
    ),
  });
  api.resource({
    ...people,
    ...memoryStore(db, 'people', { articles: { kind: 'hasMany', table: 'articles', foreignKey: 'authorId' } }, calls, {
      count: false,
    }),
  });
  api.resource({
    ...comments,
    ...memoryStore(
      db,
      'comments',
      {
        article: { kind: 'belongsTo', table: 'articles', key: 'articleId' },
        author: { kind: 'belongsTo', table: 'people', key: 'authorId' },
      },
      calls,
      { count: false },
    ),
  });
  api.resource({ ...tags, ...memoryStore(db, 'tags', {}, calls, { count: false }) });
  return { api, db, calls };
}
