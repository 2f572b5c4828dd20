/**
 * The schema's mistakes, each located in the schema file: the runtime's rules
 * (`schemaIssues`, runtime/schema/declaration-rules.ts, the ones registration enforces), and
 * the few that are about generation only.
 */
import { describeSchema } from 'jsonapi-gen';
import { schemaIssues } from 'jsonapi-gen/internal';
import type { LoadedSchema } from './load.js';
import type { Target } from './locate.js';
import { pascalCase } from './naming.js';

/** A mistake and what in the schema it is about. */
export interface Issue {
  readonly message: string;
  readonly target: Target;
}

/** Every mistake in the schema, in export order. */
export function validate(loaded: LoadedSchema): Issue[] {
  const issues: Issue[] = [];
  const prefixes = new Map<string, string>();
  const found = schemaIssues(loaded.resources.map((r) => r.schema));
  loaded.resources.forEach(({ exportName, schema }, i) => {
    const { type, issues: mistakes } = found[i]!;
    const at = (target: Omit<Target, 'exportName' | 'type'>): Target => ({
      exportName,
      ...(type !== undefined && { type }),
      ...target,
    });
    const issue = (message: string, target: Omit<Target, 'exportName' | 'type'>) =>
      issues.push({ message: `${type ?? exportName}: ${message}`, target: at(target) });
    for (const { message, part, name, occurrence, call } of mistakes)
      issue(message, { part, name, occurrence, ...(call !== undefined && { call }) });
    if (type === undefined) return;

    // Generation only: every type of a resource's generated code is named after its type.
    const prefix = pascalCase(type);
    const clash = prefixes.get(prefix);
    if (clash !== undefined && clash !== type)
      issue(`resource type "${type}" and "${clash}" both become ${prefix} in generated code`, { part: 'type' });
    prefixes.set(prefix, type);

    // Generation only: the generated data-layer interface and OpenAPI document carry filters
    // and sorts as the Index's; registration accepts them without one, for a related
    // collection (`/articles/1/comments?filter[...]`) takes the related type's filters.
    if (mistakes.length > 0) return;
    const description = describeSchema(schema);
    if (description.endpoints.some((e) => e.kind === 'index')) return;
    for (const { name } of description.filters)
      issue(`filter "${name}" needs an Index endpoint, and ${type} has none`, { part: 'filters', name });
    for (const { name } of description.sorts)
      issue(`sort "${name}" needs an Index endpoint, and ${type} has none`, { part: 'sorts', name });
  });
  return issues;
}
