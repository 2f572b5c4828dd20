/**
 * The mapping of one resource type to a model of a generated Prisma Client: which model
 * (its delegate on the client), the scalar field of each attribute, the relation of each
 * relationship, custom filters and sorts, the read scope, the policy, the version field and
 * the fields the server sets. Checked against the client's types: the model must be one of the
 * client's, and every field, key and relation name one of that model's (or of the related
 * model's, for a to-many key).
 */
import type { Ability, Context, FilterValue, MaybePromise, SortDirection } from 'jsonapi-gen';
import type { PrismaWhere } from './conditions.js';

export { parseIntegerId } from 'jsonapi-gen/internal';

/** The models of client `C`, by their delegate's key (`article` for `prisma.article`). */
export type ModelName<C> = {
  [K in keyof C]: K extends `$${string}` | `_${string}`
    ? never
    : C[K] extends { findMany: unknown; fields: object }
      ? K
      : never;
}[keyof C] &
  string;

/** The scalar fields of model `M` of client `C` (the keys of its delegate's `fields`). */
export type ScalarField<C, M extends ModelName<C>> = C[M] extends { fields: infer F } ? keyof F & string : never;

/** The type name of each scalar field of model `M` (`'String'`, `'Int'`, `'DateTime'`, an enum's name, ...). */
export type FieldTypeName<C, M extends ModelName<C>, F extends ScalarField<C, M>> = C[M] extends {
  fields: { [K in F]: { typeName: infer T } };
}
  ? T
  : never;

/**
 * The payload type Prisma generates for model `M` (`$ArticlePayload`): its `name` and its
 * relations' payloads (`objects`). Every generated delegate carries it under a symbol key.
 */
type Payload<C, M extends ModelName<C>> = C[M] extends { [key: symbol]: { types: { payload: infer P } } } ? P : never;

/** The scalar values of model `M`'s rows, by field (`body: string | null` for a `String?`). */
type Scalars<C, M extends ModelName<C>> = Payload<C, M> extends { scalars: infer S } ? S : never;

/** Whether scalar field `F` of model `M` may be null (`String?`). */
export type NullableField<C, M extends ModelName<C>, F extends ScalarField<C, M>> = null extends Scalars<C, M>[F &
  keyof Scalars<C, M>]
  ? true
  : false;

/** The relations of model `M`: each relation field's payload (an array for a to-many one). */
type Objects<C, M extends ModelName<C>> = Payload<C, M> extends { objects: infer O } ? O : never;

/** The relation fields of model `M`. */
export type RelationField<C, M extends ModelName<C>> = keyof Objects<C, M> & string;

/** The relation fields of model `M` to one row (`author` of Article). */
export type ToOneField<C, M extends ModelName<C>> = {
  [F in RelationField<C, M>]: NonNullable<Objects<C, M>[F]> extends readonly unknown[] ? never : F;
}[RelationField<C, M>];

/** The relation fields of model `M` to many rows (`comments` of Article). */
export type ToManyField<C, M extends ModelName<C>> = {
  [F in RelationField<C, M>]: NonNullable<Objects<C, M>[F]> extends readonly unknown[] ? F : never;
}[RelationField<C, M>];

/** The model (its delegate's key) relation field `F` of model `M` leads to. */
export type RelatedModel<C, M extends ModelName<C>, F extends RelationField<C, M>> = {
  [R in ModelName<C>]: Payload<C, R> extends { name: infer N }
    ? NonNullable<Objects<C, M>[F]> extends { name: N } | ReadonlyArray<{ name: N }>
      ? R
      : never
    : never;
}[ModelName<C>];

/**
 * A to-one relationship whose foreign key is a field of this model: `author` of articles is
 * `{ field: 'author', foreignKey: 'authorId' }`.
 */
export interface ToOneRelation<C, M extends ModelName<C>> {
  /** The model's relation field to one row. */
  readonly field: ToOneField<C, M>;
  /** The model's scalar field holding the related row's id. */
  readonly foreignKey: ScalarField<C, M>;
}

/**
 * A to-many relationship whose foreign key is a field of the related model: `comments` of
 * articles is `{ field: 'comments', model: 'comment', foreignKey: 'articleId' }`. The model is
 * the one the relation field leads to.
 */
export type ToManyRelation<C, M extends ModelName<C>> = {
  [F in ToManyField<C, M>]: {
    /** The model's relation field to many rows. */
    readonly field: F;
    /** The related model. */
    readonly model: RelatedModel<C, M, F>;
    /** Its scalar field holding this row's id. */
    readonly foreignKey: ScalarField<C, RelatedModel<C, M, F>>;
  };
}[ToManyField<C, M>];

/**
 * A to-many relationship through an explicit join model: `tags` of articles is
 * `{ field: 'tags', through: { model: 'articleTag', from: 'articleId', to: 'tagId', relation: 'tag' } }`.
 * The join model is the one the relation field leads to.
 */
