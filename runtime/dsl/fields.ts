import type { Context } from './context.js';
import type { MaybePromise } from '../core/types.js';
import type { ModelCheck } from './hooks.js';

/** The declared kinds of attribute values. */
export type AttributeKind =
  'string' | 'integer' | 'number' | 'boolean' | 'date-time' | 'date' | 'enum' | 'array' | 'object';

/** Declared bounds of an attribute's values. */
export interface AttributeConstraints {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: RegExp;
  readonly min?: number;
  readonly max?: number;
}

/** The Standard Schema interface (standardschema.dev), as far as validation needs it. */
export interface StandardSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) =>
      | { readonly value: unknown; readonly issues?: undefined }
      | { readonly issues: ReadonlyArray<{ readonly message: string }> }
      | Promise<
          | { readonly value: unknown; readonly issues?: undefined }
          | { readonly issues: ReadonlyArray<{ readonly message: string }> }
        >;
  };
}

/** A custom check: nothing when fine, else a message or messages. Or a Standard Schema. */
export type AttributeValidator =
  | ((
      value: unknown,
      context: Context,
    ) => string | readonly string[] | undefined | void | Promise<string | readonly string[] | undefined | void>)
  | StandardSchema;

/** Reads a field's value from a model (a method type, so a getter may name its model's type). */
export type Getter = { bivariant(model: unknown, context: Context): unknown }['bivariant'];

/**
 * Decides whether a field may be seen. `model` is the resource being serialized or written,
 * or `undefined` when the question is about the field as such: its use in a filter, a sort,
 * an include path, a sparse fieldset, or a create. Synchronous: it runs per resource object.
 */
export type FieldVisibilityCallback = { bivariant(model: unknown, context: Context): boolean }['bivariant'];

/** Decides whether a client may write a writable field: with the stored model on update, `undefined` on create. */
export type FieldWritePolicy<M> = (model: M | undefined, context: Context) => MaybePromise<boolean>;

/** What attributes and relationships share: a name, flags and how the value is read. */
export abstract class Field {
  readonly name: string;
  #writable = false;
  #required = false;
  #getter: Getter | undefined;
  #checks: FieldVisibilityCallback[] = [];
  #writePolicy: FieldWritePolicy<never> | undefined;

  protected constructor(name: string) {
    this.name = name;
  }

  /**
   * Show the field only when `callback` returns true. A hidden field is absent from output,
   * refused in input, and unusable in filters, sorts, include paths and sparse fieldsets.
   *
   * Without a model (a filter, a sort, a create) answer for every resource at once: returning
   * true there lets `filter[email]=...` probe values the client may not read.
   *
   * @example
   * // Each person sees their own email; only admins may filter or sort by it.
   * Attribute.make('email').visible((person: { id: number } | undefined, ctx) =>
   *   person ? String(person.id) === ctx.getAttribute('user') : ctx.getAttribute('role') === 'admin',
   * );
   */
  visible(callback: FieldVisibilityCallback): this {
    this.#checks.push(callback);
    return this;
  }

  /** Hide the field when `callback` returns true; see `visible`. */
  hidden(callback: FieldVisibilityCallback): this {
    this.#checks.push((model, context) => !callback(model, context));
    return this;
  }

  /** Whether any visibility callback was given (fields without one skip the checks). */
  get isConditional(): boolean {
    return this.#checks.length > 0;
  }

  /** Whether the field may be seen for `model` (or as such, with `undefined`). */
  isVisibleFor(model: unknown, context: Context): boolean {
    for (const check of this.#checks) {
      const visible = check(model, context) as unknown;
      if (visible instanceof Promise)
        throw new TypeError(`field "${this.name}": visibility callbacks must be synchronous`);
      if (!visible) return false;
    }
    return true;
  }

  /**
   * Clients may set this field on create and update; with `policy`, only when it returns true
   * (else 403 `read_only` at the member, as for a read-only field). The policy sees the stored
   * model on update (the data layer's, which may hold more than the generated model type, such
   * as a foreign key) and `undefined` on create; annotate `model` with what the policy reads.
   *
   * @example
   * Attribute.make('title').writable();
   * // On update, only the comment's author may change its body; anyone may on create.
   * Attribute.make('body').writable((comment: { authorId: number | string } | undefined, ctx) =>
   *   comment === undefined || String(comment.authorId) === ctx.getAttribute('user'),
   * );
   */
  writable<M = unknown>(policy?: FieldWritePolicy<M>): this & { readonly '~model'?: ModelCheck<M> } {
    this.#writable = true;
    this.#writePolicy = policy;
    return this;
  }

  /** Whether `writable()` was given a policy. */
  get hasWritePolicy(): boolean {
    return this.#writePolicy !== undefined;
  }

  /** Whether the client may write this writable field of `model` (undefined: a create). */
  mayWrite(model: unknown, context: Context): MaybePromise<boolean> {
    const policy = this.#writePolicy as FieldWritePolicy<unknown> | undefined;
    return policy === undefined ? true : policy(model, context);
  }

