/** The data layers of src/schema.ts: each resource backed by a model of prisma/schema.prisma (@jsonapi-gen/prisma). */
import { defineStore } from '@jsonapi-gen/prisma';
import type { PrismaClient } from '../prisma/generated/client.js';
import type { DataLayers } from './generated/index.js';

/**
 * Models, fields and foreign keys are checked against the generated Prisma client: a misspelt
 * one does not compile. The mapping is not yet checked against the schema's generated
 * resource types, hence the cast to `DataLayers`.
 */
export function createStore(prisma: PrismaClient): DataLayers {
  const layers = defineStore(
    prisma,
    {
      authors: {
        model: 'author',
        table: 'authors',
        relationships: { books: { field: 'books', model: 'book', foreignKey: 'authorId' } },
      },
      books: {
        model: 'book',
        table: 'books',
        columns: { authorId: 'author_id' },
        nullable: ['year'],
        relationships: { author: { field: 'author', foreignKey: 'authorId' } },
      },
    },
    { provider: 'sqlite' },
  );
  return layers as unknown as DataLayers;
}
