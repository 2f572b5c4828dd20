import type { Context } from '../dsl/context.js';
import { dateTimeJson } from '../core/date-time.js';
import { type AttributeKind, type Relationship, ToMany } from '../dsl/fields.js';
import { BuiltResource } from './serialize.js';
import { plainInJson } from '../core/json-text.js';
import type { IncludeTree, QueryParameters } from '../query/parse.js';
import type { RegisteredResource, ResourceLookup } from '../registry/registry.js';
import type { ResourceIdentifier, ResourceObject, RelationshipObject } from '../core/vocabulary.js';

interface Node {
  resource: RegisteredResource;
  model: unknown;
  object: ResourceObject;
}

/**
 * Converts an attribute value to its JSON form: dates to ISO 8601 (date-times normalized, see
 * `dateTimeJson`), undefined to null, and number text (node-postgres reads `bigint` and
 * `numeric` columns as text) to the number an `integer` or `number` attribute declares.
 */
export function toJsonValue(kind: AttributeKind, value: unknown): unknown {
  if (kind === 'date-time') return dateTimeJson(value);
  if (value === undefined) return null;
  if (value instanceof Date) return kind === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (typeof value === 'string' && (kind === 'integer' || kind === 'number')) return numberJson(kind, value);
  return value;
}

/** A JSON number literal: integer digits, fraction digits, exponent. */
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Number text as the number it names, when that number prints back as the same value: for
 * `integer`, a whole number within 2^53; for `number`, at most 15 significant digits (what a
 * double holds exactly), neither overflowing nor vanishing. Any other text stays text, so that
 * no digit is lost (a `bigint` past 2^53, a `numeric` of 20 digits); cursors, built from these
 * values, then stay exact too.
 */
function numberJson(kind: 'integer' | 'number', text: string): unknown {
  const match = NUMBER_TEXT.exec(text);
  if (!match) return text;
  const [, whole = '', fraction = '', exponent] = match;
  if (kind === 'integer') {
    const number = Number(text);
    return exponent === undefined && !/[1-9]/.test(fraction) && Number.isSafeInteger(number) ? number : text;
  }
  const significant = (whole + fraction).replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length > 15) return text;
  const number = Number(text);
  return Number.isFinite(number) && (number !== 0 || significant === '') ? number : text;
}

/**
 * Builds one response document: resource objects honouring sparse fieldsets, and a compound
 * document whose related data is loaded once per relationship per include level.
 */
export class DocumentBuilder {
  readonly #context: Context;
  readonly #lookup: ResourceLookup;
  readonly #baseUrl: string;
  readonly #fields: QueryParameters['fields'];
  readonly #nodes = new Map<string, Node>();
  /** Primary nodes not yet in `#nodes`: only an include needs them there (so that they are not included again). */
  readonly #unregistered: Node[] = [];
  readonly #included: ResourceObject[] = [];
  /** Every resource object of the document, primary and included, for `withCount`. */
  readonly #all: Node[] = [];
  readonly #withCount: readonly string[] | undefined;
  /** The base URL holds nothing JSON escapes: with a resource's `plainLinks`, its links are written without a look. */
  readonly #plainBase: boolean;

  constructor(
    context: Context,
    lookup: ResourceLookup,
    baseUrl: string,
    fields: QueryParameters['fields'],
    withCount?: readonly string[],
  ) {
    this.#context = context;
    this.#withCount = withCount && withCount.length > 0 ? withCount : undefined;
    this.#lookup = lookup;
    this.#baseUrl = baseUrl;
    this.#fields = fields;
    this.#plainBase = plainInJson(baseUrl);
  }

  /** The URL of a resource. */
  resourceUrl(resource: RegisteredResource, id: string): string {
    return `${this.#baseUrl}/${resource.typeSegment}/${encodeURIComponent(id)}`;
  }

