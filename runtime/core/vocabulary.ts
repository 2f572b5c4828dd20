/**
 * The vocabulary every stage of the runtime shares: JSON:API document shapes as the runtime
 * emits them, identifiers and linkage, and the values a write hands the data layer. Types only,
 * importing nothing, so any file may use them without depending on another stage.
 */

/** A resource identifier object. */
export interface ResourceIdentifier {
  type: string;
  id: string;
}

/** A relationship object. */
export interface RelationshipObject {
  links: { self: string; related: string };
  data?: ResourceIdentifier | ResourceIdentifier[] | null;
  /** `count`: the number of related resources, when `withCount` names a countable relationship. */
  meta?: { count: number };
}

/** A resource object as the runtime emits it. */
export interface ResourceObject extends ResourceIdentifier {
  attributes?: Record<string, unknown>;
  relationships?: Record<string, RelationshipObject>;
  links: { self: string };
  meta?: Record<string, unknown>;
}

/** The members of a top-level document the runtime emits. */
export interface TopLevelDocument {
  jsonapi: { version: '1.1'; ext?: string[] };
  links?: Record<string, string | null>;
  data?: ResourceObject | ResourceObject[] | ResourceIdentifier | ResourceIdentifier[] | null;
  included?: ResourceObject[];
  meta?: Record<string, unknown>;
  errors?: unknown[];
}

/** Linkage as written: one identifier or null for to-one, a list for to-many. */
export type Linkage = ResourceIdentifier | null | ResourceIdentifier[];

/**
 * What a create or update writes: the attributes and relationships the client sent, checked
 * and converted (plus defaults on create). Both maps have no prototype, so a member named
 * `__proto__` is just a key.
 */
export interface WriteValues {
  /** A client-generated id, when the Create endpoint accepts them. */
  id?: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, Linkage>;
}
