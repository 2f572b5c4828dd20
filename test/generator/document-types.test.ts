/**
 * Response types narrowed by the request, over the blog's generated `index.ts`:
 * `Document<'articles', { include: ['author']; fields: { articles: ['title'] } }>` has
 * attributes `{ title }` only and `included` of people. Good uses compile; each mistake fails
 * with the error text given. Then a real response of the demo has exactly the members the type
 * says.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from '../../examples/blog/generated/index.js';
import { type Demo, startDemo } from '../../examples/blog/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILE = join(ROOT, 'examples/blog/document-check.ts');

const GOOD = `
import type { CollectionDocument, Document, PeopleResource } from './generated/index.js';
type Narrow = Document<'articles', { include: ['author']; fields: { articles: ['title', 'author'] } }>;
declare const doc: Narrow;
export const title: string = doc.data.attributes.title;
export const author = doc.data.relationships.author;
export const person: PeopleResource = doc.included[0]!;
declare const nested: Document<'articles', { include: ['comments.author'] }>;
export const types: Array<'comments' | 'people'> = nested.included.map((r) => r.type);
declare const list: CollectionDocument<'people', { fields: { people: ['name'] } }>;
export const names: string[] = list.data.map((p) => p.attributes.name);
declare const whole: Document<'tags'>;
export const tagName: string = whole.data.attributes.name;
`;

const MISTAKES: Array<[string, { code: string; want: string }]> = [
  [
    'an attribute outside the fieldset',
    {
      code: "declare const d: Document<'articles', { fields: { articles: ['title'] } }>; export const x = d.data.attributes.body;",
      want: "Property 'body' does not exist",
    },
  ],
  [
    'a relationship outside the fieldset',
    {
      code: "declare const d: Document<'articles', { fields: { articles: ['title'] } }>; export const x = d.data.relationships.author;",
      want: "Property 'author' does not exist",
    },
  ],
  [
    'included without include',
    {
      code: "declare const d: Document<'articles'>; export const x = d.included;",
      want: "Property 'included' does not exist",
    },
  ],
  [
    'a type the include does not reach',
    {
      code: "import type { TagsResource } from './generated/index.js'; declare const d: Document<'articles', { include: ['author'] }>; export const x: TagsResource = d.included[0]!;",
      want: "is not assignable to type 'TagsResource'",
    },
  ],
  ['an unknown type', { code: "export type X = Document<'posts'>;", want: 'does not satisfy the constraint' }],
];

function errorsOf(code: string, options: ts.CompilerOptions): string[] {
  const text = `import type { Document } from './generated/index.js';\n${code}\n`;
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (file) => (file === FILE ? text : read(file));
  host.fileExists = (file) => file === FILE || exists(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, create) =>
    file === FILE ? ts.createSourceFile(file, text, language) : getSourceFile(file, language, onError, create);
  const program = ts.createProgram({ rootNames: [FILE], options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === FILE)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('Document<T, { include, fields }>', () => {
  let options: ts.CompilerOptions;
  beforeAll(() => {
    const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
    options = { ...ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options, noEmit: true };
  });

  it('narrows attributes, relationships and included types, and compiles good uses', () => {
    expect(
      errorsOf(
        GOOD.replace('import type { CollectionDocument, Document,', 'import type { CollectionDocument,'),
        options,
      ),
    ).toEqual([]);
  }, 60_000);

  it.each(MISTAKES)(
    'rejects %s',
    (_, { code, want }) => {
      expect(errorsOf(code, options).join('\n')).toContain(want);
    },
    60_000,
  );
});

describe('a real response agrees with its narrowed type', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, seed: 20, databaseUrl: null });
  });
  afterAll(async () => demo?.close());

  it('has exactly the fieldset and only the included types', async () => {
    const response = await fetch(
      `${demo.url}/articles/1?include=author&fields[articles]=title,author&fields[people]=name`,
    );
    const doc = (await response.json()) as Document<
      'articles',
      { include: ['author']; fields: { articles: ['title', 'author']; people: ['name'] } }
    >;
    expect(Object.keys(doc.data.attributes)).toEqual(['title']);
    expect(Object.keys(doc.data.relationships)).toEqual(['author']);
    expect(doc.included.map((r) => r.type)).toEqual(['people']);
    expect(Object.keys(doc.included[0]!.attributes)).toEqual(['name']);
  });
});
