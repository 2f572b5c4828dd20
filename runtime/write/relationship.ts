import { ForbiddenError, NotFoundError, UnprocessableEntityError, cappedErrors } from '../core/errors.js';
import { Relationship, type ToMany } from '../dsl/fields.js';
import type { WriteValues } from '../core/vocabulary.js';
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
  const definition = resource.definition;
  if (method === 'PATCH') {
    const update = supported(definition.update, `Updating resources of type "${resource.type}" is not supported`);
    // A PATCH of a relationship is an update of the resource: its validation and hooks apply.
    await validateWrite(resource, values, model, context);
    if (endpoint.savingHooks.length > 0) {
      values = await runSaving(endpoint.savingHooks, values, model, context);
      await checkLinkageExists(values, resource, state.lookup, context, '/data', state.limits.errors);
    }
    afterCommit(state, endpoint.afterHooks, await update.call(definition, model, values, context));
  } else {
    const identifiers = unique(linkage as { type: string; id: string }[]);
    if (method === 'POST') {
      const [current] = await resource.loadRelated!(relationship, [model], context);
      const related = state.lookup(relationship.relatedType)!;
      const members = new Set((current as unknown[]).map((m) => related.getId(m, context)));
      const added = identifiers.filter((i) => !members.has(i.id));
      const add = supported(definition.addToRelationship, `Adding to ${resource.type}.${name} is not supported`);
      if (added.length > 0) await add.call(definition, model, relationship as ToMany, added, context);
    } else {
      const remove = supported(
        definition.removeFromRelationship,
        `Removing from ${resource.type}.${name} is not supported`,
      );
      if (identifiers.length > 0) await remove.call(definition, model, relationship as ToMany, identifiers, context);
    }
  }
  // A relationship write is an update of the resource: one outbox entry, naming the relationship.
  await recordWrite(state, 'update', id, values);
  return NO_CONTENT;
}

function unique(identifiers: { type: string; id: string }[]): { type: string; id: string }[] {
  const seen = new Set<string>();
  return identifiers.filter((i) => !seen.has(i.id) && (seen.add(i.id), true));
}
