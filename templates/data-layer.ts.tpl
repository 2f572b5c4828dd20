/**
 * The data layer of {{type}}: scaffolded once by `jsonapi-gen build --stubs`, yours to edit.
 * It must implement what `{{Pascal}}DataLayer` lists; the compiler says when it does not.
 */
import type { {{Pascal}}DataLayer, {{Pascal}}Model } from '{{import}}';

/** A {{type}} model as your storage returns it: at least what `{{Pascal}}Model` lists. */
export type {{Pascal}}Row = {{Pascal}}Model;

/** The query your `query()` starts and filters, sorts and pagination refine. */
export type {{Pascal}}Query = unknown;

export const {{camel}}DataLayer: {{Pascal}}DataLayer<{{Pascal}}Row, {{Pascal}}Query> = {
{{methods}}
};
