/**
 * The table mapping is typed against the host's Database: wrong tables and columns are compile
 * errors (`npm test` type-checks this file; the functions below never run).
 */
import type { Kysely } from 'kysely';
import { defineTableStore, type KyselyDataLayer, type ListQuery, type UntypedResource } from '@jsonapi-gen/kysely';
import { describe, expectTypeOf, it } from 'vitest';
import type { Database } from '../../examples/blog/db.js';

declare const db: Kysely<Database>;

describe('defineStore types', () => {
  it('accepts the blog mapping and gives a data layer per type', () => {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- never called (`db` is only declared): only its type is checked
    const build = () =>
      defineTableStore(db, {
        articles: {
          table: 'articles',
          columns: { createdAt: 'created_at' },
          relationships: {
            author: { type: 'toOne', foreignKey: 'author_id' },
            comments: { type: 'toMany', table: 'comments', foreignKey: 'article_id' },
            tags: { type: 'toMany', through: { table: 'article_tags', from: 'article_id', to: 'tag_id' } },
          },
        },
        tags: { table: 'tags' },
      });
    expectTypeOf<ReturnType<typeof build>['articles']>().toEqualTypeOf<KyselyDataLayer<UntypedResource>>();
    expectTypeOf<Awaited<ReturnType<KyselyDataLayer['query']>>>().toEqualTypeOf<ListQuery>();
  });

  it('rejects unknown tables and columns', () => {
    void (() => {
      // @ts-expect-error: no such table
      defineTableStore(db, { articles: { table: 'posts' } });
      // @ts-expect-error: no such column on articles
      defineTableStore(db, { articles: { table: 'articles', columns: { createdAt: 'createdAt' } } });
      // prettier-ignore
      // @ts-expect-error: the to-one foreign key is a column of this table
      defineTableStore(db, { articles: { table: 'articles', relationships: { author: { type: 'toOne', foreignKey: 'article_id' } } } });
      // prettier-ignore
      // @ts-expect-error: the to-many foreign key is a column of the related table
      defineTableStore(db, { articles: { table: 'articles', relationships: { comments: { type: 'toMany', table: 'comments', foreignKey: 'tag_id' } } } });
      defineTableStore(db, {
        articles: {
          table: 'articles',
          // @ts-expect-error: join-table columns are columns of the join table
          relationships: { tags: { type: 'toMany', through: { table: 'article_tags', from: 'article_id', to: 'id' } } },
        },
      });
    });
  });
});
