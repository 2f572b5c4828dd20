/**
 * The blog served from memory by data layers written by hand, typed only by the generated types:
 * the same schema as the Kysely store, with the same constraints the database enforces (unique
 * tag names and article-tag pairs, cascading deletes) and one transaction at a time, rolled
 * back by restoring a snapshot. `startDemo({ memory: true })` serves it; the e2e suites run on
 * it beside SQLite and PostgreSQL.
 */
import {
  type Condition,
  type ConditionPath,
  type ConditionValue,
  ConflictError,
  type Context,
  type CountPath,
  type CursorPage,
  type CursorValue,
  type CustomCondition,
  type FilterCondition,
  type IdempotencyStore,
  type Outbox,
  isConditionGroup,
  type SortDirection,
  type StoredResponse,
  type ToMany,
  type WriteValues,
} from 'jsonapi-gen';
import type {
  ArticlesDataLayer,
  ArticlesModel,
  CommentsDataLayer,
  CommentsModel,
  DataLayers,
  EventsDataLayer,
  PeopleDataLayer,
  PeopleModel,
  TagsDataLayer,
  TagsModel,
} from './generated/index.js';
import type { SeedRows } from './seed.js';

type Person = PeopleModel & { id: number };
type Article = ArticlesModel & { id: number; authorId: number; version: number };
type Comment = CommentsModel & { id: number; authorId: number; articleId: number };
type Tag = TagsModel & { id: number };
/** An outbox entry as the SQL stores keep it: `changed` is JSON array text. */
interface OutboxRow {
  id: number;
  action: 'create' | 'update' | 'delete';
  resourceType: string;
  resourceId: string;
  changed: string;
  occurredAt: string;
}

interface Tables {
  people: Person[];
  articles: Article[];
  comments: Comment[];
  tags: Tag[];
  /** article id, tag id */
  articleTags: Array<[number, number]>;
  /** The outbox, in the order written (`memoryOutbox`). */
  events: OutboxRow[];
}

/** A list query: the rows left by filters, and the sorts to apply (first is primary). */
interface Query<M> {
  rows: M[];
  /** How to read each sort's value from a row (a property, a related row's: `author.name`, a count), and its direction. */
  sorts: Array<[(row: M) => unknown, SortDirection]>;
  page?: { offset: number; limit: number };
  /** Cursor pagination: the whole order (the id last), the values the page starts after, how many. */
  keyset?: { order: Array<[(row: M) => unknown, SortDirection]>; after?: readonly CursorValue[]; limit: number };
}

/** Two sort values in the database's order: numbers (ids, counts) as numbers, everything else as text. */
function compareValues(x: unknown, y: unknown): number {
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  const [a, b] = [String(x), String(y)];
  return a === b ? 0 : a < b ? -1 : 1;
}

const now = () => new Date().toISOString();
const key = (id: string) => (/^[1-9][0-9]{0,9}$/.test(id) ? Number(id) : undefined);
const byId = <M extends { id: number }>(rows: M[], id: number) => rows.find((row) => row.id === id) ?? null;
const nextId = (rows: ReadonlyArray<{ id: number }>) => rows.reduce((max, row) => Math.max(max, row.id), 0) + 1;
const duplicate = (pointer?: string) =>
  new ConflictError({
    detail: 'A resource with these values already exists',
    ...(pointer && { source: { pointer } }),
    code: 'unique_violation',
  });

/** Whether a stored value satisfies a condition, as SQL has it: a null matches no comparison but `null`. */
function satisfies(stored: unknown, { op, value, caseInsensitive }: Condition): boolean {
  if (op === 'null') return (stored === null || stored === undefined) === value;
  if (stored === null || stored === undefined) return false;
  // Ids and numbers compare as numbers when the condition's value is one; everything else as text.
  const read = (v: unknown) =>
    typeof value === 'number' || (Array.isArray(value) && typeof value[0] === 'number')
      ? Number(v)
      : typeof v === 'boolean'
        ? v
        : String(v);
  const x = read(stored);
  const list = (value as readonly ConditionValue[]).map?.(read) ?? [];
  const fold = (text: unknown) => (caseInsensitive ? String(text).toLowerCase() : String(text));
  switch (op) {
    case 'eq':
      return x === read(value);
    case 'ne':
      return x !== read(value);
    case 'in':
      return list.includes(x);
    case 'nin':
      return !list.includes(x);
    case 'lt':
      return x < read(value);
    case 'lte':
      return x <= read(value);
    case 'gt':
      return x > read(value);
    case 'gte':
      return x >= read(value);
    case 'contains':
      return fold(x).includes(fold(value));
    case 'startsWith':
      return fold(x).startsWith(fold(value));
    case 'endsWith':
      return fold(x).endsWith(fold(value));
  }
}

