/**
 * `--stubs <dir>`: one data-layer skeleton per resource, from `templates/`, written only where
 * no file exists yet.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiModel, ResourceModel } from './ir.js';
import { formatTypeScript } from './print.js';
import { CAPABILITIES, typeParameters } from './emit/resource.js';

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

/** The stub source of one resource; `generatedImport` is the generated `index.js` from the stub. */
export async function stubSource(resource: ResourceModel, generatedImport: string, templates = templatesDir()): Promise<string> {
  const methods = snippets(readFileSync(join(templates, 'methods.tpl'), 'utf8'));
  const values = { type: resource.type, Pascal: resource.names.pascal, camel: resource.names.camel };
  const params = typeParameters(resource);
  const body = resource.capabilities.flatMap((c) => CAPABILITIES[c].methods).map((m) => fill(methods.get(m) ?? '', values)).join('\n');
  const text = fill(readFileSync(join(templates, 'data-layer.ts.tpl'), 'utf8'), {
    ...values,
    import: generatedImport,
    typeArguments: params.length > 0 ? `<${params.map((p) => (p === 'M' ? `${values.Pascal}Model` : `${values.Pascal}Query`)).join(', ')}>` : '',
    methods: body,
  });
  return formatTypeScript(text);
}

/** Writes the stubs that do not exist yet; returns the paths written and skipped (relative to `stubsDir`). */
export async function writeStubs(model: ApiModel, stubsDir: string, outDir: string): Promise<{ written: string[]; skipped: string[] }> {
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
