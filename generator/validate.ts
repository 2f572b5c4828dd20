/**
 * Schema rules the runtime would otherwise only enforce at registration (or never): each
 * mistake becomes a problem located in the schema file.
 */
import { declarationIssues, pathIssues } from 'jsonapi-gen/internal';
import type { LoadedSchema, SchemaLike } from './load.js';
import type { Target } from './locate.js';
import { pascalCase } from './naming.js';

/** A mistake and what in the schema it is about. */
export interface Issue {
  readonly message: string;
  readonly target: Target;
}

const ENDPOINT_KINDS = new Set(['show', 'index', 'create', 'update', 'delete']);
const MEMBER_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9_-]*[a-zA-Z0-9])?$/;
const LEGAL = 'letters and digits, with - or _ inside';

/** Every mistake in the schema, in export order. */
export function validate(loaded: LoadedSchema): Issue[] {
  const issues: Issue[] = [];
  const types = new Map<string, string>();
  const prefixes = new Map<string, string>();
  const schemas = new Map<string, SchemaLike>();
  for (const { schema } of loaded.resources) {
    const type = safeType(schema);
    if (type !== undefined && !types.has(type)) types.set(type, '');
    if (type !== undefined && !schemas.has(type)) schemas.set(type, schema);
  }
  const seenTypes = new Set<string>();
  for (const { exportName, schema } of loaded.resources) {
    const type = safeType(schema);
    const at = (target: Omit<Target, 'exportName' | 'type'>): Target => ({ exportName, ...(type !== undefined && { type }), ...target });
    const issue = (message: string, target: Omit<Target, 'exportName' | 'type'>) =>
      issues.push({ message: `${type ?? exportName}: ${message}`, target: at(target) });

    if (type === undefined) {
      issue('type() must return a string', { part: 'type' });
      continue;
    }
    if (!MEMBER_NAME.test(type)) issue(`resource type "${type}" is not a legal member name (${LEGAL})`, { part: 'type' });
    if (seenTypes.has(type)) issue(`resource type "${type}" is declared twice`, { part: 'type' });
    seenTypes.add(type);
    const prefix = pascalCase(type);
    const clash = prefixes.get(prefix);
    if (clash !== undefined && clash !== type) issue(`resource type "${type}" and "${clash}" both become ${prefix} in generated code`, { part: 'type' });
    prefixes.set(prefix, type);

    // The builders' arguments and duplicate names: the runtime's own rules, applied at registration too.
    for (const found of [...declarationIssues(schema), ...pathIssues(schema, (related) => schemas.get(related)?.fields())]) {
      const { part, name, occurrence, call } = found;
      issue(found.message, { part, name, occurrence, ...(call !== undefined && { call }) });
    }

    const fieldCount = new Map<string, number>();
    for (const field of schema.fields()) {
      const name = field.name;
      const occurrence = fieldCount.get(name) ?? 0;
      fieldCount.set(name, occurrence + 1);
      const on = { part: 'fields', name, occurrence } as const;
      if (typeof name !== 'string') continue;
      if (!MEMBER_NAME.test(name)) issue(`field "${name}" is not a legal member name (${LEGAL})`, on);
      else if (name === 'id' || name === 'type') issue(`"${name}" cannot be a field name: every resource object has its own "${name}"`, on);
      if (field.cardinality === 'one' || field.cardinality === 'many') {
        if (field.hasRelatedType === false) issue(`relationship "${name}" has no .type(...)`, on);
        else if (typeof field.relatedType === 'string' && !types.has(field.relatedType)) {
          issue(`relationship "${name}" relates to "${field.relatedType}", which no resource of the schema declares (known: ${[...types.keys()].sort().join(', ')})`, { ...on, call: 'type' });
        }
      }
    }

    const kinds = new Set<string>();
    let index: ReturnType<SchemaLike['endpoints']>[number] | undefined;
    for (const endpoint of schema.endpoints()) {
      const kind = String(endpoint.kind);
      const on = { part: 'endpoints', name: kind } as const;
      if (!ENDPOINT_KINDS.has(kind)) issue(`unknown endpoint kind "${kind}"`, { part: 'endpoints' });
      if (kinds.has(kind)) issue(`the ${kind} endpoint is declared twice`, { ...on, occurrence: 1 });
      kinds.add(kind);
      if (kind === 'index') index = endpoint;
      else {
        if (endpoint.pagination) issue(`paginate() applies to the Index endpoint only, not ${kind}`, { ...on, call: 'paginate' });
        if (endpoint.isCountable) issue(`countable() applies to the Index endpoint only, not ${kind}`, { ...on, call: 'countable' });
      }
    }
    if (index?.isCountable && !index.pagination) {
      issue('countable() needs paginate(): counting gives paginated collections their "last" link and meta.total', {
        part: 'endpoints',
        name: 'index',
        call: 'countable',
      });
    }

    const sortNames = new Set<string>();
    for (const [part, list] of [['filters', schema.filters?.() ?? []], ['sorts', schema.sorts?.() ?? []]] as const) {
      const what = part === 'filters' ? 'filter' : 'sort';
      const count = new Map<string, number>();
      for (const { name, declares } of list) {
        const occurrence = count.get(name) ?? 0;
        count.set(name, occurrence + 1);
        const on = { part, name, occurrence } as const;
        if (typeof name !== 'string') continue;
        if (!index) issue(`${what} "${name}" needs an Index endpoint, and ${type} has none`, on);
        if (!name.split('.').every((n) => MEMBER_NAME.test(n))) issue(`${what} "${name}" is not a legal member name (${LEGAL})`, on);
        if (part === 'sorts') sortNames.add(name);
        // Where and SortBy compare a field of the resource: an attribute (or, for Where, a to-one's id).
        const [first, path] = name.split('.');
        const field = schema.fields().find((f) => f.name === first);
        const attribute = field !== undefined && field.cardinality === undefined;
        if (declares === 'where' && path !== undefined) {
          // A path: a relationship of this resource, then an attribute of the related resource.
          const related = field?.relatedType === undefined ? undefined : schemas.get(field.relatedType);
          const target = related?.fields().find((f) => f.name === path);
          if (!target || target.cardinality !== undefined) issue(`Where.make('${name}') names no relationship.attribute path of ${type}`, on);
        } else if (declares === 'where' && !attribute && field?.cardinality !== 'one') {
          issue(`Where.make('${name}') names no attribute or to-one relationship of ${type}`, on);
        }
        if (declares === 'field' && path !== undefined) {
          // A to-one relationship's attribute (`author.name`).
          const related = field?.cardinality === 'one' && field.relatedType !== undefined ? schemas.get(field.relatedType) : undefined;
          const target = related?.fields().find((f) => f.name === path);
          if (!target || target.cardinality !== undefined) issue(`SortBy.make('${name}') names no to-one relationship's attribute of ${type}`, on);
        } else if (declares === 'field' && !attribute) issue(`SortBy.make('${name}') names no attribute of ${type}`, on);
      }
    }
    const defaultSort = index?.defaultSortValue;
    for (const term of typeof defaultSort === 'string' && defaultSort.trim() !== '' ? defaultSort.split(',') : []) {
      const name = term.replace(/^-/, '');
      if (!sortNames.has(name)) issue(`the default sort names "${name}", which is not a declared sort`, { part: 'endpoints', name: 'index', call: 'defaultSort' });
    }
  }
  return issues;
}

function safeType(schema: SchemaLike): string | undefined {
  try {
    const type = schema.type();
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}
