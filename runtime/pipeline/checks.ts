import { checkFields, checkInclude } from '../query/checks.js';
import { matchVersions, staleVersion } from '../http/conditional.js';
import { BadRequestError, ForbiddenError, JsonApiError, NotFoundError } from '../core/errors.js';
import { Relationship, ToMany } from '../dsl/fields.js';
import type { IncludeTree } from '../query/parse.js';
import type { MaybePromise } from '../core/types.js';
import type { RegisteredResource } from '../registry/registry.js';
import type { RequestState } from './state.js';
import type { Stage } from './trace.js';

/** 400 for `include` paths, `fields[type]` names and `withCount` names this request may not use. */
export function checkDocumentParameters(state: RequestState, resource: RegisteredResource): void {
  if (state.query.include) checkInclude(resource, state.query.include, state.lookup, state.context);
  checkFields(state.query.fields, state.lookup, state.context);
  if (state.query.withCount) checkWithCount(state, resource);
}

/**
 * Each name `withCount` gives is a countable to-many relationship (`ToMany.countable()`) the
 * request may see, of the primary type or of a type the document includes; else 400 at `withCount`.
 */
function checkWithCount(state: RequestState, resource: RegisteredResource): void {
  const types = [resource];
  const walk = (from: RegisteredResource, tree: IncludeTree) => {
    for (const [name, subtree] of tree) {
      const field = from.fields.get(name);
      const related = field instanceof Relationship ? state.lookup(field.relatedType) : undefined;
      if (!related) continue;
      types.push(related);
      walk(related, subtree);
    }
  };
  if (state.query.include) walk(resource, state.query.include);
  for (const name of state.query.withCount!) {
    const countable = types.some((type) => {
      const field = type.fields.get(name);
      return field instanceof ToMany && field.isCountable && field.isVisibleFor(undefined, state.context);
    });
    if (!countable) {
      const names = [
        ...new Set(
          types.flatMap((type) =>
            type.relationships.filter((r) => r instanceof ToMany && r.isCountable).map((r) => r.name),
          ),
        ),
      ];
      throw new BadRequestError({
        detail: `withCount names "${name}", which is not a countable relationship of ${types.map((t) => t.type).join(' or ')}${names.length > 0 ? `; it may name ${names.join(', ')}` : ''}`,
        source: { parameter: 'withCount' },
        code: 'invalid_query_parameter',
      });
    }
  }
}

/** Finds the model a route's id names, or 404. */
export async function findOr404(state: RequestState, resource: RegisteredResource, id: string): Promise<unknown> {
  const model = await resource.definition.find!(id, state.context);
  if (model === null || model === undefined)
    throw new NotFoundError({ detail: `There is no resource of type "${resource.type}" with id "${id}"` });
  return model;
}

/**
 * 403 unless the endpoint's callbacks permit (`Visibility.permits`); `authorizing`, the
 * request's `authorize` stage when it is traced (begun before the callbacks ran), ends here.
 */
export async function mustBeVisible(
  authorizing: Stage | undefined,
  visible: MaybePromise<boolean>,
  detail: string,
): Promise<void> {
  try {
    if (!(await visible)) throw new ForbiddenError({ detail });
  } catch (error) {
    authorizing?.end(error);
    throw error;
  }
  authorizing?.end();
}

/** JSON:API: "A server MUST return 403 Forbidden in response to an unsupported request". */
export function supported<T>(method: T | undefined, detail: string): T {
  if (method === undefined) throw new ForbiddenError({ detail, code: 'unsupported' });
  return method;
}

/** The version of `model`, when its data layer is `Versioned`. */
export function versionOf(state: RequestState, resource: RegisteredResource, model: unknown): string | undefined {
  const definition = resource.definition;
  return definition.versionOf ? definition.versionOf(model, state.context) : undefined;
}

/**
 * `If-Match` on a write of `model` (RFC 9110 §13.1.1), read in the write's transaction: 428
 * when the endpoint requires it and it is missing, 412 when it names another version (or the
 * resource has none). When it matches, `context.ifMatch` tells the data layer to write only
 * while the version is still this one.
 */
export function checkIfMatch(
  state: RequestState,
  resource: RegisteredResource,
  model: unknown,
  kind: 'update' | 'delete',
): void {
  const header = state.context.header('if-match');
  if (header === null) {
    if (resource.endpoint(kind)?.requiresIfMatch) {
      throw new JsonApiError(428, {
        detail: `${kind === 'update' ? 'Changing' : 'Deleting'} a resource of type "${resource.type}" needs If-Match with the ETag of its GET`,
        source: { header: 'If-Match' },
        code: 'if_match_required',
      });
    }
    return;
  }
  const versions = matchVersions(header);
  if (versions === '*') return;
  const current = versionOf(state, resource, model);
  if (current === undefined || !versions.includes(current)) {
    throw staleVersion(
      resource.type,
      current === undefined
        ? `Resources of type "${resource.type}" have no versions: If-Match can only be *`
        : undefined,
    );
  }
  state.context.ifMatch = true;
}
