import { checkIfMatch, findOr404, mustBeVisible } from '../pipeline/checks.js';
import { onlyParameters } from '../query/checks.js';
import type { RequestState } from '../pipeline/state.js';
import { afterCommit, runDeleting } from './hooks.js';
import { recordWrite } from './outbox.js';
import { type HttpResult, NO_CONTENT } from '../http/result.js';

/** `DELETE /{type}/{id}`: `find`, the endpoint's callbacks with the model, `delete`, 204. */
export async function serveDelete(state: RequestState, id: string): Promise<HttpResult> {
  const { resource, query, context } = state;
  onlyParameters(query, [], 'a delete request');
  const model = await findOr404(state, resource, id);
  const endpoint = resource.endpoint('delete')!;
  await mustBeVisible(
    state.trace?.begin('authorize'),
    endpoint.permits(model, context, resource.policy),
    `You may not delete this resource of type "${resource.type}"`,
  );
  checkIfMatch(state, resource, model, 'delete');
  if (endpoint.savingHooks.length > 0) await runDeleting(endpoint.savingHooks, model, context);
  await resource.definition.delete!(model, context);
  await recordWrite(state, 'delete', id);
  afterCommit(state, endpoint.afterHooks, model);
  return NO_CONTENT;
}
