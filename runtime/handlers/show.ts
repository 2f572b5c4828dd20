import { uriOf } from '../document.js';
import { checkDocumentParameters, findOr404, mustBeVisible, onlyParameters } from './checks.js';
import type { RequestState } from './request.js';

/** `GET /{type}/{id}`. */
export async function serveShow(state: RequestState, id: string): Promise<Response> {
  const { resource, query, context } = state;
  await mustBeVisible(resource.endpoint('show')!.permits(context), `You may not view ${resource.type}`);
  onlyParameters(query, ['include', 'fields'], 'a single resource');
  checkDocumentParameters(state, resource);
  const model = await findOr404(state, resource, id);
  const builder = state.builder();
  const nodes = builder.primary(resource, [model]);
  await builder.expand(resource, nodes, query.include ?? new Map());
  return state.respond({
    links: { self: uriOf(context.url) },
    data: nodes[0]!.object,
    ...(query.include && { included: builder.included }),
  });
}
