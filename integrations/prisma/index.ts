/**
 * Prisma integration: back JSON:API resources by the models of a Prisma Client 7 (driver
 * adapters, no query engine). In progress: see README.md for what it holds so far.
 */
export {};
