/**
 * The models of a schema.prisma file as the database sees them: each model's table and each
 * scalar field's column, type and nullability. Relation fields (whose type is another model)
 * hold no column and are left out. Enough of Prisma's schema language for the demo's schema:
 * one field per line, `@map`/`@@map` for names.
 */
export interface SchemaColumn {
  field: string;
  column: string;
  /** Prisma's scalar type: Int, BigInt, String, DateTime, Boolean, Float ... */
  type: string;
  nullable: boolean;
}

export interface SchemaModel {
  model: string;
  table: string;
  columns: SchemaColumn[];
}

const SCALARS = new Set(['Int', 'BigInt', 'String', 'DateTime', 'Boolean', 'Float', 'Decimal', 'Json', 'Bytes']);

/** The models of `text` (a schema.prisma file). */
export function schemaModels(text: string): SchemaModel[] {
  const models: SchemaModel[] = [];
  for (const [, model, body] of text.matchAll(/^model\s+(\w+)\s*\{([^}]*)\}/gm)) {
    const lines = body!
      .split('\n')
      .map((line) => line.replace(/\/\/.*$/, '').trim())
      .filter(Boolean);
    const table = /@@map\("([^"]+)"\)/.exec(body!)?.[1] ?? model!;
    const columns: SchemaColumn[] = [];
    for (const line of lines) {
      if (line.startsWith('@@')) continue;
      const [, field, type, modifier] = /^(\w+)\s+(\w+)(\?|\[\])?/.exec(line) ?? [];
      if (!field || !type || !SCALARS.has(type) || modifier === '[]') continue;
      const column = /@map\("([^"]+)"\)/.exec(line)?.[1] ?? field;
      columns.push({ field, column, type, nullable: modifier === '?' });
    }
    models.push({ model: model!, table, columns });
  }
  return models;
}
