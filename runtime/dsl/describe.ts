/**
 * A declared resource as plain data: what its builders were given, in JSON-serializable
 * objects a tool can read without knowing the DSL's classes. The generator builds its model
 * from this and nothing else, so a schema and the generator share one written contract.
 *
 * Declarations are read by property, never by `instanceof`: a tool may describe a schema
 * built by another copy of this package (the generator and the host's schema each load one).
 */
import type { Operator } from './operators.js';
import { declarationIssues, type DeclarationLike } from './declaration-rules.js';
import type { AttributeKind } from './fields.js';
import type { MetaKind } from './meta.js';
import { isCommaListFilter } from './filters.js';
import type { ResourceSchema } from './resource.js';

/** A value JSON holds as it is. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** One declared resource: its type, fields, endpoints, filters and sorts, in declared order. */
export interface SchemaDescription {
  readonly type: string;
  readonly attributes: readonly AttributeDescription[];
  readonly relationships: readonly RelationshipDescription[];
  readonly endpoints: readonly EndpointDescription[];
  readonly filters: readonly FilterDescription[];
  readonly sorts: readonly SortDescription[];
  /** The meta members of each resource object (`meta: [Meta.make(...)]`), in declared order. */
  readonly meta: readonly MetaDescription[];
  /** Whether the schema gives `getId` (else a model's `id` property is its id). */
  readonly getsId: boolean;
}

/** What attributes and relationships both say. */
interface FieldDescription {
  readonly name: string;
  /** Clients may set it on create and update (`writable()`). */
  readonly writable: boolean;
  /** Clients must give it on create (`required()`). */
  readonly required: boolean;
  /** Read through `.get()` rather than the model's property of its name. */
  readonly getter: boolean;
  /** Written only when its `writable(policy)` callback allows (else 403 `read_only`). */
  readonly writePolicy: boolean;
  /** Shown only as `visible()` / `hidden()` callbacks decide. */
  readonly conditional: boolean;
}

/** An `Attribute`. */
export interface AttributeDescription extends FieldDescription {
  readonly kind: AttributeKind;
  /** An enum's members, in order; empty for any other kind. */
  readonly enumValues: readonly string[];
  readonly nullable: boolean;
  readonly constraints: ConstraintsDescription;
  /** Whether `validate()` gave custom checks (functions or Standard Schemas). */
  readonly validated: boolean;
  /**
   * Present when `.default()` was given; its `value` when that is plain JSON data, absent when
   * it is a function (called at each create).
   */
  readonly default?: { readonly value?: JsonValue };
}

/** An attribute's declared bounds; a pattern as its RegExp's source and flags. */
export interface ConstraintsDescription {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: { readonly source: string; readonly flags: string };
  readonly min?: number;
  readonly max?: number;
}

/** A `ToOne` or `ToMany`. */
export interface RelationshipDescription extends FieldDescription {
  readonly cardinality: 'one' | 'many';
  readonly relatedType: string;
  /** Clients may `include` it. */
  readonly includable: boolean;
  /** Its linkage (`data`) is always sent (`withLinkage()`). */
  readonly linkage: boolean;
  /** `withCount` may name it (`countable()`, to-many only). */
  readonly countable: boolean;
}

/** A `Meta` member of resource objects. */
export interface MetaDescription {
  readonly name: string;
  readonly kind: MetaKind;
  readonly nullable: boolean;
}

/** Any endpoint; `abilities` are what its `can(ability)` callbacks ask the data layer's policy. */
export type EndpointDescription = ShowDescription | IndexDescription | CreateDescription | WriteEndpointDescription;

interface EndpointBase {
  readonly abilities: readonly string[];
}

export interface ShowDescription extends EndpointBase {
  readonly kind: 'show';
  /** Whether `meta()` gives document meta. */
  readonly documentMeta: boolean;
}

export interface IndexDescription extends EndpointBase {
  readonly kind: 'index';
  /** `paginate(defaultLimit, maxLimit)`, if declared. */
  readonly pagination?: { readonly defaultLimit: number; readonly maxLimit: number };
  /** `countable()`'s argument; absent when undeclared (a `Countable` data layer then counts by itself). */
  readonly countable?: boolean;
  /** Cursor pagination too (`cursor()`). */
  readonly cursor: boolean;
  /** `defaultSort(terms)`, if declared. */
  readonly defaultSort?: string;
  /** Whether `meta()` gives document meta. */
  readonly documentMeta: boolean;
}

export interface CreateDescription extends EndpointBase {
  readonly kind: 'create';
  /** Client-generated ids accepted (`clientIds()`). */
  readonly clientIds: boolean;
}

export interface WriteEndpointDescription extends EndpointBase {
  readonly kind: 'update' | 'delete';
  /** `requireIfMatch()`. */
  readonly requiresIfMatch: boolean;
}

/** A field a `Where` or `SortBy` names through a relationship (`author.name`). */
export interface PathDescription {
  readonly relationship: string;
  readonly attribute: string;
}

/** Who applies a filter or sort: the schema's own code, or the data layer (`where`, `orderBy`, `customFilters`, `customSorts`). */
export type AppliedBy = 'schema' | 'data layer';