export type ThroughRelation<C, M extends ModelName<C>> = {
  [F in ToManyField<C, M>]: {
    /** The model's relation field to the join model. */
    readonly field: F;
    readonly through: {
      /** The join model. */
      readonly model: RelatedModel<C, M, F>;
      /** Its scalar field holding this row's id. */
      readonly from: ScalarField<C, RelatedModel<C, M, F>>;
      /** Its scalar field holding the related row's id. */
      readonly to: ScalarField<C, RelatedModel<C, M, F>>;
      /** Its relation field to the related model. */
      readonly relation: ToOneField<C, RelatedModel<C, M, F>>;
    };
  };
}[ToManyField<C, M>];

/** How one relationship is stored. */
export type RelationMapping<C, M extends ModelName<C>> =
  ToOneRelation<C, M> | ToManyRelation<C, M> | ThroughRelation<C, M>;

/** The operations `serverFields` is asked for. */
export type WriteOperation = 'create' | 'update';

/**
 * How one resource type is stored in model `M` of client `C`.
 *
 * @example
 * import type { PrismaClient } from './generated/sqlite/client.js';
 * const articles: ModelMapping<PrismaClient, 'article'> = {
 *   model: 'article',
 *   relationships: {
 *     author: { field: 'author', foreignKey: 'authorId' },
 *     comments: { field: 'comments', model: 'comment', foreignKey: 'articleId' },
 *     tags: { field: 'tags', through: { model: 'articleTag', from: 'articleId', to: 'tagId', relation: 'tag' } },
 *   },
 *   version: 'version',
 *   scope: (ctx) => ({ OR: [{ status: 'published' }, { authorId: Number(ctx.getAttribute('user') ?? 0) }] }),
 * };
 */
export interface ModelMapping<C, M extends ModelName<C>> {
  /** The model, by its delegate's key on the client. */
  readonly model: M;
  /**
   * The model's table (`@@map`), and its fields' columns where `@map` renames them: the names
   * a database's constraint errors carry, so that a unique violation points at its attribute.
   * Default: the model's name, and each field's own.
   */
  readonly table?: string;
  readonly columns?: Readonly<Partial<Record<ScalarField<C, M>, string>>>;
  /** The id field. Default: `'id'`. */
  readonly id?: ScalarField<C, M>;
  /** Attribute → scalar field, for attributes whose field has another name. Default: the same name. */
  readonly fields?: Readonly<Record<string, ScalarField<C, M>>>;
  /** The scalar fields that may be null (a negated condition on them is guarded, see `prismaWhere`). */
  readonly nullable?: readonly ScalarField<C, M>[];
  /** Relationship name → its relation. */
  readonly relationships?: Readonly<Record<string, RelationMapping<C, M>>>;
  /**
   * Turns a URL id into the id field's value, or `undefined` when it cannot be one (then 404).
   * Default: integer ids (decimal digits, up to 2^31 - 1).
   */
  readonly parseId?: (id: string) => unknown;
  /**
   * Row-level read authorization, as a `where` on the model: every read of the resource
   * (show, lists and their counts, includes, related endpoints, relationship counts, paths and
   * counts of filters through relationships to it) sees only the rows it matches. A count sort
   * (`sort=-commentCount`) over a scoped related type is refused: Prisma's `_count` order takes
   * no `where`.
   */
  readonly scope?: (context: Context) => PrismaWhere;
  /** The policy the schema's `can(ability)` callbacks consult. */
  readonly policy?: (ability: Ability, model: Record<string, unknown>, context: Context) => MaybePromise<boolean>;
  /**
   * The schema's custom filters, by name: the `where` that holds for the rows the filter keeps.
   * Each is one condition, so it may also stand inside `filter[or]` and `filter[not]`. It may
   * work the where out with a query of its own (a promise of it), as a filter Prisma cannot
   * say in a where needs (a case-insensitive match on MySQL: `{ id: { in: ids } }`).
   */
  readonly filters?: Readonly<Record<string, (value: FilterValue, context: Context) => MaybePromise<PrismaWhere>>>;
  /** The schema's custom sorts, by name: the `orderBy` entries of the sort. */
  readonly sorts?: Readonly<Record<string, (direction: SortDirection, context: Context) => readonly PrismaWhere[]>>;
  /** An integer field holding the row's version (the writes add one; reads carry it in their `ETag`). */
  readonly version?: ScalarField<C, M>;
  /** The fields the server sets on every write (timestamps), merged over the client's values. */
  readonly serverFields?: (operation: WriteOperation, context: Context) => Record<string, unknown>;
}

/** A mapping to any one model of client `C`. */
export type AnyModelMapping<C> = { [M in ModelName<C>]: ModelMapping<C, M> }[ModelName<C>];
