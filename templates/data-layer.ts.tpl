/**
 * The data layer of {{type}}: scaffolded once by `jsonapi-gen build --stubs`, yours to edit.
 * It must implement what `{{Pascal}}DataLayer` lists; the compiler says when it does not.
 */
import type { {{Pascal}}DataLayer } from '{{import}}';

/** A {{type}} model as your storage returns it. */
export type {{Pascal}}Model = Record<string, unknown>;

/** The query your `query()` starts and filters, sorts and pagination refine. */
export type {{Pascal}}Query = unknown;

export const {{camel}}DataLayer: {{Pascal}}DataLayer{{typeArguments}} = {
{{methods}}
};
