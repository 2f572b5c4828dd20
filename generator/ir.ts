/**
 * The generator's intermediate representation: plain, serializable data describing the API,
 * built once from the loaded schema and read by every emitter.
 */
import type { AttributeKind, MetaKind, Operator } from 'jsonapi-gen';

/** The data-layer capabilities a resource needs, named after the runtime interfaces. */
export type Capability =
  | 'Findable'
  | 'Listable'
  | 'Paginatable'
  | 'Countable'
  | 'CursorPaginatable'
  | 'Deletable'
  | 'Relatable'
  | 'Creatable'
  | 'Updatable'
  | 'ToManyMutable'
  | 'RelationshipCounts'
  | 'Filterable'
  | 'CustomFilterable'
  | 'Sortable'
  | 'CustomSortable'
  | 'Authorizable'
  | 'Versioned'
  | 'OptionallyVersioned';

/** The whole API: every resource, sorted by type. */
export interface ApiModel {
  /** The schema file, relative to the output directory, as an import specifier ending in `.js`. */
  readonly schemaImport: string;
  /** The schema file, relative to the output directory, for headers. */
  readonly schemaPath: string;
  readonly resources: readonly ResourceModel[];
  readonly extensions: ExtensionsModel;
}

/** The extensions the schema declares (`export const extensions = [atomic()]`). */
export interface ExtensionsModel {
  /** Whether the schema exports `extensions`: the generated `createApi` then uses them by default. */
  readonly exported: boolean;
  /** Atomic Operations (`https://jsonapi.org/ext/atomic`), where it is served. */
  readonly atomic: { readonly uri: string; readonly path: string } | undefined;
}

/** Identifiers derived from a resource type. */
export interface Names {
  /** `BlogPosts`: the prefix of every type of the resource. */
  readonly pascal: string;
  /** `blogPosts`: the prefix of values (`blogPostsResource`). */
  readonly camel: string;
}

export interface ResourceModel {
  readonly type: string;
  /** The name the schema file exports the resource under. */
  readonly exportName: string;
  readonly names: Names;
  /** In declared order: the order of members in responses. */
  readonly attributes: readonly AttributeModel[];
  readonly relationships: readonly RelationshipModel[];
  readonly endpoints: EndpointsModel;
  readonly filters: readonly string[];
  /** What the OpenAPI document says of each filter, in the order of `filters`. */
  readonly filterDetails: readonly FilterModel[];
  readonly sorts: readonly string[];
  /** `Where` filters: the fields the data layer's `where` compares. */
  readonly whereFilters: readonly string[];
  /** `WhereCount` filters: the counts the data layer's `where` compares (`commentCount`). */
  readonly countFilters: readonly string[];
  /** `CustomFilter`s declared without an implementation: the data layer's `customFilters`. */
  readonly customFilters: readonly string[];
  /** `SortBy` sorts: the fields the data layer's `orderBy` orders by. */
  readonly sortFields: readonly string[];
  /** `SortWithCount` sorts: the counts the data layer's `orderBy` orders by. */
  readonly countSorts: readonly string[];
  /** `CustomSort`s declared without an implementation: the data layer's `customSorts`. */
  readonly customSorts: readonly string[];
  /** Whether an endpoint asks the data layer's policy (`can(ability)`). */
  readonly usesPolicy: boolean;
  /** Whether the schema gives `getId` (else the model needs an `id`). */
  readonly hasGetId: boolean;
  /** Whether Create accepts client-generated ids. */
  readonly clientIds: boolean;
  /** What the data layer must implement, in a fixed order. */
  readonly capabilities: readonly Capability[];
  /** The meta members of each resource object, in declared order. */
  readonly meta: readonly MetaModel[];
  /** Whether Show and Index give document meta (`meta()`). */
  readonly documentMeta: { readonly show: boolean; readonly index: boolean };
}

/** A meta member of resource objects (`Meta.make(name)`). */
export interface MetaModel {
  readonly name: string;
  readonly kind: MetaKind;
  readonly nullable: boolean;
}

/** A filter as the OpenAPI document describes it. */
export interface FilterModel {
  readonly name: string;
  /** `where` for `Where.make`, `count` for `WhereCount.make`, `custom` for `CustomFilter.make`, undefined for a host's own `Filter` subclass. */
  readonly declares: 'where' | 'count' | 'custom' | undefined;
  /** A `WhereCount` filter's counted to-many relationship and its related type. */
  readonly counts: { readonly relationship: string; readonly relatedType: string } | undefined;
  /**
   * Whether `filter[name]=a,b` means a or b (the runtime's `takesCommaList`): a filter named
   * `id`, or after a relationship or an enum attribute. Any other takes its value verbatim.
   */
  readonly commaList: boolean;
  /** The schema's `.description(text)`, if given. */
  readonly description: string | undefined;
  /** A `Where` or `WhereCount` filter's `.operators(...)`, if declared (else the defaults of its field's kind, or every count operator). */
  readonly operators: readonly Operator[] | undefined;
  /** Whether a `Where` filter's text operators ignore letter case. */
  readonly caseInsensitive: boolean;
}

export interface AttributeModel {
  readonly name: string;
  readonly kind: AttributeKind;
  readonly enumValues: readonly string[];
  readonly nullable: boolean;
  readonly writable: boolean;
  readonly required: boolean;
  /** Read through the schema's `.get()` getter rather than the model property. */
  readonly hasGetter: boolean;
  /** Written only when its `writable(policy)` callback allows (403 `read_only` otherwise). */
  readonly hasWritePolicy: boolean;
  /** Created resources get `.default()` when the client gives no value. */
  readonly hasDefault: boolean;
  /** Declared bounds (`.minLength()`, `.max()`, ...), in JSON Schema's words; `pattern` is the RegExp's source. */
  readonly constraints: AttributeConstraintsModel;
}

/** The JSON Schema keywords an attribute's declared constraints become. */
export interface AttributeConstraintsModel {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
}

export interface RelationshipModel {
  readonly name: string;
  readonly cardinality: 'one' | 'many';
  readonly relatedType: string;
  readonly includable: boolean;
  readonly linkage: boolean;
  readonly writable: boolean;
  readonly required: boolean;
  /** Written only when its `writable(policy)` callback allows (403 `read_only` otherwise). */
  readonly hasWritePolicy: boolean;
  /** A to-many relationship `withCount` may name (`countable()`): the data layer then counts (`RelationshipCounts`). */
  readonly countable: boolean;
}

export interface IndexModel {
  readonly pagination: { readonly defaultLimit: number; readonly maxLimit: number } | undefined;
  readonly defaultSort: string | undefined;
  readonly countable: boolean;
  /** Cursor pagination too (`cursor()`): `page[size]`, `page[after]`, `page[before]`. */
  readonly cursor: boolean;
}

export interface EndpointsModel {
  readonly show: boolean;
  readonly index: IndexModel | undefined;
  readonly create: boolean;
  readonly update: boolean;
  readonly delete: boolean;
  /** Whether an Update or Delete insists on `If-Match` (`requireIfMatch()`): the data layer must then be `Versioned`. */
  readonly requiresIfMatch: boolean;
}
