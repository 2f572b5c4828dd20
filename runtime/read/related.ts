import { respond } from '../pipeline/respond.js';
import type { HttpResult } from '../http/result.js';
import { uriOf } from '../http/uri.js';
import { NotFoundError } from '../core/errors.js';
import { Relationship } from '../dsl/fields.js';
import { serveCollection } from './collection.js';
import { checkDocumentParameters, findOr404, mustBeVisible } from '../pipeline/checks.js';
import { onlyParameters } from '../query/checks.js';
import { type RequestState, documentBuilder } from '../pipeline/state.js';

/**
 * `GET /{type}/{id}/{relationship}` (related resources) and
 * `GET /{type}/{id}/relationships/{relationship}` (linkage). A to-many relationship whose data
 * layer implements `queryRelated` is served like an index of the related type.
 */
export async function serveRelated(state: RequestState, id: string, name: string): Promise<HttpResult> {
  const { resource, query, context, route } = state;
  const relationship = resource.fields.get(name);
  const unknown = () => new NotFoundError({ detail: `${resource.type} has no relationship "${name}"` });
  if (!(relationship instanceof Relationship) || !relationship.isVisibleFor(undefined, context)) throw unknown();
  await mustBeVisible(
    state.trace?.begin('authorize'),
    resource.endpoint('show')!.permits(context),
    `You may not view resources of type "${resource.type}"`,
  );
  const related = state.lookup(relationship.relatedType)!;
  const linkage = route.linkage;
  const definition = resource.definition;

  if (relationship.cardinality === 'many' && definition.queryRelated && related.definition.results) {
    const model = await findOr404(state, resource, id);
    if (!relationship.isVisibleFor(model, context)) throw unknown();
    return serveCollection(state, {
      resource: related,
      index: related.endpoint('index'),
      start: () => definition.queryRelated!(relationship, model, context),
      identifiersOnly: linkage,
      ...(linkage && { links: { related: `${documentBuilder(state).resourceUrl(resource, id)}/${name}` } }),
    });
  }

  onlyParameters(query, linkage ? [] : ['include', 'fields'], `${resource.type}.${name}`);
  checkDocumentParameters(state, related);
  const model = await findOr404(state, resource, id);
  if (!relationship.isVisibleFor(model, context)) throw unknown();
  const [value] = await resource.loadRelated!(relationship, [model], context);
  const models =
    relationship.cardinality === 'one' ? (value === null || value === undefined ? [] : [value]) : (value as unknown[]);
  const builder = documentBuilder(state);
  const self = builder.resourceUrl(resource, id);
  if (linkage) {
    const identifiers = models.map((m) => builder.identifier(related, m));
    return respond(state, {
      links: { self: `${self}/relationships/${name}`, related: `${self}/${name}` },
      data: relationship.cardinality === 'one' ? (identifiers[0] ?? null) : identifiers,
    });
  }
  const nodes = builder.primary(related, models);
  await builder.complete(related, nodes, query.include);
  return respond(state, {
    links: { self: uriOf(context.target) },
    data: relationship.cardinality === 'one' ? (nodes[0]?.object ?? null) : nodes.map((n) => n.object),
    ...(query.include && { included: builder.included }),
  });
}
