/**
 * The schema of the generator benchmark (issue 27): N resources `r0000`..., each with five
 * attributes (one of each scalar kind, some constrained), a to-one `next` and a to-many
 * `previous` to its neighbours on a ring (both includable, so every type reaches every other
 * through includes), a filter and a sort, and all five endpoints.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const name = (i: number) => `r${String(i).padStart(4, '0')}`;

/** The text of an N-resource schema file. */
export function schemaText(n: number): string {
  const lines = [
    '// Written by bench/generator/schema.ts: the N-resource schema of the generator benchmark.',
    "import { Attribute, Create, Delete, Index, Show, SortBy, ToMany, ToOne, Update, Where, defineResource } from 'jsonapi-gen';",
    '',
  ];
  for (let i = 0; i < n; i++) {
    const type = name(i);
    lines.push(
      `export const ${type} = defineResource({`,
      `  type: '${type}',`,
      '  fields: [',
      "    Attribute.make('title').type('string').maxLength(200).writable().required(),",
      "    Attribute.make('count').type('integer').min(0).writable(),",
      "    Attribute.make('score').type('number').nullable().writable(),",
      "    Attribute.make('active').type('boolean').writable(),",
      "    Attribute.make('createdAt').type('date-time'),",
      `    ToOne.make('next').type('${name((i + 1) % n)}').includable().writable(),`,
      `    ToMany.make('previous').type('${name((i + n - 1) % n)}').includable().writable(),`,
      '  ],',
      '  endpoints: [Show.make(), Index.make().paginate(20, 100), Create.make(), Update.make(), Delete.make()],',
      "  filters: [Where.make('title')],",
      "  sorts: [SortBy.make('title')],",
      '});',
      '',
    );
  }
  return lines.join('\n');
}

/** Writes `schema.ts` of N resources into `dir` (created); returns its path. */
export function writeSchema(dir: string, n: number): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'schema.ts');
  writeFileSync(file, schemaText(n));
  return file;
}
