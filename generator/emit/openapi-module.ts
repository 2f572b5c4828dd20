/** `openapi.ts`: the OpenAPI document as a value, for serving `GET /openapi.json` without reading files. */
import { type SourceFileStructure, StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { ApiModel } from '../ir.js';
import { header } from './helpers.js';

export function emitOpenApiModule(model: ApiModel, document: object): SourceFileStructure {
  return {
    kind: StructureKind.SourceFile,
    leadingTrivia: header(model.schemaPath) + '\n\n',
    statements: [
      {
        kind: StructureKind.VariableStatement,
        isExported: true,
        declarationKind: VariableDeclarationKind.Const,
        docs: ['The OpenAPI 3.1 document of the API (the same as `openapi.json`).'],
        declarations: [{ name: 'openapi', type: 'Readonly<Record<string, unknown>>', initializer: JSON.stringify(document) }],
      },
    ],
  };
}
