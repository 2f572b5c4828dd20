/**
 * `paths` of the OpenAPI document: per resource its collection, its resource, and per
 * relationship the related resource and the relationship's linkage. Parameters, schemas and
 * error responses are references into `components`, so each operation stays small.
 */
import type {
  OperationObject,
  PathItemObject,
  ReferenceObject,
  ResponsesObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import type { ResourceModel } from '../ir.js';
import { pascalCase } from '../naming.js';
import { filterGroupRefs } from './openapi-filter-groups.js';
import { collectionParameters, readParameters } from './openapi-parameters.js';
import { documentSchema, linkageSchema } from './openapi-schemas.js';
import { type ErrorStatus, content, parameterRef, ref, responses } from './openapi-vocabulary.js';

const READ_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406'];
/** Create, Update: a document is read (400, 413, 415), checked (409, 422) and its relationships looked up (404). */
const WRITE_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406', '409', '413', '415', '422'];
/** Relationship PATCH / POST / DELETE: linkage is read and checked; 422 for clearing a required to-one. */
const LINKAGE_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406', '409', '413', '415', '422'];
const DELETE_ERRORS: readonly ErrorStatus[] = ['400', '403', '404', '406'];

const noContent = (description: string): ResponsesObject => ({ '204': { description } });

function ok(description: string, schema: SchemaObject | ReferenceObject, status = '200'): ResponsesObject {
  return { [status]: { description, content: content(schema) } };
}

/** The path items of one resource's enabled endpoints, in a fixed order. */
export function pathItems(
  resource: ResourceModel,
  byType: ReadonlyMap<string, ResourceModel>,
): Array<[string, PathItemObject]> {
  const { type, names, endpoints } = resource;
  const { pascal } = names;
  const tags = [type];
  const items: Array<[string, PathItemObject]> = [];
  const idParameter = parameterRef('id');
  const body = (name: string) => ({ required: true, content: content(ref(name)) });

  const collection: PathItemObject = {};
  if (endpoints.index) {
    collection.get = {
      operationId: `list${pascal}`,
      summary: `List resources of type \`${type}\``,
      tags,
      parameters: [
        ...readParameters(resource, byType),
        ...collectionParameters(resource, byType),
        ...filterGroupRefs(resource),
      ],
      responses: responses(ok(`A page of resources of type \`${type}\`.`, ref(`${pascal}CollectionDocument`)), [
        '400',
        '403',
        '406',
      ]),
    };
  }
  if (endpoints.create) {
    collection.post = {
      operationId: `create${pascal}`,
      summary: `Create a resource of type \`${type}\``,
      tags,
      requestBody: body(`${pascal}CreateRequest`),
      responses: responses(
        {
          '201': {
            description: `The created resource of type \`${type}\`.`,
            headers: {
              Location: { description: 'The URL of the created resource.', schema: { type: 'string', format: 'uri' } },
            },
            content: content(ref(`${pascal}Document`)),
          },
        },
        WRITE_ERRORS,
      ),
    };
  }
  if (Object.keys(collection).length > 0) items.push([`/${type}`, collection]);

  const single: PathItemObject = {};
  if (endpoints.show) {
    single.get = {
      operationId: `get${pascal}`,
      summary: `Fetch a resource of type \`${type}\``,
      tags,
      parameters: readParameters(resource, byType),
      responses: responses(ok(`The resource of type \`${type}\`.`, ref(`${pascal}Document`)), READ_ERRORS),
    };
  }
  if (endpoints.update) {
    single.patch = {
      operationId: `update${pascal}`,
      summary: `Update a resource of type \`${type}\``,
      tags,
      requestBody: body(`${pascal}UpdateRequest`),
      responses: responses(ok(`The updated resource of type \`${type}\`.`, ref(`${pascal}Document`)), WRITE_ERRORS),
    };
  }
  if (endpoints.delete) {
    single.delete = {
      operationId: `delete${pascal}`,
      summary: `Delete a resource of type \`${type}\``,
      tags,
      responses: responses(noContent('Deleted.'), DELETE_ERRORS),
    };
  }
  if (Object.keys(single).length > 0) items.push([`/${type}/{id}`, { parameters: [idParameter], ...single }]);

  for (const relationship of resource.relationships) {
    const related = byType.get(relationship.relatedType)!;
    const relatedPascal = related.names.pascal;
    const relName = pascalCase(relationship.name);
    const many = relationship.cardinality === 'many';
    const linkagePath: PathItemObject = { parameters: [idParameter] };
    if (endpoints.show) {
      const data: SchemaObject | ReferenceObject = many
        ? { type: 'array', items: ref(`${relatedPascal}Resource`) }
        : { oneOf: [ref(`${relatedPascal}Resource`), { type: 'null' }] };
      const relatedGet: OperationObject = {
        operationId: `get${pascal}${relName}`,
        summary: `Fetch the ${relationship.name} of a resource of type \`${type}\``,
        tags,
        parameters: readParameters(related, byType),
        responses: responses(
          ok(
            many
              ? `The related resources of type \`${related.type}\`.`
              : `The related resource of type \`${related.type}\`, or null.`,
            documentSchema(data),
          ),
          READ_ERRORS,
        ),
      };
      items.push([`/${type}/{id}/${relationship.name}`, { parameters: [idParameter], get: relatedGet }]);
      linkagePath.get = {
        operationId: `get${pascal}${relName}Relationship`,
        summary: `Fetch the ${relationship.name} linkage of a resource of type \`${type}\``,
        tags,
        responses: responses(
          ok(`The ${relationship.name} linkage.`, {
            type: 'object',
            required: ['data'],
            properties: {
              jsonapi: ref('JsonApi'),
              links: ref('Links'),
              data: linkageSchema(relationship),
              meta: ref('Meta'),
            },
          }),
          READ_ERRORS,
        ),
      };
    }
    // The runtime serves writes on a relationship of a resource with Update when it is writable
    // (others: 403); POST and DELETE only on to-many.
    if (endpoints.update && relationship.writable) {
      const linkageBody = (description: string) => ({
        required: true,
        description,
        content: content({
          type: 'object',
          required: ['data'],
          properties: { data: linkageSchema(relationship, !relationship.required), meta: ref('Meta') },
        }),
      });
      linkagePath.patch = {
        operationId: `update${pascal}${relName}Relationship`,
        summary: many
          ? `Replace every member of the ${relationship.name} of a resource of type \`${type}\``
          : `Replace the ${relationship.name} of a resource of type \`${type}\``,
        tags,
        requestBody: linkageBody(
          many
            ? 'The new members (an empty array clears the relationship).'
            : relationship.required
              ? `The new ${relationship.name} (required: it cannot be cleared).`
              : `The new ${relationship.name}, or null to clear it.`,
        ),
        responses: responses(noContent('Replaced.'), LINKAGE_ERRORS),
      };
      if (many) {
        linkagePath.post = {
          operationId: `add${pascal}${relName}Relationship`,
          summary: `Add members to the ${relationship.name} of a resource of type \`${type}\``,
          tags,
          requestBody: linkageBody('Members to add; those already present are left as they are.'),
          responses: responses(noContent('Added.'), LINKAGE_ERRORS),
        };
        linkagePath.delete = {
          operationId: `remove${pascal}${relName}Relationship`,
          summary: `Remove members from the ${relationship.name} of a resource of type \`${type}\``,
          tags,
          requestBody: linkageBody('Members to remove; those not present are ignored.'),
          responses: responses(noContent('Removed.'), LINKAGE_ERRORS),
        };
      }
    }
    if (Object.keys(linkagePath).length > 1)
      items.push([`/${type}/{id}/relationships/${relationship.name}`, linkagePath]);
  }
  return items;
}
