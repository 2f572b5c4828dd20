/** Whether the resources a write links to exist (404 for each that does not). */
import type { Context } from '../context.js';
import type { ResourceLookup } from '../document/builder.js';
import { JsonApiErrors, NotFoundError } from '../errors.js';
import type { ToMany, ToOne } from '../schema/fields.js';
import type { RegisteredResource } from '../schema/registry.js';
import type { ResourceIdentifier, WriteValues } from '../vocabulary.js';
import { escape } from './payload.js';

/** Lookups `checkLinkageExists` runs at once (inside a transaction they queue on one connection anyway). */
const LINKAGE_LOOKUPS = 8;
/** The most ids one `findMany` call is given. */
const FIND_MANY_BATCH = 100;

/**
 * 404 for every identifier whose resource does not exist (through the related type's
 * `findMany`, else its `find`). Gathers all misses; one lookup per distinct identifier (or per
 * batch of them), a few at a time: a body naming the same or many resources thousands of times
 * costs a linear number of lookups, not a flood of concurrent ones (which a transaction's single
 * connection serves in quadratic time).
 */
export async function checkLinkageExists(
  values: Pick<WriteValues, 'relationships'>,
  resource: RegisteredResource,
  lookup: ResourceLookup,
  context: Context,
  base = '/data/relationships',
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
  // One task per id, or per batch of ids (key and id) of a type whose data layer has findMany.
  const tasks: Array<() => Promise<void>> = [];
  const filling = new Map<RegisteredResource, Array<[key: string, id: string]>>();
  for (const [key, { related, id }] of lookups) {
    const { find, findMany } = related.definition;
    if (!findMany) {
      tasks.push(async () => {
        const model = find ? await find.call(related.definition, id, context) : null;
        exists.set(key, model !== null && model !== undefined);
      });
      continue;
    }
    let batch = filling.get(related);
    if (!batch || batch.length === FIND_MANY_BATCH) {
      const chunk: Array<[string, string]> = (batch = []);
      filling.set(related, chunk);
      tasks.push(async () => {
        const models = await findMany.call(related.definition, chunk.map(([, one]) => one), context);
        if (!Array.isArray(models) || models.length !== chunk.length) {
          throw new TypeError(`${related.type}.findMany returned ${Array.isArray(models) ? models.length : typeof models} models for ${chunk.length} ids`);
        }
        chunk.forEach(([one], i) => exists.set(one, models[i] !== null && models[i] !== undefined));
      });
    }
    batch.push([key, id]);
  }
  await runLookups(tasks);
  const errors = uses
    .filter((use) => !exists.get(use.key))
    .map(({ identifier, name, index }) => {
      const pointer = `${base}${base.endsWith('/data') ? '' : `/${escape(name)}/data`}${index === undefined ? '' : `/${index}`}`;
      return new NotFoundError({ detail: `There is no ${identifier.type} with id "${identifier.id}"`, source: { pointer }, code: 'related_not_found' });
    });
  if (errors.length > 0) throw new JsonApiErrors(errors);
}

/** Runs lookups, up to `LINKAGE_LOOKUPS` at a time. */
async function runLookups(tasks: ReadonlyArray<() => Promise<void>>): Promise<void> {
  let taken = 0;
  const worker = async (): Promise<void> => {
    while (taken < tasks.length) await tasks[taken++]!();
  };
  await Promise.all(Array.from({ length: Math.min(LINKAGE_LOOKUPS, tasks.length) }, worker));
}
