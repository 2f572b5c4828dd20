/** Whether the resources a write links to exist (404 for each that does not). */
import type { Context } from '../dsl/context.js';
import { type JsonApiError, JsonApiErrors, NotFoundError, tooManyErrors } from '../core/errors.js';
import { DEFAULT_LIMITS } from '../core/limits.js';
import type { ToMany, ToOne } from '../dsl/fields.js';
import type { SharedExistence } from '../dsl/resource.js';
import type { RegisteredResource, ResourceLookup } from '../registry/registry.js';
import type { ResourceIdentifier, WriteValues } from '../core/vocabulary.js';
import { escape } from './payload.js';

/** Lookups `checkLinkageExists` runs at once (inside a transaction they queue on one connection anyway). */
const LINKAGE_LOOKUPS = 8;
/** The most ids one `findMany` call is given (and one `existence` call, per type). */
const FIND_MANY_BATCH = 100;

/**
 * 404 for every identifier whose resource does not exist (through the related type's
 * `findMany`, else its `find`; related types whose data layers share an `existence` check, all
 * through one call of it). Gathers all misses; one lookup per distinct identifier (or per
 * batch of them), a few at a time: a body naming the same or many resources thousands of times
 * costs a linear number of lookups, not a flood of concurrent ones (which a transaction's single
 * connection serves in quadratic time). Lists at most `maxErrors` misses (`limits.errors`), then
 * one error counting the others.
 */
export async function checkLinkageExists(
  values: Pick<WriteValues, 'relationships'>,
  resource: RegisteredResource,
  lookup: ResourceLookup,
  context: Context,
  base = '/data/relationships',
  maxErrors = DEFAULT_LIMITS.errors,
): Promise<void> {
  const lookups = new Map<string, { related: RegisteredResource; id: string }>();
  // Where each identifier was written; its pointer is built only if it turns out missing.
  const uses: Array<{ key: string; identifier: ResourceIdentifier; name: string; index: number | undefined }> = [];
  for (const name of Object.keys(values.relationships)) {
    const linkage = values.relationships[name]!;
    const relationship = resource.fields.get(name) as ToOne | ToMany;
    const related = lookup(relationship.relatedType)!;
    const list = linkage === null ? [] : Array.isArray(linkage) ? linkage : [linkage];
    list.forEach((identifier, i) => {
      const key = `${related.type}\u0000${identifier.id}`;
      if (!lookups.has(key)) lookups.set(key, { related, id: identifier.id });
      uses.push({ key, identifier, name, index: Array.isArray(linkage) ? i : undefined });
    });
  }
  const exists = new Map<string, boolean>();
  // The distinct identifiers (key and id) of each related type.
  const byType = new Map<RegisteredResource, Array<[key: string, id: string]>>();
  for (const [key, { related, id }] of lookups) {
    const entries = byType.get(related);
    if (entries) entries.push([key, id]);
    else byType.set(related, [[key, id]]);
  }
  const tasks: Array<() => Promise<void>> = [];
  // Types whose data layers share an existence check: one call for all of them (when two or more).
  const shared = new Map<
    SharedExistence,
    Array<{ related: RegisteredResource; member: string; entries: Array<[string, string]> }>
  >();
  for (const [related, entries] of byType) {
    const existence = related.definition.existence;
    if (!existence || !related.definition.findMany) continue;
    const members = shared.get(existence.check);
    const member = { related, member: existence.member, entries };
    if (members) members.push(member);
    else shared.set(existence.check, [member]);
  }
  for (const [check, members] of shared) {
    if (members.length < 2) continue;
    for (const { related } of members) byType.delete(related);
    tasks.push(...sharedTasks(check, members, exists, context));
  }
  for (const [related, entries] of byType) tasks.push(...typeTasks(related, entries, exists, context));
  await runLookups(tasks);
  const errors: JsonApiError[] = [];
  let more = 0;
  for (const { key, identifier, name, index } of uses) {
    if (exists.get(key)) continue;
    if (errors.length === maxErrors) {
      more++;
      continue;
    }
    const pointer = `${base}${base.endsWith('/data') ? '' : `/${escape(name)}/data`}${index === undefined ? '' : `/${index}`}`;
    errors.push(
      new NotFoundError({
        detail: `There is no resource of type "${identifier.type}" with id "${identifier.id}"`,
        source: { pointer },
        code: 'related_not_found',
      }),
    );
  }
  if (more > 0) errors.push(tooManyErrors(404, maxErrors, more));
  if (errors.length > 0) throw new JsonApiErrors(errors);
}

/** One task per identifier (`find`), or per batch of up to `FIND_MANY_BATCH` of them (`findMany`). */
function typeTasks(
  related: RegisteredResource,
  entries: ReadonlyArray<[key: string, id: string]>,
  exists: Map<string, boolean>,
  context: Context,
): Array<() => Promise<void>> {
  const { find, findMany } = related.definition;
  if (!findMany) {
    return entries.map(([key, id]) => async () => {
      const model = find ? await find.call(related.definition, id, context) : null;
      exists.set(key, model !== null && model !== undefined);
    });
  }
  return chunks(entries).map((chunk) => async () => {
    const models = await findMany.call(
      related.definition,
      chunk.map(([, id]) => id),
      context,
    );
    if (!Array.isArray(models) || models.length !== chunk.length) {
      throw new TypeError(
        `${related.type}.findMany returned ${Array.isArray(models) ? models.length : typeof models} models for ${chunk.length} ids`,
      );
    }
    chunk.forEach(([key], i) => exists.set(key, models[i] !== null && models[i] !== undefined));
  });
}

/** One `check.exist` call per round of batches: the first batch of every member, then the second... */
function sharedTasks(
  check: SharedExistence,
  members: ReadonlyArray<{ member: string; entries: ReadonlyArray<[key: string, id: string]> }>,
  exists: Map<string, boolean>,
  context: Context,
): Array<() => Promise<void>> {
  const batched = members.map(({ member, entries }) => ({ member, batches: chunks(entries) }));
  const rounds = Math.max(...batched.map(({ batches }) => batches.length));
  return Array.from({ length: rounds }, (_, round) => async () => {
    const taking = batched
      .filter(({ batches }) => round < batches.length)
      .map(({ member, batches }) => ({ member, batch: batches[round]! }));
    const answers = await check.exist(
      taking.map(({ member, batch }) => ({ member, ids: batch.map(([, id]) => id) })),
      context,
    );
    taking.forEach(({ member, batch }, i) => {
      const answer: unknown = Array.isArray(answers) ? answers[i] : undefined;
      if (!Array.isArray(answer) || answer.length !== batch.length) {
        throw new TypeError(
          `existence.exist answered ${Array.isArray(answer) ? answer.length : typeof answer} values for ${batch.length} ids of ${member}`,
        );
      }
      batch.forEach(([key], j) => exists.set(key, answer[j] === true));
    });
  });
}

/** `entries` in batches of at most `FIND_MANY_BATCH`. */
function chunks<T>(entries: readonly T[]): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < entries.length; i += FIND_MANY_BATCH) batches.push(entries.slice(i, i + FIND_MANY_BATCH));
  return batches;
}

/** Runs lookups, up to `LINKAGE_LOOKUPS` at a time. */
async function runLookups(tasks: ReadonlyArray<() => Promise<void>>): Promise<void> {
  let taken = 0;
  const worker = async (): Promise<void> => {
    while (taken < tasks.length) await tasks[taken++]!();
  };
  await Promise.all(Array.from({ length: Math.min(LINKAGE_LOOKUPS, tasks.length) }, worker));
}