  /** Serializes the primary data; its resources never repeat in `included`. */
  primary(resource: RegisteredResource, models: readonly unknown[]): Node[] {
    return models.map((model) => {
      const node = { resource, model, object: this.serialize(resource, model) };
      this.#unregistered.push(node);
      if (this.#withCount) this.#all.push(node);
      return node;
    });
  }

  /** The included resources gathered so far. */
  get included(): ResourceObject[] {
    return this.#included;
  }

  /** The resource identifier of a model. */
  identifier(resource: RegisteredResource, model: unknown): ResourceIdentifier {
    return { type: resource.type, id: resource.getId(model, this.#context) };
  }

  /**
   * Completes the document of the primary `nodes`: their includes (`expand`), then the counts
   * `withCount` asks for (`countRelationships`).
   */
  async complete(resource: RegisteredResource, nodes: readonly Node[], tree: IncludeTree | undefined): Promise<void> {
    await this.expand(resource, nodes, tree);
    await this.countRelationships();
  }

  /**
   * `relationships.<name>.meta.count` on every resource object of the document (primary and
   * included) whose type has a countable to-many relationship `name` that `withCount` names
   * and whose relationship object is in the document: one `countRelated` call per type and
   * relationship, for all of that type's objects at once.
   */
  async countRelationships(): Promise<void> {
    const names = this.#withCount;
    if (!names) return;
    const byType = new Map<RegisteredResource, Node[]>();
    for (const node of this.#all) {
      let list = byType.get(node.resource);
      if (!list) byType.set(node.resource, (list = []));
      list.push(node);
    }
    const calls: Array<Promise<void>> = [];
    for (const [resource, nodes] of byType) {
      for (const name of names) {
        const relationship = resource.fields.get(name);
        if (!(relationship instanceof ToMany) || !relationship.isCountable) continue;
        const counted = nodes.filter((n) => n.object.relationships?.[name] !== undefined);
        if (counted.length === 0) continue;
        calls.push(
          Promise.resolve(
            resource.definition.countRelated!(
              relationship,
              counted.map((n) => n.model),
              this.#context,
            ),
          ).then((counts) => {
            if (!Array.isArray(counts) || counts.length !== counted.length)
              throw new TypeError(
                `${resource.type}.countRelated(${name}) returned ${Array.isArray(counts) ? counts.length : typeof counts} counts for ${counted.length} models`,
              );
            counted.forEach((node, i) => {
              node.object.relationships![name]!.meta = { count: Number(counts[i]) };
            });
          }),
        );
      }
    }
    this.#context.throwIfAborted();
    await Promise.all(calls);
  }

  /**
   * Loads the relationships `tree` names (and those that always carry linkage) for `nodes`,
   * one `loadRelated` call per relationship, then descends a level. No `tree`: nothing included.
   */
  async expand(resource: RegisteredResource, nodes: readonly Node[], tree: IncludeTree = NO_INCLUDES): Promise<void> {
    if (nodes.length === 0) return;
    const fieldset = this.#fields.get(resource.type);
    const wanted = resource.relationships.filter(
      (r) => tree.has(r.name) || (r.hasLinkage && (!fieldset || fieldset.has(r.name))),
    );
    if (wanted.length === 0) return;
    await this.#load(resource, nodes, tree, fieldset, wanted);
  }

  async #load(
    resource: RegisteredResource,
    nodes: readonly Node[],
    tree: IncludeTree,
    fieldset: ReadonlySet<string> | undefined,
    wanted: Relationship[],
  ): Promise<void> {
    // Each level is a round of data-layer calls: none once the client has gone.
    this.#context.throwIfAborted();
    if (tree.size > 0) {
      for (const node of this.#unregistered) {
        const k = keyOf(node.resource.type, node.object.id);
        if (!this.#nodes.has(k)) this.#nodes.set(k, node);
      }
      this.#unregistered.length = 0;
    }
    // Per relationship, only the nodes for which it is visible (its callbacks see each model).
    const sets = wanted.map((relationship) =>
      relationship.isConditional ? nodes.filter((n) => relationship.isVisibleFor(n.model, this.#context)) : nodes,
    );
    const loaded = await Promise.all(
      wanted.map((relationship, i) =>
        sets[i]!.length === 0
          ? []
          : resource.loadRelated!(
              relationship,
              sets[i]!.map((n) => n.model),
              this.#context,
            ),
      ),
    );
    const next: Array<[RegisteredResource, Node[], IncludeTree]> = [];
    wanted.forEach((relationship, i) => {
      const related = this.#lookup(relationship.relatedType)!;
      const results = loaded[i]!;
      const group = sets[i]!;
      if (!Array.isArray(results) || results.length !== group.length) {
        throw new TypeError(
          `${resource.type}.loadRelated(${relationship.name}) returned ${Array.isArray(results) ? results.length : typeof results} results for ${group.length} models`,
        );
      }
      const subtree = tree.get(relationship.name);
      const children = new Map<string, Node>();
      const showLinkage = !fieldset || fieldset.has(relationship.name);
      group.forEach((node, j) => {
        const linkage = this.#linkage(relationship, related, results[j], subtree ? children : undefined);
        if (showLinkage) node.object.relationships![relationship.name]!.data = linkage;
      });
      // Descend for deeper includes, and for relationships that always carry linkage.
      if (subtree && (subtree.size > 0 || related.relationships.some((r) => r.hasLinkage))) {
        next.push([related, [...children.values()], subtree]);
      }
    });
    for (const [related, children, subtree] of next) await this.expand(related, children, subtree);
  }

  #linkage(
    relationship: Relationship,
    related: RegisteredResource,
    value: unknown,
    include: Map<string, Node> | undefined,
  ): ResourceIdentifier | ResourceIdentifier[] | null {
    if (relationship.cardinality === 'one')
      return value === null || value === undefined ? null : this.#link(related, value, include);
    if (!Array.isArray(value))
      throw new TypeError(`loadRelated(${relationship.name}) must give an array per model for a to-many relationship`);
    const linkage = new Array<ResourceIdentifier>(value.length);
    for (let i = 0; i < value.length; i++) linkage[i] = this.#link(related, value[i], include);
    return linkage;
  }

  /** The identifier of a related model; when included, its node joins `include` (and `included` if new). */
  #link(related: RegisteredResource, model: unknown, include: Map<string, Node> | undefined): ResourceIdentifier {
    if (!include) return this.identifier(related, model);
    const id = related.getId(model, this.#context);
    const k = keyOf(related.type, id);
    let node = this.#nodes.get(k);
    if (!node) {
      node = this.#node(related, model, id, k);
      this.#included.push(node.object);
    }
    include.set(k, node);
    return { type: node.object.type, id: node.object.id };
  }

  #node(
    resource: RegisteredResource,
    model: unknown,
    id = resource.getId(model, this.#context),
    k = keyOf(resource.type, id),
  ): Node {
    const existing = this.#nodes.get(k);
    if (existing) return existing;
    const node = { resource, model, object: this.serialize(resource, model, id) };
    this.#nodes.set(k, node);
    if (this.#withCount) this.#all.push(node);
    return node;
  }

  /** One resource object, with the fields `fields[type]` allows. */
  serialize(resource: RegisteredResource, model: unknown, id = resource.getId(model, this.#context)): ResourceObject {
    const context = this.#context;
    const self = this.resourceUrl(resource, id);
    const fieldset = this.#fields.get(resource.type);
    // Built member by member so the JSON reads type, id, attributes, relationships, links
    // (the order `documentJson` writes a BuiltResource in).
    const object = new BuiltResource(resource.type, id, this.#plainBase && resource.plainLinks) as ResourceObject;
    let attributes: Record<string, unknown>;
    const definition = resource.definition;
    if (definition.serializeAttributes) {
      attributes = definition.serializeAttributes(model, context);
      if (fieldset) for (const name of Object.keys(attributes)) if (!fieldset.has(name)) delete attributes[name];
      for (const attribute of resource.conditionalAttributes) {
        if (!attribute.isVisibleFor(model, context)) delete attributes[attribute.name];
      }
    } else {
      attributes = {};
      for (const attribute of resource.attributes) {
        if (fieldset && !fieldset.has(attribute.name)) continue;
        if (attribute.isConditional && !attribute.isVisibleFor(model, context)) continue;
        const value = attribute.getter
          ? attribute.getter(model, context)
          : (model as Record<string, unknown>)[attribute.name];
        if (value === undefined && attribute.isOptional && !attribute.getter) continue;
        attributes[attribute.name] = toJsonValue(attribute.kind, value);
      }
    }
    for (const _ in attributes) {
      object.attributes = attributes;
      break;
    }
    let relationships: Record<string, RelationshipObject> | undefined;
    for (const relationship of resource.relationships) {
      if (fieldset && !fieldset.has(relationship.name)) continue;
      if (relationship.isConditional && !relationship.isVisibleFor(model, context)) continue;
      relationships ??= {};
      relationships[relationship.name] = {
        links: { self: `${self}/relationships/${relationship.name}`, related: `${self}/${relationship.name}` },
      };
    }
    if (relationships) object.relationships = relationships;
    object.links = { self };
    // Meta is served whatever `fields[type]` asks: sparse fieldsets name attributes and relationships only.
    if (resource.meta.length > 0) object.meta = resourceMeta(resource, model, context);
    return object;
  }
}

/**
 * A document's `meta`: what the endpoint's `meta()` getter gave, then the runtime's own members
 * (`total`, `page`), which a declared member of the same name never replaces. Undefined when
 * there is neither.
 *
 * @example
 * documentMeta({ drafts: 2, total: 99 }, { total: 7 }); // { drafts: 2, total: 7 }
 */
export function documentMeta(
  declared: unknown,
  own: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (declared === undefined) return own;
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared))
    throw new TypeError(
      `an endpoint's meta() must give an object, not ${declared === null ? 'null' : typeof declared}`,
    );
  return { ...(declared as Record<string, unknown>), ...own };
}

/** The meta members of one resource object, each in its JSON form (date-times as RFC 3339 text). */
function resourceMeta(resource: RegisteredResource, model: unknown, context: Context): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  for (const member of resource.meta) {
    const value = member.getter!(model, context);
    meta[member.name] = member.kind === 'date-time' ? dateTimeJson(value) : value === undefined ? null : value;
  }
  return meta;
}

/** The include tree of a request without `include` (never written to). */
const NO_INCLUDES: IncludeTree = new Map();

function keyOf(type: string, id: string): string {
  return `${type}\u0000${id}`;
}
