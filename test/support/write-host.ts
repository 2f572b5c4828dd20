/**
 * A small blog host for write tests: people, articles, tags in memory, with an article_tags
 * join, every write data-layer method, and a transaction that restores a snapshot on failure.
 */
import {
  Attribute,
  Create,
  Delete,
  Index,
  JsonApi,
  Show,
  ToMany,
  ToOne,
  Update,
  defineResource,
  type JsonApiOptions,
  type ResourceDefinition,
  type StandardSchema,
} from 'jsonapi-gen';

export type Row = Record<string, unknown> & { id: number };

/** A tiny relational store in memory: tables of rows, an article_tags join, snapshots for rollback. */
export function store(options: Pick<JsonApiOptions, 'extensions' | 'limits' | 'onError'> = {}) {
  const tables: Record<string, Row[]> = {
    people: [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
    ],
    articles: [{ id: 1, title: 'First', body: null, status: 'draft', authorId: 1, views: 0, publishedOn: null }],
    tags: [
      { id: 1, name: 'news' },
      { id: 2, name: 'tech' },
    ],
  };
  let articleTags: Array<[number, number]> = [[1, 1]];
  let failOn: string | undefined;
  const api = new JsonApi({
    onError: () => {},
    ...options,
    // All-or-nothing writes over the in-memory tables: restore the snapshot when anything fails.
    transaction: async (run) => {
      const saved = structuredClone({ tables, articleTags });
      try {
        return await run();
      } catch (error) {
        for (const k of Object.keys(tables)) tables[k] = saved.tables[k]!;
        articleTags = saved.articleTags;
        throw error;
      }
    },
  });
  const layer = (type: string): Partial<ResourceDefinition> => ({
    find: (id) => tables[type]!.find((r) => String(r.id) === id) ?? null,
    query: () => tables[type]!,
    results: (rows: Row[]) => rows,
    delete: (model: Row) => {
      tables[type] = tables[type]!.filter((r) => r !== model);
    },
    create: (values) => {
      const row: Row = {
        id: values.id ? Number(values.id) : Math.max(0, ...tables[type]!.map((r) => r.id)) + 1,
        ...values.attributes,
      };
      for (const [name, linkage] of Object.entries(values.relationships)) {
        if (name === 'author') row.authorId = linkage && !Array.isArray(linkage) ? Number(linkage.id) : null;
      }
      tables[type]!.push(row);
      if (failOn === 'tags') throw new Error('the join table is broken');
      if (Array.isArray(values.relationships.tags)) {
        for (const t of values.relationships.tags) articleTags.push([row.id, Number(t.id)]);
      }
      return row;
    },
    update: (model: Row, values) => {
      Object.assign(model, values.attributes);
      const author = values.relationships.author;
      if (author !== undefined) model.authorId = author && !Array.isArray(author) ? Number(author.id) : null;
      const tags = values.relationships.tags;
      if (Array.isArray(tags))
        articleTags = [
          ...articleTags.filter(([a]) => a !== model.id),
          ...tags.map((t): [number, number] => [model.id, Number(t.id)]),
        ];
      return model;
    },
    loadRelated: (relationship, models: Row[]) =>
      models.map((m) =>
        relationship.name === 'author'
          ? (tables.people!.find((p) => p.id === m.authorId) ?? null)
          : relationship.name === 'tags'
            ? articleTags.filter(([a]) => a === m.id).map(([, t]) => tables.tags!.find((x) => x.id === t))
            : tables.articles!.filter((a) => a.authorId === m.id),
      ),
    addToRelationship: (model: Row, _relationship, identifiers) => {
      for (const i of identifiers) articleTags.push([model.id, Number(i.id)]);
    },
    removeFromRelationship: (model: Row, _relationship, identifiers) => {
      const ids = new Set(identifiers.map((i) => Number(i.id)));
      articleTags = articleTags.filter(([a, t]) => a !== model.id || !ids.has(t));
    },
  });
  const upper: StandardSchema = {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: (value) =>
        typeof value === 'string' && value.trim() !== ''
          ? { value: value.trim() }
          : { issues: [{ message: 'must not be blank' }] },
    },
  };
  api.resource({
    ...defineResource({
      type: 'people',
      fields: [Attribute.make('name').writable().required(), ToMany.make('articles').type('articles')],
      endpoints: [Show.make(), Index.make(), Create.make().clientIds(), Update.make()],
    }),
    ...layer('people'),
  });
  api.resource({
    ...defineResource({
      type: 'articles',
      fields: [
        Attribute.make('title').type('string').writable().required().maxLength(20).validate(upper),
        Attribute.make('body').type('string').nullable().writable(),
        Attribute.make('status').type('enum', ['draft', 'published']).writable().default('draft'),
        Attribute.make('views').type('integer').min(0),
        Attribute.make('publishedOn').type('date').nullable().writable(),
        ToOne.make('author').type('people').includable().writable().required(),
        ToMany.make('tags').type('tags').includable().writable(),
      ],
      endpoints: [
        Show.make(),
        Index.make(),
        Create.make().visible((ctx) => ctx.getAttribute('user') !== undefined),
        Update.make().visible((article: Row, ctx) => String(article.authorId) === ctx.getAttribute('user')),
        Delete.make(),
      ],
    }),
    ...layer('articles'),
  });
  api.resource({
    ...defineResource({
      type: 'tags',
      fields: [Attribute.make('name').writable().required()],
      endpoints: [Show.make(), Index.make(), Create.make()],
    }),
    ...layer('tags'),
  });
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'content-type': 'application/vnd.api+json', ...headers },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
      { attributes: { user: '1' } },
    );
  return {
    api,
    tables,
    send,
    tagsOf: (id: number) => articleTags.filter(([a]) => a === id).map(([, t]) => t),
    fail: (on: string) => (failOn = on),
  };
}
