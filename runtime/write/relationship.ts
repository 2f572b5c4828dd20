import { ForbiddenError, NotFoundError, UnprocessableEntityError, cappedErrors } from '../core/errors.js';
import { Relationship, type ToMany } from '../dsl/fields.js';
import type { ResourceIdentifier, WriteValues } from '../core/vocabulary.js';
import { checkLinkageExists } from './linkage.js';
import { afterCommit, runSaving, validateWrite } from './hooks.js';
import { recordWrite } from './outbox.js';
import { linkageTypeErrors, readLinkage, topLevelData } from './payload.js';
import { checkIfMatch, findOr404, mustBeVisible, supported } from '../pipeline/checks.js';
import { onlyParameters } from '../query/checks.js';
import { type RequestState, requestBody } from '../pipeline/state.js';
import { type HttpResult, NO_CONTENT } from '../http/result.js';

/**
 * `PATCH` (replace or clear), `POST` (add, no duplicates) and `DELETE` (remove) on
 * `/{type}/{id}/relationships/{name}`; 204 on success. Only writable relationships of
 * resources with an Update endpoint; `POST`/`DELETE` only on to-many (403 otherwise).
 */
export async function serveRelationshipWrite(
  state: RequestState,
  id: string,
  name: string,
  method: string,
): Promise<HttpResult> {
  const { resource, query, context } = state;
  const field = resource.fields.get(name);
  const unknown = () => new NotFoundError({ detail: `${resource.type} has no relationship "${name}"` });
  if (!(field instanceof Relationship) || !field.isVisibleFor(undefined, context)) throw unknown();
  const relationship = field;
  onlyParameters(query, [], 'a relationship update');
  if (!relationship.isWritable)
    throw new ForbiddenError({ detail: `${resource.type}.${name} is read-only`, code: 'read_only' });
  if (method !== 'PATCH' && relationship.cardinality === 'one') {
    throw new ForbiddenError({ detail: `${name} is a to-one relationship: replace it with PATCH`, code: 'to_one' });
  }
  const model = await findOr404(state, resource, id);
  if (!relationship.isVisibleFor(model, context)) throw unknown();
  const endpoint = resource.endpoint('update')!;
  await mustBeVisible(
    state.trace?.begin('authorize'),
    endpoint.permits(model, context, resource.policy),
    `You may not update this resource of type "${resource.type}"`,
  );
  if (relationship.hasWritePolicy && !(await relationship.mayWrite(model, context)))
    throw new ForbiddenError({ detail: `${name} is read-only`, source: { pointer: '/data' }, code: 'read_only' });
  checkIfMatch(state, resource, model, 'update');
  const linkage = readLinkage(relationship, topLevelData(await requestBody(state)), '/data');
  if (linkage === null && relationship.isRequired) {
    throw new UnprocessableEntityError({
      detail: `${name} is required and cannot be cleared`,
      source: { pointer: '/data' },
      code: 'required',
    });
  }
  const conflicts = linkageTypeErrors(relationship, linkage, '/data', state.limits.errors);
  if (conflicts.length > 0) throw cappedErrors(conflicts, state.limits.errors, conflicts.length > state.limits.errors);
  let values: WriteValues = {
    attributes: Object.create(null) as WriteValues['attributes'],
    relationships: Object.assign(Object.create(null) as WriteValues['relationships'], { [name]: linkage }),
  };
  await checkLinkageExists(values, resource, state.lookup, context, '/data', state.limits.errors);
  if (method === 'PATCH') {
    // A PATCH of a relationship is an update of the resource: its validation and hooks apply.
    await validateWrite(resource, values, model, context);
    if (endpoint.savingHooks.length > 0) {
      values = await runSaving(endpoint.savingHooks, values, model, context);
      await checkLinkageExists(values, resource, state.lookup, context, '/data', state.limits.errors);
    }
    await update(state, model, values);
  } else {
    values = await changeMembers(
      state,
      model,
      relationship as ToMany,
      unique(linkage as ResourceIdentifier[]),
      method,
      values,
    );
  }
  // A relationship write is an update of the resource: one outbox entry, naming the relationship.
  await recordWrite(state, 'update', id, values);
  return NO_CONTENT;
}