/**
 * A filter: `where` (`Where.make`), `count` (`WhereCount.make`), `custom` (`CustomFilter.make`)
 * or `subclass` (a host's own `Filter`).
 */
export interface FilterDescription {
  readonly name: string;
  readonly kind: 'where' | 'count' | 'custom' | 'subclass';
  readonly appliedBy: AppliedBy;
  /** A `Where` filter's field (the relationship, for a path). */
  readonly field?: string;
  readonly path?: PathDescription;
  /** A `WhereCount` filter's counted to-many relationship. */
  readonly counts?: CountDescription;
  /** A `Where` or `WhereCount` filter's `operators(...)`, if declared (else the defaults of its field's kind, or every count operator). */
  readonly operators?: readonly Operator[];
  /** A `Where` filter's text operators ignore letter case (`caseInsensitive()`). */
  readonly caseInsensitive: boolean;
  /** Whether `filter[name]=a,b` means a or b: the runtime's own rule (`takesCommaList`). */
  readonly takesCommaList: boolean;
  /** `description(text)`, if given. */
  readonly description?: string;
}

/** A sort: `field` (`SortBy.make`), `count` (`SortWithCount.make`), `custom` (`CustomSort.make`) or `subclass` (a host's own `Sort`). */
export interface SortDescription {
  readonly name: string;
  readonly kind: 'field' | 'count' | 'custom' | 'subclass';
  readonly appliedBy: AppliedBy;
  /** A `SortBy` sort's field (the relationship, for a path). */
  readonly field?: string;
  readonly path?: PathDescription;
  /** A `SortWithCount` sort's counted to-many relationship. */
  readonly counts?: CountDescription;
}

/** The to-many relationship a count filter or sort counts, and its related type. */
export interface CountDescription {
  readonly relationship: string;
  readonly relatedType: string;
}

type Members = Readonly<Record<string, unknown>>;

/**
 * The plain-data description of one declared resource, for tools: the generator builds its
 * code and OpenAPI document from it. Every value survives `JSON.stringify`. Throws a
 * `TypeError` naming the mistakes when the declaration breaks a rule registration enforces
 * (a relationship with no `.type()`, a pattern that is not a RegExp, ...).
 *
 * @example
 * import { Attribute, Index, defineResource, describeSchema } from 'jsonapi-gen';
 *
 * const tags = defineResource({ type: 'tags', fields: [Attribute.make('name').writable()], endpoints: [Index.make().paginate(20, 50)] });
 * describeSchema(tags).endpoints; // [{ kind: 'index', abilities: [], pagination: { defaultLimit: 20, maxLimit: 50 }, cursor: false }]
 */
export function describeSchema(schema: ResourceSchema): SchemaDescription {
  const declaration = schema as unknown as DeclarationLike;
  const issues = declarationIssues(declaration);
  if (issues.length > 0)
    throw new TypeError(`resource "${String(schema.type())}": ${issues.map((issue) => issue.message).join('; ')}`);
  const fields = declaration.fields() as readonly Members[];
  const attributes = fields.filter((f) => f.cardinality === undefined);
  const relationships = fields.filter((f) => f.cardinality !== undefined);
  const fieldOf = (name: string) => fields.find((f) => f.name === name);
  return {
    type: schema.type(),
    attributes: attributes.map(describeAttribute),
    relationships: relationships.map(describeRelationship),
    endpoints: (declaration.endpoints() as readonly Members[]).map(describeEndpoint),
    filters: ((declaration.filters?.() ?? []) as readonly Members[]).map((filter) => describeFilter(filter, fieldOf)),
    sorts: ((declaration.sorts?.() ?? []) as readonly Members[]).map((sort) => describeSort(sort, fieldOf)),
    meta: ((declaration.meta?.() ?? []) as readonly Members[]).map((meta) => ({
      name: String(meta.name),
      kind: meta.kind as MetaKind,
      nullable: meta.isNullable === true,
    })),
    getsId: typeof schema.getId === 'function',
  };
}

/**
 * Whether `value` is a resource schema (`defineResource`'s result, or one a host wrote): what
 * a tool looks for among a schema module's exports. By property, as `describeSchema` reads.
 *
 * @example
 * const exported: unknown[] = Object.values(await import('./schema.js'));
 * const descriptions = exported.filter(isResourceSchema).map((schema) => describeSchema(schema));
 */
export function isResourceSchema(value: unknown): value is ResourceSchema {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Members;
  return typeof v.type === 'function' && typeof v.fields === 'function' && typeof v.endpoints === 'function';
}

function describeField(field: Members): FieldDescription {
  return {
    name: String(field.name),
    writable: field.isWritable === true,
    required: field.isRequired === true,
    getter: typeof field.getter === 'function',
    writePolicy: field.hasWritePolicy === true,
    conditional: field.isConditional === true,
  };
}

