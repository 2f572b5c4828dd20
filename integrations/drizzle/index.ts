/**
 * Drizzle integration: back JSON:API resources by a host's Drizzle tables (SQLite through
 * better-sqlite3, PostgreSQL through node-postgres). In progress: README.md lists what it holds
 * and what it does not yet.
 */
export {};
