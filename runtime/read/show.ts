import { respond } from '../http/respond.js';
import type { HttpResult } from '../http/result.js';
import { uriOf } from '../document/builder.js';
import { isPromise } from '../types.js';
import { checkDocumentParameters, findOr404, mustBeVisible, onlyParameters, versionOf } from '../checks.js';
import { type RequestState, documentBuilder } from '../state.js';

/**
 * `GET /{type}/{id}`. Like every read handler, it awaits only what is a promise: callbacks and
 * data layers that answer at once (direct SQLite reads do) cost no turn of the microtask queue.
 */
export async function serveShow(state: RequestState, id: string): Promise<HttpResult> {
  const { resource, query, context } = state;
  const visible = mustBeVisible(resource.endpoint('show')!.permits(context), `You may not view ${resource.type}`);
  if (visible) await visible;
  onlyParameters(query, ['include', 'fields'], 'a single resource');
  checkDocumentParameters(state, resource);
  let model = findOr404(state, resource, id);
  if (isPromise(model)) model = await model;
  const builder = documentBuilder(state);
  const nodes = builder.primary(resource, [model]);
  const expanding = builder.expand(resource, nodes, query.include);
  if (expanding) await expanding;
  return respond(state, 
    {
      links: { self: uriOf(context.target) },
      data: nodes[0]!.object,
      ...(query.include && { included: builder.included }),
    },
    200,
    undefined,
    versionOf(state, resource, model),
  );
}
