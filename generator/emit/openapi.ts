/**
 * `openapi.json`: an OpenAPI 3.1 document of every enabled endpoint, in JSON:API shape, built
 * with openapi3-ts. Resources and paths come in type order; nothing depends on the machine.
 * What several operations share (schemas, parameters, error responses) is defined once in
 * `components` and referenced, so the document grows linearly with the resources.
 */
import { OpenApiBuilder, type OpenAPIObject } from 'openapi3-ts/oas31';
import type { ApiModel } from '../ir.js';
import { jsonHeader } from './helpers.js';
import { atomicOperation, atomicSchemas } from './openapi-atomic.js';
import { filterGroupParameters, filterGroupSchemas } from './openapi-filter-groups.js';
import { resourceParameters, sharedParameters, valueSchemas } from './openapi-parameters.js';
import { pathItems } from './openapi-paths.js';
import { commonSchemas, resourceSchemas } from './openapi-schemas.js';
import { ERROR_RESPONSES, content, ref } from './openapi-vocabulary.js';

export { INCLUDE_DEPTH, includePaths, reachableTypes } from './openapi-parameters.js';
export { attributeSchema } from './openapi-schemas.js';

export interface OpenApiOptions {
  readonly title?: string;
  readonly version?: string;
}

/**
 * The OpenAPI 3.1 document of `model`.
 *
 * @example
 * import { loadSchema } from '../load.js';
 * import { buildModel } from '../model.js';
 * const document = emitOpenApi(buildModel(await loadSchema('schema.ts'), './schema.ts'), { title: 'Blog' });
 */
export function emitOpenApi(model: ApiModel, options: OpenApiOptions = {}): OpenAPIObject {
  const builder = new OpenApiBuilder({
    openapi: '3.1.0',
    info: { title: options.title ?? 'JSON:API', version: options.version ?? '1.0.0' },
    paths: {},
  });
  const byType = new Map(model.resources.map((r) => [r.type, r]));
  for (const [name, schema] of commonSchemas(model)) builder.addSchema(name, schema);
  for (const [name, parameter] of sharedParameters(
    model.resources.some((r) => r.endpoints.index?.cursor === true && r.endpoints.index.pagination !== undefined),
  ))
    builder.addParameter(name, parameter);
  for (const resource of model.resources) {
    for (const [name, schema] of resourceSchemas(resource)) builder.addSchema(name, schema);
    for (const [name, parameter] of resourceParameters(resource, byType)) builder.addParameter(name, parameter);
    for (const [name, schema] of filterGroupSchemas(resource, byType)) builder.addSchema(name, schema);
    for (const [name, parameter] of filterGroupParameters(resource)) builder.addParameter(name, parameter);
  }
  for (const [name, schema] of valueSchemas(model.resources, byType)) builder.addSchema(name, schema);
  for (const [name, description] of Object.values(ERROR_RESPONSES)) {
    builder.addResponse(name, { description, content: content(ref('ErrorDocument')) });
  }
  for (const resource of model.resources) {
    for (const [path, item] of pathItems(resource, byType)) builder.addPath(path, item);
    builder.addTag({
      name: resource.type,
      description: `Resources of type \`${resource.type}\` and their relationships.`,
    });
  }
  const atomic = model.extensions.atomic;
  if (atomic) {
    for (const [name, schema] of atomicSchemas()) builder.addSchema(name, schema);
    builder.addPath(atomic.path, { post: atomicOperation() });
    builder.addTag({
      name: 'operations',
      description: 'Atomic Operations (https://jsonapi.org/ext/atomic): several writes in order, in one transaction.',
    });
  }
  const spec = builder.getSpec();
  return {
    'x-generated': jsonHeader(model.schemaPath),
    openapi: spec.openapi,
    info: spec.info,
    // The default made explicit: the API is served below where this document is. Security is
    // the host's (its endpoints' callbacks decide); the document declares no scheme.
    servers: [{ url: '/', description: 'Where the API is served (a host with a basePath serves it below that).' }],
    security: [],
    tags: spec.tags,
    paths: spec.paths,
    components: {
      schemas: spec.components!.schemas!,
      responses: spec.components!.responses!,
      parameters: spec.components!.parameters!,
    },
  };
}
