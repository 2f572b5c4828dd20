import { respond } from '../pipeline/respond.js';
import type { HttpResult } from '../http/result.js';
import { checkLinkageExists } from './linkage.js';
import { readResourceDocument } from './payload.js';
import { afterCommit, runSaving, validateWrite } from './hooks.js';
import { recordWrite } from './outbox.js';
import {
  checkDocumentParameters,
  checkIfMatch,
  findOr404,
  mustBeVisible,
  supported,
  versionOf,
} from '../pipeline/checks.js';
import { onlyParameters } from '../query/checks.js';
import { type RequestState, requestBody, documentBuilder } from '../pipeline/state.js';

/** `PATCH /{type}/{id}`: `find`, the endpoint's callbacks with the model, `If-Match`, `update`; 200 with the result. */
export async function serveUpdate(state: RequestState, id: string): Promise<HttpResult> {
  const { resource, query, context } = state;
  const update = supported(
    resource.definition.update,
    `Updating resources of type "${resource.type}" is not supported`,
  );
  onlyParameters(query, ['include', 'fields'], 'an update request');
  checkDocumentParameters(state, resource);
  const model = await findOr404(state, resource, id);
  const endpoint = resource.endpoint('update')!;
  await mustBeVisible(
    state.trace?.begin('authorize'),
    endpoint.permits(model, context, resource.policy),
    `You may not update this resource of type "${resource.type}"`,
  );
  checkIfMatch(state, resource, model, 'update');
  let values = await readResourceDocument(await requestBody(state), {
    resource,
    context,
    mode: 'update',
    id,
    model,
    maxErrors: state.limits.errors,
  });
  await validateWrite(resource, values, model, context);
  if (endpoint.savingHooks.length > 0) values = await runSaving(endpoint.savingHooks, values, model, context);
  await checkLinkageExists(values, resource, state.lookup, context, undefined, state.limits.errors);
  const updated = await update.call(resource.definition, model, values, context);
  await recordWrite(state, 'update', id, values);
  afterCommit(state, endpoint.afterHooks, updated);
  const builder = documentBuilder(state);
  const nodes = builder.primary(resource, [updated]);
  await builder.complete(resource, nodes, query.include);
  return respond(
    state,
    {
      links: { self: nodes[0]!.object.links.self },
      data: nodes[0]!.object,
      ...(query.include && { included: builder.included }),
    },
    200,
    undefined,
    versionOf(state, resource, updated),
  );
}
