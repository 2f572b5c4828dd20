/**
 * The response types of `index.ts`: `Document<T, Q>` and `CollectionDocument<T, Q>`, the
 * document a request gets, narrowed by its `include` and `fields` (the machinery is the
 * runtime's `ResourceDocument`; this binds it to the API's resource objects and relationships).
 */
import { StructureKind, type StatementStructures } from 'ts-morph';
import type { ApiModel } from '../ir.js';

const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);

/** The statements that declare `ApiTypes`, `Document` and `CollectionDocument`. */
export function documentTypes(model: ApiModel): StatementStructures[] {
  const objects = model.resources.map((r) => `${key(r.type)}: ${r.names.pascal}Resource;`).join(' ');
  const relations = model.resources
    .map(
      (r) =>
        `${key(r.type)}: { ${r.relationships.map((rel) => `${key(rel.name)}: '${rel.relatedType}';`).join(' ')} };`,
    )
    .join(' ');
  const example = model.resources[0]?.type ?? 'articles';
  return [
    {
      kind: StructureKind.TypeAlias,
      name: 'ApiTypes',
      isExported: true,
      docs: [
        "Every resource object of the API and each relationship's related type, by type: what `Document` narrows.",
      ],
      type: `{ objects: { ${objects} }; relations: { ${relations} } }`,
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'Document',
      isExported: true,
      typeParameters: ["T extends keyof ApiTypes['objects']", 'Q extends DocumentQuery = {}'],
      docs: [
        'The document of `GET /{T}/{id}` for a request with `include` and `fields` `Q`.\n\n' +
          '@example\n' +
          `const doc = (await response.json()) as Document<'${example}', { fields: { ${key(example)}: ['…'] } }>;`,
      ],
      type: 'ResourceDocument<ApiTypes, T, Q>',
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'CollectionDocument',
      isExported: true,
      typeParameters: ["T extends keyof ApiTypes['objects']", 'Q extends DocumentQuery = {}'],
      docs: ['The document of `GET /{T}` for a request with `include` and `fields` `Q`.'],
      type: 'ResourceCollectionDocument<ApiTypes, T, Q>',
    },
  ];
}
