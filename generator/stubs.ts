/**
 * `--stubs <dir>`: one data-layer skeleton per resource, from `templates/`, written only where
 * no file exists yet.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiModel, Capability, ResourceModel } from './ir.js';
import { formatTypeScript } from './print.js';

/** The `templates/` folder of the package, from `generator/` or `dist/generator/`. */
export function templatesDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '..', 'templates'), join(here, '..', '..', 'templates')]) {
    if (existsSync(join(candidate, 'data-layer.ts.tpl'))) return candidate;
  }
  throw new Error('cannot find the templates folder of jsonapi-gen');
}

/** `{{name}}` placeholders replaced by `values`. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Method snippets of `methods.tpl`, by name (`//# name` starts a snippet). */
function snippets(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of text.split(/^\/\/# /m).slice(1)) {
    const newline = part.indexOf('\n');
    map.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return map;
}

/** The members a stub gives for each capability: snippets of `methods.tpl`, or a record of functions. */
const STUB_MEMBERS: Record<
  Capability,
  (resource: ResourceModel) => ReadonlyArray<string | { record: string; names: readonly string[]; params: string }>
> = {
  Findable: () => ['find'],
  Listable: () => ['query', 'results'],
  Paginatable: () => ['paginate'],
  Countable: () => ['count'],
  CursorPaginatable: () => ['paginateCursor'],
  Deletable: () => ['delete'],
  Relatable: (r) => [{ record: 'related', names: r.relationships.map((x) => x.name), params: 'models, context' }],
  Creatable: () => ['create'],
  Updatable: () => ['update'],
  ToManyMutable: () => ['addToRelationship', 'removeFromRelationship'],
  RelationshipCounts: () => ['countRelated'],
  Filterable: () => ['where'],
  CustomFilterable: (r) => [{ record: 'customFilters', names: r.customFilters, params: 'query, value, context' }],
  Sortable: () => ['orderBy'],
  CustomSortable: (r) => [{ record: 'customSorts', names: r.customSorts, params: 'query, direction, context' }],
  Authorizable: () => ['can'],
  Versioned: () => ['versionOf'],
  OptionallyVersioned: () => [],
};

/** A record of stub functions, one per name, each throwing until it is written. */
function recordStub(type: string, record: string, names: readonly string[], params: string): string {
  const members = names.map(
    (name) =>
      `    ${JSON.stringify(name)}(${params}) {\n      throw new Error('${type}: ${record}.${name}() is not implemented');\n    },`,
  );
  return `  ${record}: {\n${members.join('\n')}\n  },\n`;
}

/** The stub source of one resource; `generatedImport` is the generated `index.js` from the stub. */
export async function stubSource(
  resource: ResourceModel,
  generatedImport: string,
  templates = templatesDir(),
): Promise<string> {
  const methods = snippets(readFileSync(join(templates, 'methods.tpl'), 'utf8'));
  const values = { type: resource.type, Pascal: resource.names.pascal, camel: resource.names.camel };
  const body = resource.capabilities
    .flatMap((c) => STUB_MEMBERS[c](resource))
    .map((m) =>
      typeof m === 'string'
        ? fill(methods.get(m) ?? '', values)
        : recordStub(resource.type, m.record, m.names, m.params),
    )
    .join('\n');
  const text = fill(readFileSync(join(templates, 'data-layer.ts.tpl'), 'utf8'), {
    ...values,
    import: generatedImport,
    methods: body,
  });
  return formatTypeScript(text);
}

/** Writes the stubs that do not exist yet; returns the paths written and skipped (relative to `stubsDir`). */
export async function writeStubs(
  model: ApiModel,
  stubsDir: string,
  outDir: string,
): Promise<{ written: string[]; skipped: string[] }> {
  const written: string[] = [];
  const skipped: string[] = [];
  let generated = relative(stubsDir, join(outDir, 'index.js')).split('\\').join('/');
  if (!generated.startsWith('.')) generated = `./${generated}`;
  for (const resource of model.resources) {
    const name = `${resource.type}.ts`;
    const path = join(stubsDir, name);
    if (existsSync(path)) {
      skipped.push(name);
      continue;
    }
    mkdirSync(stubsDir, { recursive: true });
    writeFileSync(path, await stubSource(resource, generated), { flag: 'wx' });
    written.push(name);
  }
  return { written, skipped };
}
