import { respond } from '../pipeline/respond.js';
import type { HttpResult } from '../http/result.js';
import { ConflictError } from '../core/errors.js';
import { checkLinkageExists } from './linkage.js';
import { type ResourceDocumentOptions, checkRequired, readResourceDocument } from './payload.js';
import { afterCommit, runSaving, validateWrite } from './hooks.js';
import { recordWrite } from './outbox.js';
import { checkDocumentParameters, mustBeVisible, supported } from '../pipeline/checks.js';
import { onlyParameters } from '../query/checks.js';
import { type RequestState, requestBody, documentBuilder } from '../pipeline/state.js';

/** `POST /{type}`: checks the document, then `create`; 201 with `Location` and the new resource. */
export async function serveCreate(state: RequestState): Promise<HttpResult> {
  const { resource, query, context } = state;
  const endpoint = resource.endpoint('create')!;
  const create = supported(
    resource.definition.create,
    `Creating resources of type "${resource.type}" is not supported`,
  );
  await mustBeVisible(
    state.trace?.begin('authorize'),
    endpoint.permits(context),
    `You may not create resources of type "${resource.type}"`,
  );
  onlyParameters(query, ['include', 'fields'], 'a create request');
  checkDocumentParameters(state, resource);
  const body = await requestBody(state);
  const saving = endpoint.savingHooks;
  const options: ResourceDocumentOptions = {
    resource,
    context,
    mode: 'create',
    clientIds: endpoint.acceptsClientIds,
    maxErrors: state.limits.errors,
    deferRequired: saving.length > 0,
  };
  let values = await readResourceDocument(body, options);
  await validateWrite(resource, values, undefined, context);
  if (saving.length > 0) {
    values = await runSaving(saving, values, context);
    checkRequired(body, values, options);
  }
  if (values.id !== undefined && (await resource.definition.find?.(values.id, context))) {
    throw new ConflictError({
      detail: `${resource.type} ${values.id} already exists`,
      source: { pointer: '/data/id' },
      code: 'id_taken',
    });
  }
  await checkLinkageExists(values, resource, state.lookup, context, undefined, state.limits.errors);
  const model = await create.call(resource.definition, values, context);
  await recordWrite(state, 'create', resource.getId(model, context), values);
  afterCommit(state, endpoint.afterHooks, model);
  const builder = documentBuilder(state);
  const [node] = builder.primary(resource, [model]);
  await builder.complete(resource, [node!], query.include);
  return respond(
    state,
    {
      links: { self: node!.object.links.self },
      data: node!.object,
      ...(query.include && { included: builder.included }),
    },
    201,
    { location: node!.object.links.self },
  );
}
