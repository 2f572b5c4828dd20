/** `index.ts`: `createApi`, the `DataLayers` it takes, and re-exports of every module. */
import { type SourceFileStructure, type StatementStructures, StructureKind } from 'ts-morph';
import type { ApiModel } from '../ir.js';
import { propertyAccess } from '../naming.js';
import { documentTypes } from './documents.js';
import { blankLineAfterImports, header, importOf, interfaceOf } from './helpers.js';

export function emitApi(model: ApiModel): SourceFileStructure {
  const resources = model.resources;
  const statements: StatementStructures[] = [
    importOf('jsonapi-gen', [
      'JsonApi',
      'type JsonApiOptions',
      'type DocumentQuery',
      'type ResourceCollectionDocument',
      'type ResourceDocument',
    ]),
    ...(model.extensions.exported ? [importOf(model.schemaImport, ['extensions as schemaExtensions'])] : []),
    ...resources.map((r) =>
      importOf(`./resources/${r.type}.js`, [
        `${r.names.camel}Resource`,
        `type ${r.names.pascal}DataLayer`,
        `type ${r.names.pascal}Resource`,
        `type ${r.names.pascal}Types`,
      ]),
    ),
    {
      kind: StructureKind.ExportDeclaration,
      moduleSpecifier: './openapi.js',
      namedExports: ['openapi'],
    },
    {
      kind: StructureKind.ExportDeclaration,
      moduleSpecifier: './support.js',
      isTypeOnly: true,
      namedExports: ['RelationshipLinks', 'ToManyRelationship', 'ToOneRelationship'],
    },
    ...resources.map(
      (r) => ({ kind: StructureKind.ExportDeclaration, moduleSpecifier: `./resources/${r.type}.js` }) as const,
    ),
    interfaceOf(
      'Resources',
      resources.map((r) => ({ name: r.type, type: `${r.names.pascal}Types` })),
      {
        docs: 'The types of every resource, by type: what `defineStore<Database, Resources>` checks a Kysely mapping against.',
      },
    ),
    ...documentTypes(model),
    interfaceOf(
      'DataLayers',
      resources.map((r) => ({ name: r.type, type: `${r.names.pascal}DataLayer` })),
      { docs: 'The data layer of every resource of the API, by type.' },
    ),
    {
      kind: StructureKind.Function,
      name: 'createApi',
      isExported: true,
      docs: [
        'A `JsonApi` serving every resource of the schema, each bound to its data layer.' +
          (model.extensions.exported
            ? " Its extensions are the schema's `extensions` unless `options.extensions` is given."
            : '') +
          '\n\n' +
          '@example\n' +
          'const api = createApi({ ' +
          resources.map((r) => `${r.type.includes('-') ? `'${r.type}'` : r.type}: ${r.names.camel}Store`).join(', ') +
          " }, { basePath: '/api' });",
      ],
      parameters: [
        { name: 'dataLayers', type: 'DataLayers' },
        { name: 'options', type: 'JsonApiOptions', hasQuestionToken: true },
      ],
      returnType: 'JsonApi',
      // One statement per resource, not one chain: a chain of hundreds of calls overflows the
      // stack of parsers (prettier's, and a host's tools) that recurse into it.
      statements: [
        `const api = new JsonApi(${model.extensions.exported ? '{ ...options, extensions: options?.extensions ?? schemaExtensions }' : 'options'});`,
        ...resources.map((r) => `api.resource(${r.names.camel}Resource(${propertyAccess('dataLayers', r.type)}));`),
        'return api;',
      ],
    },
  ];
  return {
    kind: StructureKind.SourceFile,
    leadingTrivia: header(model.schemaPath) + '\n\n',
    statements: blankLineAfterImports(statements),
  };
}
