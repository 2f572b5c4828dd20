/**
 * Boolean groups of filters in the OpenAPI document: `filter[and]`, `filter[or]` and
 * `filter[not]` on an Index, each an object (`style: deepObject`) whose schema says what it may
 * hold: clause sets of the resource's filters (each with its operators) and nested groups. Two
 * recursive schemas in `components.schemas` describe them once per resource.
 */
import { DEFAULT_LIMITS } from 'jsonapi-gen';
import type { ParameterObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';
import type { FilterModel, ResourceModel } from '../ir.js';
import { filterOperators, filterParameters, operatorSchema } from './openapi-parameters.js';
import { parameterRef, ref } from './openapi-vocabulary.js';

type ByType = ReadonlyMap<string, ResourceModel>;

/** JSON Schema 2020-12 as OpenAPI 3.1 takes it; openapi3-ts's type lacks `patternProperties`. */
type JsonSchema = SchemaObject & { patternProperties?: Record<string, SchemaObject | ReferenceObject> };

const GROUPS = ['and', 'or', 'not'] as const;

const names = {
  /** A clause set: filter clauses, all of which hold, and nested groups. */
  clauses: (r: ResourceModel) => `${r.names.pascal}FilterClauses`,
  /** The items of an `and` or `or` group: clause sets by index or label. */
  items: (r: ResourceModel) => `${r.names.pascal}FilterItems`,
  group: (r: ResourceModel, word: (typeof GROUPS)[number]) =>
    `${r.names.pascal}FilterGroup${word[0]!.toUpperCase()}${word.slice(1)}`,
};

/** Whether the Index of `resource` takes boolean groups: it has an Index and filters to put in them. */
export function hasFilterGroups(resource: ResourceModel): boolean {
  return resource.endpoints.index !== undefined && resource.filterDetails.length > 0;
}

/**
 * One filter inside a clause set: its value (`[title]=a`), or its operators (`[title][contains]=a`),
 * with the schemas the top-level parameters give them.
 */
function clauseSchema(resource: ResourceModel, byType: ByType, filter: FilterModel): SchemaObject | ReferenceObject {
  const value = filterParameters(resource, filter)[0]![1].schema!;
  const ops = filterOperators(resource, filter, byType);
  if (ops.length === 0) return value;
  return {
    anyOf: [
      value,
      {
        type: 'object',
        properties: Object.fromEntries(ops.map((op) => [op, operatorSchema(resource, filter, byType, op)])),
        additionalProperties: false,
        minProperties: 1,
      },
    ],
  };
}

/** `XFilterClauses` and `XFilterItems`: what one level of a group holds, each referring to the other. */
export function filterGroupSchemas(resource: ResourceModel, byType: ByType): Array<[string, SchemaObject]> {
  if (!hasFilterGroups(resource)) return [];
  const example = resource.filterDetails[0]!.name;
  const clauses: JsonSchema = {
    type: 'object',
    description: `Clauses on ${resource.type}, all of which must hold: filters (\`[${example}]=a\`, \`[${example}][op]=a\`) and nested groups (\`[and]\`, \`[or]\`, \`[not]\`, and \`[0]\`, \`[1]\`, ... ANDed).`,
    properties: {
      ...Object.fromEntries(resource.filterDetails.map((f) => [f.name, clauseSchema(resource, byType, f)])),
      and: ref(names.items(resource)),
      or: ref(names.items(resource)),
      not: ref(names.clauses(resource)),
    },
    patternProperties: { '^[0-9]+$': ref(names.clauses(resource)) },
    additionalProperties: false,
  };
  return [
    [names.clauses(resource), clauses],
    [
      names.items(resource),
      {
        type: 'object',
        description: 'The clause sets of an `and` or `or` group, each under an index (`[0]`, `[1]`, ...) or a label.',
        additionalProperties: ref(names.clauses(resource)),
        minProperties: 1,
      },
    ],
  ];
}

const LIMITS = `At most ${DEFAULT_LIMITS.filterClauses} clauses in the whole \`filter\`, groups nested at most ${DEFAULT_LIMITS.filterDepth} deep (the server's defaults; past them a 400).`;

/** `filter[and]`, `filter[or]`, `filter[not]` of `resource`'s Index. */
export function filterGroupParameters(resource: ResourceModel): Array<[string, ParameterObject]> {
  if (!hasFilterGroups(resource)) return [];
  const { type } = resource;
  const custom = resource.filterDetails.some((f) => f.declares !== 'where' && f.declares !== 'count')
    ? ' A custom filter stands inside `filter[or]` or `filter[not]` only where the server can apply it there (else a 400).'
    : '';
  const [first] = resource.filterDetails;
  const example = first!.name;
  const words: Record<(typeof GROUPS)[number], string> = {
    and: `Keeps the ${type} matching every clause set of the group, each under an index: \`filter[and][0][${example}]=a&filter[and][1][or][0][${example}]=b\`.`,
    or: `Keeps the ${type} matching any clause set of the group, each under an index: \`filter[or][0][${example}]=a&filter[or][1][${example}]=b\`.`,
    not: `Keeps the ${type} not matching the clause set (all of its clauses together): \`filter[not][${example}]=a\`. A comparison on a null value does not match, so \`not\` keeps it; on a to-many path, \`not\` keeps the ${type} with no related resource that matches.`,
  };
  return GROUPS.map((word): [string, ParameterObject] => [
    names.group(resource, word),
    {
      name: `filter[${word}]`,
      in: 'query',
      description: `${words[word]} A clause set holds filters as the top-level \`filter\` does (\`[name]=v\`, \`[name][op]=v\`) and may nest groups; sibling clauses are ANDed. ${LIMITS}${custom}`,
      style: 'deepObject',
      explode: true,
      schema: word === 'not' ? ref(names.clauses(resource)) : ref(names.items(resource)),
    },
  ]);
}

/** The references to the group parameters an Index lists. */
export function filterGroupRefs(resource: ResourceModel): ReferenceObject[] {
  return hasFilterGroups(resource) ? GROUPS.map((word) => parameterRef(names.group(resource, word))) : [];
}
