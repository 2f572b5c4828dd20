/** The Atomic Operations extension in the OpenAPI document: `POST /operations` and its documents. */
import type { OperationObject, SchemaObject } from 'openapi3-ts/oas31';
import { ATOMIC_MEDIA_TYPE, content, ref, responses } from './openapi-vocabulary.js';

/** The documents of Atomic Operations: what `POST /operations` takes and answers. */
export function atomicSchemas(): Array<[string, SchemaObject]> {
  const target: SchemaObject = {
    type: 'object',
    required: ['type'],
    properties: {
      type: { type: 'string' },
      id: { type: 'string' },
      lid: { type: 'string' },
      relationship: { type: 'string' },
    },
    additionalProperties: false,
    description: 'The target: `type` with `id` or `lid`, and `relationship` to target a relationship.',
  };
  return [
    [
      'AtomicOperation',
      {
        type: 'object',
        required: ['op'],
        properties: {
          op: { type: 'string', enum: ['add', 'update', 'remove'] },
          ref: target,
          href: {
            type: 'string',
            description: 'The target as a URI-reference: a collection, a resource or a relationship.',
          },
          data: {
            description:
              'A resource object (add, update; `lid` assigns a local identity), or relationship linkage (operations on a relationship).',
            oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }, { type: 'null' }],
          },
          meta: ref('Meta'),
        },
        not: { required: ['ref', 'href'] },
        additionalProperties: false,
      },
    ],
    [
      'AtomicOperationsDocument',
      {
        type: 'object',
        required: ['atomic:operations'],
        properties: {
          'atomic:operations': { type: 'array', minItems: 1, items: ref('AtomicOperation') },
          jsonapi: ref('JsonApi'),
          meta: ref('Meta'),
          links: ref('Links'),
        },
        additionalProperties: false,
      },
    ],
    [
      'AtomicResult',
      {
        type: 'object',
        description:
          'The result of the operation at the same position: the resource it created or updated as `data`, or `{}`.',
        properties: { data: ref('Resource'), meta: ref('Meta') },
      },
    ],
    [
      'AtomicResultsDocument',
      {
        type: 'object',
        required: ['atomic:results'],
        properties: {
          jsonapi: ref('JsonApi'),
          'atomic:results': { type: 'array', items: ref('AtomicResult') },
          meta: ref('Meta'),
        },
      },
    ],
  ];
}

/** `POST /operations`. */
export function atomicOperation(): OperationObject {
  return {
    operationId: 'operations',
    summary: 'Run Atomic Operations',
    description:
      'Runs the operations in order, in one transaction: all succeed, or nothing is written. Each runs through the same ' +
      'endpoint as its REST twin (same checks, same errors, pointers prefixed with `/atomic:operations/{i}`). ' +
      'Send and accept the media type with `ext="https://jsonapi.org/ext/atomic"`.',
    tags: ['operations'],
    requestBody: { required: true, content: content(ref('AtomicOperationsDocument'), ATOMIC_MEDIA_TYPE) },
    responses: responses(
      {
        '200': {
          description: 'Every operation succeeded; one result per operation, in order.',
          content: content(ref('AtomicResultsDocument'), ATOMIC_MEDIA_TYPE),
        },
        '204': { description: 'Every operation succeeded and none returns data.' },
      },
      ['400', '403', '404', '406', '409', '413', '415', '422'],
    ),
  };
}
