/** `support.ts`: the few helpers and types every resource module shares. */
import { type SourceFileStructure, StructureKind } from 'ts-morph';
import type { ApiModel } from '../ir.js';
import { header, importOf, interfaceOf } from './helpers.js';

export const SUPPORT_FILE = 'support.ts';

export function emitSupport(model: ApiModel): SourceFileStructure {
  return {
    kind: StructureKind.SourceFile,
    leadingTrivia: header(model.schemaPath) + '\n\n',
    statements: [
      importOf('jsonapi-gen', ['Getter', 'ResourceSchema'], true),
      importOf('jsonapi-gen', ['dateTimeText']),
      interfaceOf(
        'RelationshipLinks',
        [
          { name: 'self', type: 'string' },
          { name: 'related', type: 'string' },
        ],
        { docs: 'The links of a relationship object.' },
      ),
      interfaceOf(
        'ToOneRelationship',
        [
          { name: 'links', type: 'RelationshipLinks' },
          { name: 'data', type: 'I | null', optional: true },
        ],
        { docs: 'A to-one relationship object of a response.', typeParameters: ['I'] },
      ),
      interfaceOf(
        'ToManyRelationship',
        [
          { name: 'links', type: 'RelationshipLinks' },
          { name: 'data', type: 'I[]', optional: true },
          {
            name: 'meta',
            type: '{ count?: number }',
            optional: true,
            docs: '`count`: how many related resources there are, when `withCount` names a countable relationship.',
          },
        ],
        { docs: 'A to-many relationship object of a response.', typeParameters: ['I'] },
      ),
      {
        kind: StructureKind.Function,
        name: 'toJson',
        isExported: true,
        docs: [
          "A getter's value in its JSON form: dates as RFC 3339 date-times (`YYYY-MM-DD` for `date` attributes), `undefined` as `null`.",
        ],
        parameters: [
          { name: 'value', type: 'unknown' },
          { name: 'kind', type: "'date'", hasQuestionToken: true },
        ],
        returnType: 'unknown',
        statements: [
          "if (value instanceof Date) return kind === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();",
          'return value ?? null;',
        ],
      },
      {
        kind: StructureKind.Function,
        name: 'dateTime',
        isExported: true,
        overloads: [
          {
            docs: [
              'A `date-time` attribute value as responses carry it: RFC 3339 UTC with milliseconds (stored text with an offset is converted).',
            ],
            parameters: [{ name: 'value', type: 'Date | string' }],
            returnType: 'string',
          },
          { parameters: [{ name: 'value', type: 'Date | string | null' }], returnType: 'string | null' },
        ],
        parameters: [{ name: 'value', type: 'Date | string | null' }],
        returnType: 'string | null',
        statements: [
          'if (value instanceof Date) return value.toISOString();',
          'return value === null ? null : dateTimeText(value);',
        ],
      },
      {
        kind: StructureKind.Function,
        name: 'dateOnly',
        isExported: true,
        overloads: [
          {
            docs: ['A `date` attribute value as responses carry it: `YYYY-MM-DD`.'],
            parameters: [{ name: 'value', type: 'Date | string' }],
            returnType: 'string',
          },
          { parameters: [{ name: 'value', type: 'Date | string | null' }], returnType: 'string | null' },
        ],
        parameters: [{ name: 'value', type: 'Date | string | null' }],
        returnType: 'string | null',
        statements: ['return value instanceof Date ? value.toISOString().slice(0, 10) : value;'],
      },
      {
        kind: StructureKind.Function,
        name: 'fieldGetter',
        isExported: true,
        docs: ["The `.get()` getter of the schema's field `name`, looked up once when a resource is bound."],
        parameters: [
          { name: 'schema', type: 'ResourceSchema' },
          { name: 'name', type: 'string' },
        ],
        returnType: 'Getter',
        statements: [
          'const getter = schema.fields().find((field) => field.name === name)?.getter;',
          'if (!getter) throw new TypeError(`${schema.type()}.${name} no longer has a getter: run jsonapi-gen build again`);',
          'return getter;',
        ],
      },
    ],
  };
}
