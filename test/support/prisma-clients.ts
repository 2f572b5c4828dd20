/**
 * Vitest globalSetup: the demo's Prisma clients (examples/blog/prisma/generated/), generated
 * once per run before any file imports them, and only when the run selected a suite under
 * test/prisma/ (`integrations/prisma/scripts/generate.ts`; offline, and a no-op when they are
 * up to date). Generating in each file instead would race on the same folders.
 */
import type { TestProject } from 'vitest/node';
import { generateClients } from '../../integrations/prisma/scripts/generate.js';

/** The test files that import a generated Prisma client. */
const NEEDS_PRISMA = /[\\/]test[\\/](prisma|e2e)[\\/]/;

export default async function setup(project: TestProject): Promise<void> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const specifications = await project.vitest.globTestSpecifications(filters);
  if (specifications.some((specification) => NEEDS_PRISMA.test(specification.moduleId))) generateClients();
}
