import type { Context } from './context.js';
import type { AnyEndpoint, EndpointKind, Index } from './endpoints.js';
import { Attribute, Relationship, type ToMany, type ToOne } from './fields.js';
import type { Filter, Sort } from './filters.js';
import { plainInJson } from './json.js';
import { assertMemberName, isMemberName } from './member-name.js';
import { parseSort } from './query.js';
import type { AnyField, ResourceDefinition } from './resource.js';

const NEEDS: Record<EndpointKind, readonly string[]> = {
  show: ['find'],
  index: ['query', 'results'],
  create: ['create'],
  update: ['find', 'update'],
  delete: ['find', 'delete'],
};

/** A registered resource: its definition plus the lookups every request needs, built once. */
export class RegisteredResource {
  readonly type: string;
  /** The type as a URL path segment (percent-encoded), for every resource URL. */
  readonly typeSegment: string;
  readonly definition: ResourceDefinition;
  readonly attributes: readonly Attribute[];
  readonly relationships: ReadonlyArray<ToOne | ToMany>;
  /** Attributes with visibility callbacks: checked per model even when generated code serializes. */
  readonly conditionalAttributes: readonly Attribute[];
  readonly fields: ReadonlyMap<string, AnyField>;
  readonly endpoints: ReadonlyMap<EndpointKind, AnyEndpoint>;
  readonly filters: ReadonlyMap<string, Filter>;
  readonly sorts: ReadonlyMap<string, Sort>;
  /** The methods `/{type}` answers (405 with `Allow` for others), from the enabled endpoints. */
  readonly collectionMethods: readonly string[];
  /** The methods `/{type}/{id}` answers. */
  readonly resourceMethods: readonly string[];
  readonly getId: (model: any, context: Context) => string;
  /** Its type segment and relationship names hold nothing JSON escapes, so its links need no look when written (see `plainInJson`). */
  readonly plainLinks: boolean;

  constructor(definition: ResourceDefinition) {
    const type = definition.type();
    assertMemberName(type, 'Resource type');
    const where = `resource "${type}"`;
    this.type = type;
    this.typeSegment = encodeURIComponent(type);
    this.definition = definition;

    const fields = new Map<string, AnyField>();
    for (const field of definition.fields()) {
      assertMemberName(field.name, `Field of ${where}`);
      if (field.name === 'id' || field.name === 'type') throw new TypeError(`${where}: "${field.name}" cannot be a field name`);
      if (fields.has(field.name)) throw new TypeError(`${where}: field "${field.name}" is declared twice`);
      if (field instanceof Relationship && !field.hasRelatedType) throw new TypeError(`${where}: relationship "${field.name}" has no .type(...)`);
      fields.set(field.name, field);
    }
    this.fields = fields;
    this.attributes = [...fields.values()].filter((f): f is Attribute => f instanceof Attribute);
    this.relationships = [...fields.values()].filter((f): f is ToOne | ToMany => f instanceof Relationship);
    this.conditionalAttributes = this.attributes.filter((a) => a.isConditional);
    this.plainLinks = plainInJson(this.typeSegment) && this.relationships.every((r) => plainInJson(r.name));

    const endpoints = new Map<EndpointKind, AnyEndpoint>();
    for (const endpoint of definition.endpoints()) {
      if (endpoints.has(endpoint.kind)) throw new TypeError(`${where}: the ${endpoint.kind} endpoint is declared twice`);
      endpoints.set(endpoint.kind, endpoint);
    }
    this.endpoints = endpoints;
    const has = (kind: EndpointKind) => endpoints.has(kind);
    this.collectionMethods = [...(has('index') ? ['GET', 'HEAD'] : []), ...(has('create') ? ['POST'] : [])];
    this.resourceMethods = [...(has('show') ? ['GET', 'HEAD'] : []), ...(has('update') ? ['PATCH'] : []), ...(has('delete') ? ['DELETE'] : [])];

    this.filters = byName(definition.filters?.() ?? [], `${where}: filter`);
    this.sorts = byName(definition.sorts?.() ?? [], `${where}: sort`);

    const missing = (method: string) => typeof (definition as unknown as Record<string, unknown>)[method] !== 'function';
    const require = (methods: readonly string[], why: string) => {
      const absent = methods.filter(missing);
      if (absent.length > 0) throw new TypeError(`${where}: ${why} needs ${absent.map((m) => `${m}()`).join(' and ')}`);
    };
    for (const [kind, endpoint] of endpoints) require(NEEDS[endpoint.kind], `the ${kind} endpoint`);
    const index = endpoints.get('index') as Index | undefined;
    if (index?.pagination) require(['paginate'], 'paginate() on the index endpoint (Paginatable)');
    if (index?.isCountable) require(['count'], 'countable() on the index endpoint (Countable)');
    if (this.relationships.length > 0 && (endpoints.has('show') || endpoints.has('index'))) {
      require(['loadRelated'], `reading relationships (${this.relationships.map((r) => r.name).join(', ')})`);
    }
    const writableToMany = this.relationships.filter((r) => r.cardinality === 'many' && r.isWritable);
    if (endpoints.has('update') && writableToMany.length > 0) {
      require(['loadRelated', 'addToRelationship', 'removeFromRelationship'], `changing ${writableToMany.map((r) => r.name).join(', ')}`);
    }
    for (const term of index?.defaultSortValue ? parseSort(index.defaultSortValue) : []) {
      if (!this.sorts.has(term.name)) throw new TypeError(`${where}: the default sort names "${term.name}", which is not a declared sort`);
    }

    const getId = definition.getId?.bind(definition);
    this.getId = getId ?? ((model: any) => String(model.id));
  }

  /** The endpoint of `kind`, if enabled. */
  endpoint<K extends EndpointKind>(kind: K): Extract<AnyEndpoint, { kind: K }> | undefined {
    return this.endpoints.get(kind) as Extract<AnyEndpoint, { kind: K }> | undefined;
  }
}

function byName<T extends { name: string }>(items: readonly T[], what: string): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    if (!item.name.split('.').every(isMemberName)) throw new TypeError(`${what} "${item.name}" is not a legal member name`);
    if (map.has(item.name)) throw new TypeError(`${what} "${item.name}" is declared twice`);
    map.set(item.name, item);
  }
  return map;
}
