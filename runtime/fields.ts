import type { Context } from './context.js';

/** The declared kinds of attribute values. */
export type AttributeKind =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'date-time'
  | 'date'
  | 'enum'
  | 'array'
  | 'object';

/** Reads a field's value from a model. */
export type Getter = (model: any, context: Context) => unknown;

/** What attributes and relationships share: a name, flags and how the value is read. */
export abstract class Field {
  readonly name: string;
  #writable = false;
  #required = false;
  #getter: Getter | undefined;

  protected constructor(name: string) {
    this.name = name;
  }

  /** Clients may set this field on create and update. */
  writable(): this {
    this.#writable = true;
    return this;
  }

  /** Clients must give this field when creating a resource. */
  required(): this {
    this.#required = true;
    return this;
  }

  /** Read the value with `getter` instead of the model's property of the same name. */
  get(getter: Getter): this {
    this.#getter = getter;
    return this;
  }

  get isWritable(): boolean {
    return this.#writable;
  }

  get isRequired(): boolean {
    return this.#required;
  }

  /** The custom getter, if one was given. */
  get getter(): Getter | undefined {
    return this.#getter;
  }
}

/**
 * A resource attribute.
 *
 * @example
 * Attribute.make('title').type('string').writable().required();
 * Attribute.make('status').type('enum', ['draft', 'published']).writable();
 */
export class Attribute extends Field {
  #kind: AttributeKind = 'string';
  #enumValues: readonly string[] = [];
  #nullable = false;

  /** A new attribute named `name`, a string until `.type()` says otherwise. */
  static make(name: string): Attribute {
    return new Attribute(name);
  }

  /** The kind of value; enums list their members. */
  type(kind: 'enum', values: readonly string[]): this;
  type(kind: Exclude<AttributeKind, 'enum'>): this;
  type(kind: AttributeKind, values?: readonly string[]): this {
    this.#kind = kind;
    if (kind === 'enum') {
      if (!values || values.length === 0) throw new TypeError(`enum attribute "${this.name}" needs its values`);
      this.#enumValues = Object.freeze([...values]);
    }
    return this;
  }

  /** `null` is an accepted value. */
  nullable(): this {
    this.#nullable = true;
    return this;
  }

  get kind(): AttributeKind {
    return this.#kind;
  }

  get enumValues(): readonly string[] {
    return this.#enumValues;
  }

  get isNullable(): boolean {
    return this.#nullable;
  }
}

/** A relationship to one or many resources of another type. */
export abstract class Relationship extends Field {
  abstract readonly cardinality: 'one' | 'many';
  #relatedType: string | undefined;
  #includable = false;
  #linkage = false;

  /** The type of the related resources. */
  type(relatedType: string): this {
    this.#relatedType = relatedType;
    return this;
  }

  /** Clients may ask for the related resources with `include`. */
  includable(): this {
    this.#includable = true;
    return this;
  }

  /** Always send resource linkage (`data`), even when the relationship is not included. */
  withLinkage(): this {
    this.#linkage = true;
    return this;
  }

  get relatedType(): string {
    if (this.#relatedType === undefined) throw new TypeError(`relationship "${this.name}" has no .type(...)`);
    return this.#relatedType;
  }

  get hasRelatedType(): boolean {
    return this.#relatedType !== undefined;
  }

  get isIncludable(): boolean {
    return this.#includable;
  }

  get hasLinkage(): boolean {
    return this.#linkage;
  }
}

/**
 * A to-one relationship.
 *
 * @example
 * ToOne.make('author').type('people').includable().writable().required();
 */
export class ToOne extends Relationship {
  readonly cardinality = 'one' as const;

  /** A new to-one relationship named `name`. */
  static make(name: string): ToOne {
    return new ToOne(name);
  }
}

/**
 * A to-many relationship.
 *
 * @example
 * ToMany.make('tags').type('tags').includable().writable();
 */
export class ToMany extends Relationship {
  readonly cardinality = 'many' as const;

  /** A new to-many relationship named `name`. */
  static make(name: string): ToMany {
    return new ToMany(name);
  }
}
