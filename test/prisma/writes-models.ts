/** The demo's articles and tags as the write functions describe them (integrations/prisma/writes.ts). */
import type { WriteModel } from '../../integrations/prisma/writes.js';

export const ARTICLES: WriteModel = {
  type: 'articles',
  model: 'article',
  table: 'articles',
  attributes: { title: 'title', body: 'body', status: 'status' },
  columns: { authorId: 'author_id', createdAt: 'created_at', updatedAt: 'updated_at' },
  toOne: { author: { foreignKey: 'authorId' } },
  toMany: {
    tags: { relation: 'tags', through: { model: 'articleTag', from: 'articleId', to: 'tagId' } },
    comments: { relation: 'comments', connect: true },
  },
  version: 'version',
  serverSet: (operation) => {
    const now = new Date('2030-01-02T03:04:05.000Z');
    return operation === 'create' ? { createdAt: now, updatedAt: now } : { updatedAt: now };
  },
};

export const TAGS: WriteModel = { type: 'tags', model: 'tag', table: 'tags', attributes: { name: 'name' } };