/** A custom filter applied to one row (for `where`, inside a group). */
type RowTest<M> = (row: M, value: CustomCondition['value']) => boolean;

/**
 * List and read members every table shares; `column` maps a filter or sort field to the model's
 * property, `related` gives a row's related rows by relationship (for a path filter, `author.name`:
 * any match; for a count, `commentCount`: how many), `composable` the custom filters `where` also
 * takes inside a group, as a test of one row.
 */
function table<M extends { id: number }, N extends string = never>(
  rows: () => M[],
  column: (field: string) => keyof M & string,
  related: (row: M, relationship: string) => readonly object[] = () => [],
  composable = {} as Record<N, RowTest<M>>,
) {
  const tests = new Map<string, RowTest<M>>(Object.entries(composable));
  /** Whether `row` meets `condition`: a leaf on a null value is false, so its `not` is true. */
  const holds = (row: M, condition: FilterCondition): boolean => {
    if (isConditionGroup(condition)) {
      const each = (c: FilterCondition) => holds(row, c);
      if (condition.op === 'or') return condition.conditions.some(each);
      const all = condition.conditions.every(each);
      return condition.op === 'and' ? all : !all;
    }
    if (condition.op === 'custom') {
      const test = tests.get(condition.field);
      // The runtime passes only the filters listed in `composableFilters`, which are these.
      if (!test) throw new TypeError(`no composable filter "${condition.field}"`);
      return test(row, condition.value);
    }
    const { path, count } = condition;
    if (count) return satisfies(related(row, count.relationship).length, condition);
    if (path)
      return related(row, path.relationship).some((other) =>
        satisfies((other as Record<string, unknown>)[path.attribute], condition),
      );
    return satisfies(row[column(condition.field)], condition);
  };
  /** How a sort or cursor field reads a row: the id, a count of related rows, a related row's attribute, a property. */
  const reader = (field: string, path?: ConditionPath | CountPath): ((row: M) => unknown) => {
    if (field === 'id') return (row) => row.id;
    if (path && !('attribute' in path)) return (row) => related(row, path.relationship).length;
    if (path)
      return (row) => (related(row, path.relationship)[0] as Record<string, unknown> | undefined)?.[path.attribute];
    return (row) => row[column(field)];
  };
  return {
    composableFilters: [...tests.keys()] as N[],
    find: (id: string) => {
      const k = key(id);
      return k === undefined ? null : byId(rows(), k);
    },
    query: (): Query<M> => ({ rows: rows(), sorts: [] }),
    where: (query: Query<M>, condition: FilterCondition): Query<M> => ({
      ...query,
      rows: query.rows.filter((row) => holds(row, condition)),
    }),
    orderBy: (
      query: Query<M>,
      field: string,
      direction: SortDirection,
      _context: Context,
      path?: ConditionPath | CountPath,
    ): Query<M> => ({ ...query, sorts: [...query.sorts, [reader(field, path), direction]] }),
    paginate: (query: Query<M>, page: { offset: number; limit: number }): Query<M> => ({ ...query, page }),
    paginateCursor: (query: Query<M>, page: CursorPage): Query<M> => ({
      ...query,
      keyset: {
        order: page.sorts.map(({ field, direction, count }) => [reader(field, count), direction]),
        after: page.after,
        limit: page.limit,
      },
    }),
    count: (query: Query<M>) => query.rows.length,
    /** The number of each model's related rows (every row is visible: the memory store has no scopes). */
    countRelated: (relationship: ToMany, models: readonly M[]): number[] =>
      models.map((model) => related(model, relationship.name).length),
    results: (query: Query<M>): M[] => {
      if (query.keyset) {
        const { order, after, limit } = query.keyset;
        const valuesOf = (row: M) => order.map(([read]) => read(row));
        // A cursor holds ids as text, counts as numbers, the rest as served: each read as the row's value is.
        const compare = (xs: readonly unknown[], ys: readonly unknown[]) => {
          for (let i = 0; i < order.length; i++) {
            const x = xs[i];
            const difference = compareValues(x, typeof x === 'number' ? Number(ys[i]) : ys[i]);
            if (difference !== 0) return difference * (order[i]![1] === 'asc' ? 1 : -1);
          }
          return 0;
        };
        return query.rows
          .filter((row) => after === undefined || compare(valuesOf(row), after) > 0)
          .sort((a, b) => compare(valuesOf(a), valuesOf(b)))
          .slice(0, limit);
      }
      const sorted = [...query.rows].sort((a, b) => {
        for (const [read, direction] of query.sorts) {
          const difference = compareValues(read(a), read(b));
          if (difference !== 0) return difference * (direction === 'asc' ? 1 : -1);
        }
        return a.id - b.id;
      });
      return query.page ? sorted.slice(query.page.offset, query.page.offset + query.page.limit) : sorted;
    },
  };
}

