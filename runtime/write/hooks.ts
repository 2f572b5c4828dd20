/** Running what the application declared around a write: validation, `saving` hooks, after-commit hooks. */
import { JsonApiErrors, UnprocessableEntityError } from '../core/errors.js';
import type { Context } from '../dsl/context.js';
import type { Problem } from '../dsl/hooks.js';
import type { RegisteredResource } from '../registry/registry.js';
import type { RequestState } from '../pipeline/state.js';
import type { WriteValues } from '../core/vocabulary.js';

/** A hook as the builders keep it: typed where it was given, called here untyped. */
type Hook = (...args: never[]) => unknown;

/** 422 for each problem a hook or validator reported, at its pointer (default `/data`). */
function refused(problems: readonly Problem[]): JsonApiErrors {
  return new JsonApiErrors(
    problems.map(
      (problem) =>
        new UnprocessableEntityError({
          detail: problem.detail,
          source: { pointer: problem.pointer ?? '/data' },
          code: problem.code ?? 'invalid_value',
        }),
    ),
  );
}

/** Throws the problems a hook answered, if it answered a non-empty list of them. */
function throwProblems(answer: unknown): void {
  if (Array.isArray(answer) && answer.length > 0) throw refused(answer as Problem[]);
}

/** The resource's `validate` (422 for what it finds); nothing to do for a resource without one. */
export async function validateWrite(
  resource: RegisteredResource,
  values: WriteValues,
  stored: unknown,
  context: Context,
): Promise<void> {
  const validate = resource.definition.validate;
  if (validate) throwProblems(await validate(values, stored, context));
}

/**
 * Runs `saving` (or `deleting`) hooks in order, each with the values the one before gave:
 * `args` are what follows the values (the stored model, then the context). A list of problems
 * refuses the write (422); an object answered replaces the values.
 */
export async function runSaving(hooks: readonly Hook[], values: WriteValues, ...args: unknown[]): Promise<WriteValues> {
  let current = values;
  for (const hook of hooks) {
    const answer = await (hook as (...a: unknown[]) => unknown)(current, ...args);
    throwProblems(answer);
    if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) current = answer as WriteValues;
  }
  return current;
}

/** Runs `deleting` hooks with the model (422 for problems they answer). */
export async function runDeleting(hooks: readonly Hook[], model: unknown, context: Context): Promise<void> {
  for (const hook of hooks) throwProblems(await (hook as (...a: unknown[]) => unknown)(model, context));
}

/**
 * Queues `saved`/`deleted` hooks to run once the request's unit of work committed (an Atomic
 * Operations batch: the whole batch); they never run when it rolls back.
 */
export function afterCommit(state: RequestState, hooks: readonly Hook[], model: unknown): void {
  if (hooks.length === 0) return;
  const context = state.context;
  for (const hook of hooks) state.afterCommit.push(() => (hook as (...a: unknown[]) => unknown)(model, context));
}
