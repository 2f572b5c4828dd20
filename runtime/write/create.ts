import { respond } from '../http/respond.js';
import type { HttpResult } from '../http/result.js';
import { ConflictError } from '../errors.js';
import { checkLinkageExists } from './linkage.js';
import { readResourceDocument } from './payload.js';
import { isPromise } from '../types.js';
import { checkDocumentParameters, mustBeVisible, onlyParameters, supported } from '../checks.js';
import { type RequestState, requestBody, documentBuilder } from '../state.js';

/**
 * `POST /{type}`: checks the document, then `create`; 201 with `Location` and the new resource.
 * Awaits only what is a promise (see `serveShow`).
 */
export async function serveCreate(state: RequestState): Promise<HttpResult> {
  const { resource, query, context } = state;
  const endpoint = resource.endpoint('create')!;
  const create = supported(resource.definition.create, `Creating ${resource.type} is not supported`);
  const visible = mustBeVisible(endpoint.permits(context), `You may not create ${resource.type}`);
  if (visible) await visible;
  onlyParameters(query, ['include', 'fields'], 'a create request');
  checkDocumentParameters(state, resource);
  let body = requestBody(state);
  if (isPromise(body)) body = await body;
  let values = readResourceDocument(body, { resource, context, mode: 'create', clientIds: endpoint.acceptsClientIds });
  if (isPromise(values)) values = await values;
  if (values.id !== undefined && (await resource.definition.find?.(values.id, context))) {
    throw new ConflictError({ detail: `${resource.type} ${values.id} already exists`, source: { pointer: '/data/id' }, code: 'id_taken' });
  }
  const checked = checkLinkageExists(values, resource, state.lookup, context);
  if (checked) await checked;
  let model = create.call(resource.definition, values, context);
  if (isPromise(model)) model = await model;
  const builder = documentBuilder(state);
  const [node] = builder.primary(resource, [model]);
  const expanding = builder.expand(resource, [node!], query.include);
  if (expanding) await expanding;
  return respond(state, 
    { links: { self: node!.object.links.self }, data: node!.object, ...(query.include && { included: builder.included }) },
    201,
    { location: node!.object.links.self },
  );
}
