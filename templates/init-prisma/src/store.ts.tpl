/** The data layers of src/schema.ts: each resource backed by a model of prisma/schema.prisma (@jsonapi-gen/prisma). */
import { defineStore } from '@jsonapi-gen/prisma';
import type { PrismaClient } from '../prisma/generated/client.js';
import type { DataLayers, Resources } from './generated/index.js';

/**
 * Checked against the generated Prisma client and the schema's generated resource types: a
 * misspelt model, field or relation, or an attribute mapped to a field of another kind, does
 * not compile, at its line.
 */
export function createStore(prisma: PrismaClient): DataLayers {
  return defineStore<PrismaClient, Resources>(
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
}