  /** Clients must give this field when creating a resource. */
  required(): this {
    this.#required = true;
    return this;
  }

  /**
   * Read the value with `getter` instead of the model's property of the same name. The type of
   * its `model` parameter is what the generated model type requires for this field.
   *
   * @example
   * Attribute.make('wordCount').type('integer').get((article: { body: string | null }) => article.body?.split(' ').length ?? 0);
   */
  get<M>(getter: (model: M, context: Context) => unknown): this & { readonly modelRequirement?: M } {
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
  #constraints: AttributeConstraints = {};
  #validators: AttributeValidator[] = [];
  #default: { value: unknown } | undefined;

  /** A new attribute named `name`, a string until `.type()` says otherwise. */
  static make(name: string): Attribute {
    return new Attribute(name);
  }

  /**
   * The kind of value; enums list their members (strings, at least one, each once). Arguments
   * are checked when the resource is registered, and by `jsonapi-gen build`.
   */
  type(kind: 'enum', values: readonly string[]): this;
  type(kind: Exclude<AttributeKind, 'enum'>): this;
  type(kind: AttributeKind, values?: readonly string[]): this {
    this.#kind = kind;
    if (kind === 'enum')
      this.#enumValues = Object.freeze(Array.isArray(values) ? [...(values as readonly string[])] : []);
    return this;
  }

  /** `null` is an accepted value. */
  nullable(): this {
    this.#nullable = true;
    return this;
  }

  /** Strings: at least `n` characters (Unicode code points), a whole number. */
  minLength(n: number): this {
    return this.#constrain({ minLength: n });
  }

  /** Strings: at most `n` characters (Unicode code points), a whole number, not below `minLength`. */
  maxLength(n: number): this {
    return this.#constrain({ maxLength: n });
  }

  /** Strings: must match `pattern`, a RegExp (its source is the OpenAPI `pattern`). */
  pattern(pattern: RegExp): this {
    return this.#constrain({ pattern });
  }

  /** Numbers and integers: at least `n`. */
  min(n: number): this {
    return this.#constrain({ min: n });
  }

  /** Numbers and integers: at most `n`, not below `min`. */
  max(n: number): this {
    return this.#constrain({ max: n });
  }

  /**
   * A custom check of a written value: return nothing when it is fine, or what is wrong.
   * A Standard Schema (zod, valibot, arktype, ...) is accepted as is, through `~standard`;
   * its output replaces the value.
   *
   * @example
   * Attribute.make('slug').validate((v) => (/^[a-z-]+$/.test(String(v)) ? undefined : 'use a-z and -'));
   * import { z } from 'zod';
   * Attribute.make('email').validate(z.string().email());
   */
  validate(validator: AttributeValidator): this {
    this.#validators.push(validator);
    return this;
  }

  /**
   * The value a created resource gets when the client gives none: a value, or a function of
   * the context called at each create (`() => new Date().toISOString()`). A value must be one
   * the attribute accepts (its kind, nullability and bounds), checked at registration.
   */
  default(value: unknown): this {
    this.#default = { value };
    return this;
  }

  #constrain(constraints: AttributeConstraints): this {
    this.#constraints = Object.freeze({ ...this.#constraints, ...constraints });
    return this;
  }

  get kind(): AttributeKind {
    return this.#kind;
  }

  get constraints(): AttributeConstraints {
    return this.#constraints;
  }

  get validators(): readonly AttributeValidator[] {
    return this.#validators;
  }

  /** Whether `.default()` was given. */
  get hasDefault(): boolean {
    return this.#default !== undefined;
  }

  /** What `.default()` was given (a value or a function), wrapped so that `undefined` given differs from none. */
  get declaredDefault(): { readonly value: unknown } | undefined {
    return this.#default;
  }

  /** The default for a new resource (functions are called with the context). */
  defaultValue(context: Context): unknown {
    const value = this.#default?.value;
    return typeof value === 'function' ? (value as (context: Context) => unknown)(context) : value;
  }

  get enumValues(): readonly string[] {
    return this.#enumValues;
  }

  get isNullable(): boolean {
    return this.#nullable;
  }

  /**
   * Whether a model may lack this attribute: writable, yet neither required, nullable nor
   * defaulted, so a client may never have set it. Such a value is left out of `attributes`;
   * any other missing value is served as `null` (the generated model types say the same).
   */
  get isOptional(): boolean {
    return this.isWritable && !this.isRequired && !this.#nullable && !this.hasDefault;
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
  #countable = false;

  /** A new to-many relationship named `name`. */
  static make(name: string): ToMany {
    return new ToMany(name);
  }

  /**
   * Clients may ask how many related resources each resource has: `withCount=comments` puts
   * `relationships.comments.meta.count` on every resource of this type in the document, counted
   * for the whole page at once by the data layer's `countRelated` (only what the request may see).
   *
   * @example
   * ToMany.make('comments').type('comments').includable().countable();
   */
  countable(): this {
    this.#countable = true;
    return this;
  }

  /** Whether `withCount` may name it. */
  get isCountable(): boolean {
    return this.#countable;
  }
}
