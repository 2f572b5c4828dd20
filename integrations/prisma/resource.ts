/**
 * One resource type of a Prisma store as the reads use it: its mapping with defaults applied,
 * its model's delegate on the request's client, its scope, and its rows as models.
 */
import type { Ability, Context, FilterValue, MaybePromise, SortDirection } from 'jsonapi-gen';
import type { PrismaWhere, WhereMapping, WhereProvider } from './conditions.js';
import { parseIntegerId } from 'jsonapi-gen/internal';
import type { WriteOperation } from './mapping.js';

/** A row of a model as Prisma returns it, and the model the runtime reads (attributes by name). */
export type Model = Record<string, unknown>;

/** What the store calls on a model's delegate (every generated delegate has these). */
export interface Delegate {
  findMany(args: object): Promise<Model[]>;
  findFirst(args: object): Promise<Model | null>;
  count(args: object): Promise<number>;
  groupBy(args: object): Promise<Model[]>;
}

/** A relationship's mapping without the client's types: what the store reads of it. */
export type Relation =
  | { readonly field: string; readonly foreignKey: string; readonly model?: undefined; readonly through?: undefined }
  | { readonly field: string; readonly model: string; readonly foreignKey: string; readonly through?: undefined }
  | {
      readonly field: string;
      readonly through: {
        readonly model: string;
        readonly from: string;
        readonly to: string;
        readonly relation: string;
      };
    };

/** The mapping without the client's types: every name a string. */
export interface LooseMapping {
  readonly model: string;
  readonly table?: string;
  readonly columns?: Readonly<Record<string, string | undefined>>;
  readonly id?: string;
  readonly fields?: Readonly<Record<string, string>>;
  readonly nullable?: readonly string[];
  readonly relationships?: Readonly<Record<string, Relation>>;
  readonly parseId?: (id: string) => unknown;
  readonly scope?: (context: Context) => PrismaWhere;
  readonly policy?: (ability: Ability, model: Model, context: Context) => MaybePromise<boolean>;
  readonly filters?: Readonly<Record<string, (value: FilterValue, context: Context) => MaybePromise<PrismaWhere>>>;
  readonly sorts?: Readonly<Record<string, (direction: SortDirection, context: Context) => readonly PrismaWhere[]>>;
  readonly version?: string;
  readonly serverFields?: (operation: WriteOperation, context: Context) => Record<string, unknown>;
}

/** Where-parts together: none is `{}`, one is itself. */
export function allOf(parts: ReadonlyArray<PrismaWhere | undefined>): PrismaWhere {
  const present = parts.filter((p): p is PrismaWhere => p !== undefined);
  return present.length === 0 ? {} : present.length === 1 ? present[0]! : { AND: present };
}

/** A resource type of the store. */
export class ModelResource {
  readonly idField: string;
  readonly parseId: (id: string) => unknown;
  /** Attribute → field, only where they differ. */
  readonly #renamed: ReadonlyArray<[string, string]>;

  constructor(
    readonly type: string,
    readonly mapping: LooseMapping,
    readonly provider: WhereProvider,
    readonly clientFor: (context: Context) => object,
  ) {
    this.idField = mapping.id ?? 'id';
    this.parseId = mapping.parseId ?? parseIntegerId;
    this.#renamed = Object.entries(mapping.fields ?? {}).filter(([attribute, field]) => attribute !== field);
  }

  /** The scalar field of an attribute (or of `id`). */
  field(attribute: string): string {
    if (attribute === 'id') return this.idField;
    return this.mapping.fields?.[attribute] ?? attribute;
  }

  relation(name: string): Relation {
    const relation = this.mapping.relationships?.[name];
    if (!relation) throw new TypeError(`defineStore: ${this.type}.${name} has no relation in the mapping`);
    return relation;
  }

  /** The delegate of model `model` (default: this resource's) on the request's client or transaction. */
  delegate(context: Context, model = this.mapping.model): Delegate {
    const delegate = (this.clientFor(context) as Record<string, Delegate | undefined>)[model];
    if (!delegate) throw new TypeError(`defineStore: the client has no model ${model}`);
    return delegate;
  }

  /** Whether `field` is a DateTime field (Prisma's public field references say). */
  isDateTime(field: string, context: Context): boolean {
    const fields = (this.delegate(context) as { fields?: Record<string, { typeName?: string } | undefined> }).fields;
    return fields?.[field]?.typeName === 'DateTime';
  }

  scope(context: Context): PrismaWhere | undefined {
    return this.mapping.scope?.(context);
  }

  /** A row as the runtime reads it: attributes whose field has another name copied to their own. */
  toModel(row: Model): Model {
    if (this.#renamed.length === 0) return row;
    const model = { ...row };
    for (const [attribute, field] of this.#renamed) model[attribute] = row[field];
    return model;
  }

  /** The mapping `prismaWhere` reads: fields (to-one relationships by their foreign key), relations. */
  whereMapping(): WhereMapping {
    const fields: Record<string, string> = { ...this.mapping.fields, id: this.idField };
    const relationships: Record<string, { field: string; through?: string }> = {};
    const ids = new Set(['id']);
    for (const [name, relation] of Object.entries(this.mapping.relationships ?? {})) {
      if (relation.through) relationships[name] = { field: relation.field, through: relation.through.relation };
      else relationships[name] = { field: relation.field };
      if (!relation.through && relation.model === undefined) {
        fields[name] = relation.foreignKey;
        ids.add(name);
      }
    }
    return {
      fields,
      ...(this.mapping.nullable && { nullable: this.mapping.nullable }),
      relationships,
      // Ids come as text; the id field (and a foreign key) takes what parseId makes of it.
      value: (field, value) => (ids.has(field) ? (this.parseId(String(value)) ?? value) : value),
    };
  }
}