function describeAttribute(attribute: Members): AttributeDescription {
  const kind = attribute.kind as AttributeKind;
  const declared = attribute.declaredDefault as { readonly value: unknown } | undefined;
  const c = (attribute.constraints ?? {}) as Members;
  const pattern = c.pattern as RegExp | undefined;
  return {
    ...describeField(attribute),
    kind,
    enumValues: kind === 'enum' ? [...(attribute.enumValues as readonly string[])] : [],
    nullable: attribute.isNullable === true,
    constraints: {
      ...(typeof c.minLength === 'number' && { minLength: c.minLength }),
      ...(typeof c.maxLength === 'number' && { maxLength: c.maxLength }),
      ...(pattern !== undefined && { pattern: { source: pattern.source, flags: pattern.flags } }),
      ...(typeof c.min === 'number' && { min: c.min }),
      ...(typeof c.max === 'number' && { max: c.max }),
    },
    validated: ((attribute.validators ?? []) as readonly unknown[]).length > 0,
    ...(declared !== undefined && {
      default: isJson(declared.value) ? { value: structuredClone(declared.value) } : {},
    }),
  };
}

function describeRelationship(relationship: Members): RelationshipDescription {
  return {
    ...describeField(relationship),
    cardinality: relationship.cardinality as 'one' | 'many',
    relatedType: String(relationship.relatedType),
    includable: relationship.isIncludable === true,
    linkage: relationship.hasLinkage === true,
    countable: relationship.isCountable === true,
  };
}

function describeEndpoint(endpoint: Members): EndpointDescription {
  const abilities = [...((endpoint.abilities ?? []) as readonly string[])];
  switch (endpoint.kind) {
    case 'index': {
      const pagination = endpoint.pagination as
        { readonly defaultLimit: number; readonly maxLimit: number } | undefined;
      const countable = endpoint.countableDeclaration ?? (endpoint.isCountable === true ? true : undefined);
      const sort = endpoint.defaultSortValue;
      return {
        kind: 'index',
        abilities,
        ...(pagination !== undefined && {
          pagination: { defaultLimit: pagination.defaultLimit, maxLimit: pagination.maxLimit },
        }),
        ...(typeof countable === 'boolean' && { countable }),
        cursor: endpoint.acceptsCursor === true,
        ...(typeof sort === 'string' && { defaultSort: sort }),
        documentMeta: typeof endpoint.documentMeta === 'function',
      };
    }
    case 'create':
      return { kind: 'create', abilities, clientIds: endpoint.acceptsClientIds === true };
    case 'update':
    case 'delete':
      return { kind: endpoint.kind, abilities, requiresIfMatch: endpoint.requiresIfMatch === true };
    default:
      return { kind: 'show', abilities, documentMeta: typeof endpoint.documentMeta === 'function' };
  }
}

/** The field a `Where` or `SortBy` names, and the path when it names one through a relationship. */
function target(name: string): { field: string; path?: PathDescription } {
  const [field, attribute] = name.split('.') as [string, string | undefined];
  return { field, ...(attribute !== undefined && { path: { relationship: field, attribute } }) };
}

function describeFilter(filter: Members, fieldOf: (name: string) => Members | undefined): FilterDescription {
  const name = String(filter.name);
  const kind =
    filter.declares === 'where' || filter.declares === 'count' || filter.declares === 'custom'
      ? filter.declares
      : 'subclass';
  const operators = filter.declaredOperators as readonly Operator[] | undefined;
  const description = filter.descriptionText;
  return {
    name,
    kind,
    appliedBy: appliedBy(kind, filter),
    ...(kind === 'where' && target(name)),
    ...(kind === 'count' && { counts: countOf(filter, fieldOf) }),
    ...(operators !== undefined && { operators: [...operators] }),
    caseInsensitive: filter.isCaseInsensitive === true,
    takesCommaList: isCommaListFilter(name, fieldOf(name)),
    ...(typeof description === 'string' && { description }),
  };
}

function describeSort(sort: Members, fieldOf: (name: string) => Members | undefined): SortDescription {
  const name = String(sort.name);
  const kind =
    sort.declares === 'field' || sort.declares === 'count' || sort.declares === 'custom' ? sort.declares : 'subclass';
  return {
    name,
    kind,
    appliedBy: appliedBy(kind, sort),
    ...(kind === 'field' && target(name)),
    ...(kind === 'count' && { counts: countOf(sort, fieldOf) }),
  };
}

/** What a `WhereCount` or `SortWithCount` counts (the declaration's rules made sure it names a to-many relationship). */
function countOf(member: Members, fieldOf: (name: string) => Members | undefined): CountDescription {
  const relationship = String(member.countedRelationship);
  return { relationship, relatedType: String(fieldOf(relationship)?.relatedType) };
}

/** `Where`, `WhereCount`, `SortBy` and `SortWithCount` are the data layer's; a custom one is too unless given its function in the schema; a subclass applies itself. */
function appliedBy(kind: string, member: Members): AppliedBy {
  if (kind === 'subclass') return 'schema';
  if (kind === 'custom') return member.implementation === undefined ? 'data layer' : 'schema';
  return 'data layer';
}

/** Whether `value` is JSON data that survives `JSON.stringify` unchanged. */
function isJson(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && Object.values(value).every(isJson);
}