/** Writes `values` with the data layer's `update`; the Update endpoint's `saved` hooks run after commit with the stored model. */
async function update(state: RequestState, model: unknown, values: WriteValues): Promise<void> {
  const { resource, context } = state;
  const definition = resource.definition;
  const write = supported(definition.update, `Updating resources of type "${resource.type}" is not supported`);
  afterCommit(state, resource.endpoint('update')!.afterHooks, await write.call(definition, model, values, context));
}

/**
 * `POST` (add) or `DELETE` (remove) on a to-many relationship: an update of the resource like a
 * `PATCH`, so the resource's `validate` and the Update endpoint's `saving` hooks see it as the
 * set of members it leaves (read in the transaction), and its `saved` hooks run after commit
 * with the stored model. The store adds or removes just the members named; a `saving` hook that
 * answers other values has them written as a `PATCH` would (replacing the relationship).
 * Answers the values the outbox records.
 */
async function changeMembers(
  state: RequestState,
  model: unknown,
  relationship: ToMany,
  identifiers: ResourceIdentifier[],
  method: string,
  values: WriteValues,
): Promise<WriteValues> {
  const { resource, context } = state;
  const definition = resource.definition;
  const endpoint = resource.endpoint('update')!;
  const name = relationship.name;
  const hooked = definition.validate !== undefined || endpoint.savingHooks.length > 0;
  let members: ResourceIdentifier[] | undefined;
  if (method === 'POST' || hooked) {
    const [current] = await resource.loadRelated!(relationship, [model], context);
    const related = state.lookup(relationship.relatedType)!;
    members = (current as unknown[]).map((m) => ({ type: relationship.relatedType, id: related.getId(m, context) }));
  }
  const held = new Set(members?.map((m) => m.id));
  const named = new Set(identifiers.map((i) => i.id));
  const added = identifiers.filter((i) => !held.has(i.id));
  if (hooked) {
    const after = method === 'POST' ? [...members!, ...added] : members!.filter((m) => !named.has(m.id));
    const whole: WriteValues = {
      attributes: values.attributes,
      relationships: { ...values.relationships, [name]: after },
    };
    await validateWrite(resource, whole, model, context);
    const leaves = JSON.stringify(after.map((m) => m.id));
    const saving = await runSaving(endpoint.savingHooks, whole, model, context);
    if (!leavesOnly(saving, name, leaves)) {
      await checkLinkageExists(saving, resource, state.lookup, context, '/data', state.limits.errors);
      await update(state, model, saving);
      return saving;
    }
  }
  if (method === 'POST') {
    const add = supported(definition.addToRelationship, `Adding to ${resource.type}.${name} is not supported`);
    if (added.length > 0) await add.call(definition, model, relationship, added, context);
  } else {
    const remove = supported(
      definition.removeFromRelationship,
      `Removing from ${resource.type}.${name} is not supported`,
    );
    if (identifiers.length > 0) await remove.call(definition, model, relationship, identifiers, context);
  }
  afterCommit(state, endpoint.afterHooks, model);
  return values;
}

/** Whether `values` write nothing but relationship `name`, as the members `leaves` (their ids as a JSON array) in order. */
function leavesOnly(values: WriteValues, name: string, leaves: string): boolean {
  const members = values.relationships[name];
  return (
    Object.keys(values.attributes).length === 0 &&
    Object.keys(values.relationships).length === 1 &&
    Array.isArray(members) &&
    JSON.stringify(members.map((m: ResourceIdentifier) => m.id)) === leaves
  );
}

function unique(identifiers: ResourceIdentifier[]): ResourceIdentifier[] {
  const seen = new Set<string>();
  return identifiers.filter((i) => !seen.has(i.id) && (seen.add(i.id), true));
}
