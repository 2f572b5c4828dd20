import { respond } from '../pipeline/respond.js';
import type { HttpResult } from '../http/result.js';
import { uriOf } from '../http/uri.js';
import { checkDocumentParameters, findOr404, mustBeVisible, versionOf } from '../pipeline/checks.js';
import { onlyParameters } from '../query/checks.js';
import { type RequestState, documentBuilder } from '../pipeline/state.js';
import { documentMeta } from '../document/builder.js';

/** `GET /{type}/{id}`. */
export async function serveShow(state: RequestState, id: string): Promise<HttpResult> {
  const { resource, query, context } = state;
  const show = resource.endpoint('show')!;
  await mustBeVisible(
    state.trace?.begin('authorize'),
    show.permits(context),
    `You may not view resources of type "${resource.type}"`,
  );
  onlyParameters(query, ['include', 'fields'], 'a single resource');
  checkDocumentParameters(state, resource);
  const model = await findOr404(state, resource, id);
  const builder = documentBuilder(state);
  const nodes = builder.primary(resource, [model]);
  await builder.complete(resource, nodes, query.include);
  const meta = documentMeta(await show.documentMeta?.(model, context), undefined);
  return respond(
    state,
    {
      links: { self: uriOf(context.target) },
      data: nodes[0]!.object,
      ...(query.include && { included: builder.included }),
      ...(meta && { meta }),
    },
    200,
    undefined,
    versionOf(state, resource, model),
  );
}
