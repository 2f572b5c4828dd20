import type { Context } from 'jsonapi-gen';
import type { MaybePromise } from 'jsonapi-gen';

/** The abilities `can()` checks; any string works, these are the ones endpoints use. */
export type Ability = 'view' | 'create' | 'update' | 'delete' | (string & {});

/** Decides whether the request's user may do `ability` to `model`. */
export type Policy<M = any> = (ability: Ability, model: M, context: Context) => MaybePromise<boolean>;

/** Where a model came from: set by the store on every model it loads (see `modelOrigin`). */
export const ORIGIN: unique symbol = Symbol('jsonapi-gen.kysely.origin');

/** The resource type of a model and the policy of that type, as its store knows them. */
export interface ModelOrigin {
  readonly type: string;
  policy(): Policy | undefined;
}

/** The origin of a model a Kysely store loaded, or undefined. */
export function modelOrigin(model: unknown): ModelOrigin | undefined {
  if (typeof model !== 'object' || model === null) return undefined;
  return (model as { [ORIGIN]?: ModelOrigin })[ORIGIN];
}

/**
 * A visibility callback for Update and Delete (args `(model, ctx)`) that asks the policy the
 * store registered for the model's resource type: `policy('delete', model, ctx)`. The model
 * knows its type because the store loaded it. A resource without a policy is a configuration
 * error and throws (a 500 that names it) rather than permitting anything.
 *
 * @example
 * // schema.ts
 * Delete.make().visible(can('delete'));
 * // store.ts
 * defineStore(db, { articles: { table: 'articles', policy: (ability, article, ctx) =>
 *   String(article.authorId) === ctx.getAttribute('user') } });
 */
export function can(ability: Ability): (model: any, context: Context) => Promise<boolean> {
  return async (model, context) => {
    const origin = modelOrigin(model);
    if (!origin) throw new TypeError(`can('${ability}'): the model was not loaded by a Kysely store (defineStore)`);
    const policy = origin.policy();
    if (!policy) throw new TypeError(`can('${ability}'): no policy is registered for "${origin.type}" (defineStore(..., { ${origin.type}: { policy } }) or store.definePolicy)`);
    return (await policy(ability, model, context)) === true;
  };
}
