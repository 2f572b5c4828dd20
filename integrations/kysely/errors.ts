import { BadRequestError, ConflictError } from '../../runtime/index.js';

/**
 * Runs a statement; a value the database cannot compare with its column (PostgreSQL's SQLSTATE
 * class 22, "data exception": `filter[author]=abc` against an integer column) is the client's
 * mistake, so it becomes a 400 rather than a 500; a unique violation (23505, or SQLite's
 * SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY) becomes a 409.
 */
export async function runStatement<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (thrown) {
    const code = (thrown as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)) {
      throw new BadRequestError({ detail: 'A filter value is not valid for the column it is compared with', code: 'invalid_filter_value' });
    }
    if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      throw new ConflictError({ detail: 'A resource with these values already exists', code: 'unique_violation' });
    }
    throw thrown;
  }
}