/** The blog's tables filled with `rows` (ids 1..n, as `seed` inserts them). */
export function memoryTables(rows: SeedRows): Tables {
  return {
    people: rows.people.map((p, i) => ({ id: i + 1, name: p.name, email: p.email, createdAt: p.created_at })),
    tags: rows.tags.map((t, i) => ({ id: i + 1, name: t.name })),
    articles: rows.articles.map((a, i) => ({
      id: i + 1,
      title: a.title,
      body: a.body,
      status: a.status,
      authorId: a.author_id,
      createdAt: a.created_at,
      updatedAt: a.updated_at,
      version: 1,
    })),
    articleTags: rows.article_tags.map((l) => [l.article_id, l.tag_id]),
    comments: rows.comments.map((c, i) => ({
      id: i + 1,
      body: c.body,
      authorId: c.author_id,
      articleId: c.article_id,
      createdAt: c.created_at,
    })),
    events: [],
  };
}

/** The blog's data layers over `db`, and the `transaction` option that keeps writes all-or-nothing. */
export function memoryStore(db: Tables) {
  const tagsOf = (article: number) =>
    db.articleTags
      .filter(([a]) => a === article)
      .map(([, t]) => byId(db.tags, t)!)
      .sort((x, y) => x.id - y.id);
  const articlesTagged = (tag: number) =>
    db.articles.filter((a) => db.articleTags.some(([x, y]) => x === a.id && y === tag));
  const articlesBy = (person: number) => db.articles.filter((a) => a.authorId === person);
  const commentsOn = (article: number) => db.comments.filter((c) => c.articleId === article);
  // Case-insensitive and literal, as the store's `like` with escaped wildcards; any of the terms.
  const searched = (article: Article, value: CustomCondition['value']) =>
    [value].flat().some((term) => article.title.toLowerCase().includes(term.toLowerCase()));
  const setTags = (article: number, ids: readonly number[]) => {
    if (new Set(ids).size !== ids.length) throw duplicate();
    db.articleTags = [
      ...db.articleTags.filter(([a]) => a !== article),
      ...ids.map((t): [number, number] => [article, t]),
    ];
  };
  const uniqueTagName = (name: string, except?: number) => {
    if (db.tags.some((t) => t.name === name && t.id !== except)) throw duplicate('/data/attributes/name');
  };
  const deleteArticles = (ids: ReadonlySet<number>) => {
    db.articles = db.articles.filter((a) => !ids.has(a.id));
    db.comments = db.comments.filter((c) => !ids.has(c.articleId));
    db.articleTags = db.articleTags.filter(([a]) => !ids.has(a));
  };
  const linked = (values: WriteValues, name: string) => {
    const linkage = values.relationships[name];
    return linkage && !Array.isArray(linkage) ? Number(linkage.id) : undefined;
  };
  const tagIds = (values: WriteValues) => {
    const linkage = values.relationships.tags;
    return Array.isArray(linkage) ? linkage.map((t) => Number(t.id)) : undefined;
  };

  const people: PeopleDataLayer<Person, Query<Person>> = {
    ...table(
      () => db.people,
      (field) => (field === 'createdAt' ? 'createdAt' : 'name'),
      (person) => articlesBy(person.id),
    ),
    related: { articles: (models) => models.map((p) => articlesBy(p.id)) },
    queryRelated: (_relationship, person): Query<Article> => ({ rows: articlesBy(person.id), sorts: [] }),
    create: (values) => {
      const person: Person = {
        id: nextId(db.people),
        name: values.attributes.name,
        email: values.attributes.email ?? null,
        createdAt: now(),
      };
      db.people.push(person);
      return person;
    },
    update: (model, values) => Object.assign(model, values.attributes),
    delete: (model) => {
      deleteArticles(new Set(db.articles.filter((a) => a.authorId === model.id).map((a) => a.id)));
      db.comments = db.comments.filter((c) => c.authorId !== model.id);
      db.people = db.people.filter((p) => p !== model);
    },
  };

  const articles: ArticlesDataLayer<Article, Query<Article>> = {
    ...table(
      () => db.articles,
      (field) => (field === 'author' ? 'authorId' : (field as 'title' | 'status' | 'createdAt' | 'updatedAt')),
      (article, relationship): readonly object[] =>
        relationship === 'author'
          ? [byId(db.people, article.authorId)].filter((p) => p !== null)
          : relationship === 'comments'
            ? commentsOn(article.id)
            : tagsOf(article.id),
      // `filter[search]` also inside `filter[or]` and `filter[not]`.
      { search: searched },
    ),
    related: {
      author: (models) => models.map((a) => byId(db.people, a.authorId)),
      comments: (models) => models.map((a) => commentsOn(a.id)),
      tags: (models) => models.map((a) => tagsOf(a.id)),
    },
    // The related endpoints of to-many relationships as queries of the related tables.
    queryRelated: (relationship, article): Query<Comment> | Query<Tag> =>
      relationship.name === 'comments'
        ? { rows: commentsOn(article.id), sorts: [] }
        : { rows: tagsOf(article.id), sorts: [] },
    customFilters: {
      search: (query, value) => ({ ...query, rows: query.rows.filter((a) => searched(a, value)) }),
    },
    can: (ability, article, ctx: Context) =>
      ability === 'update' || ability === 'delete' ? String(article.authorId) === ctx.getAttribute('user') : true,
    // Writes take turns (see `transaction`), so the runtime's If-Match check, made in the write's
    // turn, needs no conditional write here.
    versionOf: (article) => String(article.version),
    create: (values) => {
      const time = now();
      const article: Article = {
        id: nextId(db.articles),
        title: values.attributes.title,
        body: values.attributes.body ?? null,
        status: values.attributes.status,
        authorId: Number(values.relationships.author.id),
        createdAt: time,
        updatedAt: time,
        version: 1,
      };
      db.articles.push(article);
      setTags(
        article.id,
        (values.relationships.tags ?? []).map((t) => Number(t.id)),
      );
      return article;
    },
    update: (model, values) => {
      const tags = tagIds(values);
      if (tags) setTags(model.id, tags);
      Object.assign(model, values.attributes, { updatedAt: now(), version: model.version + 1 });
      const author = linked(values, 'author');
      if (author !== undefined) model.authorId = author;
      return model;
    },
    delete: (model) => deleteArticles(new Set([model.id])),
    addToRelationship: (model, _relationship, identifiers) => {
      const current = tagsOf(model.id).map((t) => t.id);
      setTags(model.id, [...current, ...identifiers.map((t) => Number(t.id)).filter((id) => !current.includes(id))]);
      model.version += 1;
    },
    removeFromRelationship: (model, _relationship, identifiers) => {
      const removed = new Set(identifiers.map((t) => Number(t.id)));
      setTags(
        model.id,
        tagsOf(model.id)
          .map((t) => t.id)
          .filter((id) => !removed.has(id)),
      );
      model.version += 1;
    },
  };

  const comments: CommentsDataLayer<Comment, Query<Comment>> = {
    ...table(
      () => db.comments,
      (field) => (field === 'article' ? 'articleId' : field === 'author' ? 'authorId' : 'createdAt'),
    ),
    related: {
      author: (models) => models.map((c) => byId(db.people, c.authorId)),
      article: (models) => models.map((c) => byId(db.articles, c.articleId)),
    },
    create: (values) => {
      const comment: Comment = {
        id: nextId(db.comments),
        body: values.attributes.body,
        authorId: Number(values.relationships.author.id),
        articleId: Number(values.relationships.article.id),
        createdAt: now(),
      };
      db.comments.push(comment);
      return comment;
    },
    update: (model, values) => {
      Object.assign(model, values.attributes);
      model.authorId = linked(values, 'author') ?? model.authorId;
      model.articleId = linked(values, 'article') ?? model.articleId;
      return model;
    },
    delete: (model) => void (db.comments = db.comments.filter((c) => c !== model)),
  };

  const tags: TagsDataLayer<Tag, Query<Tag>> = {
    ...table(
      () => db.tags,
      () => 'name',
      (tag) => articlesTagged(tag.id),
    ),
    related: { articles: (models) => models.map((t) => articlesTagged(t.id)) },
    queryRelated: (_relationship, tag): Query<Article> => ({ rows: articlesTagged(tag.id), sorts: [] }),
    create: (values) => {
      uniqueTagName(values.attributes.name);
      const tag: Tag = { id: nextId(db.tags), name: values.attributes.name };
      db.tags.push(tag);
      return tag;
    },
    update: (model, values) => {
      if (values.attributes.name !== undefined) uniqueTagName(values.attributes.name, model.id);
      return Object.assign(model, values.attributes);
    },
    delete: (model) => {
      db.tags = db.tags.filter((t) => t !== model);
      db.articleTags = db.articleTags.filter(([, t]) => t !== model.id);
    },
  };

  // The outbox, read-only: entries are appended by `memoryOutbox`, inside the write's transaction.
  const events: EventsDataLayer<OutboxRow, Query<OutboxRow>> = table(
    () => db.events,
    (field) => (field === 'resourceId' ? 'resourceId' : 'id'),
  );

  const dataLayers: DataLayers = { people, articles, comments, tags, events };
  let queue: Promise<unknown> = Promise.resolve();
  /** One write at a time; a failed one leaves the tables as they were. */
  const transaction = <T>(run: () => Promise<T>): Promise<T> => {
    const result = queue.then(async () => {
      const snapshot = structuredClone(db);
      try {
        return await run();
      } catch (error) {
        Object.assign(db, snapshot);
        throw error;
      }
    });
    queue = result.catch(() => undefined);
    return result;
  };
  /** The API's `outbox`: entries appended to `db.events`, so a rolled-back write's go with its snapshot. */
  const outbox = (types: readonly string[]): Outbox => ({
    types,
    record: (entry) => {
      db.events.push({
        id: nextId(db.events),
        action: entry.action,
        resourceType: entry.type,
        resourceId: entry.id,
        changed: JSON.stringify(entry.changed),
        occurredAt: entry.occurredAt,
      });
    },
  });
  return { dataLayers, transaction, outbox };
}

/** Idempotency keys in a Map: the in-process counterpart of `kyselyIdempotency`. */
export function memoryIdempotency(): IdempotencyStore {
  const keys = new Map<string, { fingerprint: string; response?: StoredResponse }>();
  return {
    claim: (k, fingerprint) => {
      const found = keys.get(k);
      if (!found) {
        keys.set(k, { fingerprint });
        return Promise.resolve({ state: 'new' });
      }
      if (found.fingerprint !== fingerprint) return Promise.resolve({ state: 'mismatch' });
      return Promise.resolve(found.response ? { state: 'done', response: found.response } : { state: 'in-flight' });
    },
    complete: (k, response) => {
      const found = keys.get(k);
      if (found) found.response = response;
      return Promise.resolve();
    },
    release: (k) => {
      keys.delete(k);
      return Promise.resolve();
    },
  };
}
