/**
 * Context attributes are typed where a host sets them, not only where it reads them: with
 * `ContextAttributes` declared, a misspelt name or a value of the wrong type fails to compile on
 * the line that sets it, in every place attributes are set. Without the declaration, any
 * attributes compile.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileHosts, markedLine } from '../support/compile.js';

/** The lending library's declaration: the signed-in member, as text. */
const DECLARATION = `
declare module 'jsonapi-gen' {
  interface ContextAttributes {
    memberId: string;
  }
}
export {};
`;

/** What every host has at hand: an API, a Fetch request, the runtime's request value, a member id. */
const PRELUDE = `import { Context, JsonApi, memoryRequest } from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
const api = new JsonApi();
declare const request: Request;
declare const id: string;
const http = memoryRequest('GET', 'http://localhost/loans', {});
`;

const GOOD = `${PRELUDE}
export const memberId: string | undefined = new Context(request).getAttribute('memberId');
await api.handle(request, { attributes: { memberId: id } });
await api.handle(request, { attributes: {} }); // an anonymous request
await api.handle(request);
await api.fetch(request, { attributes: { memberId: id } });
await api.serve(http, { attributes: { memberId: id } });
toNodeHandler(api, { attributes: (req) => (req.headers['x-member'] ? { memberId: String(req.headers['x-member']) } : {}) });
toNodeHandler(api, { attributes: (_req, request) => ({ memberId: request.header('x-member') ?? undefined }) });
new Context(request, { memberId: id });
`;

/** One mistake each, on the line marked `// error:`, and the first line of the error it gives. */
const MISTAKES: Array<[string, { code: string; want: string }]> = [
  [
    'a misspelt name in api.handle',
    {
      code: 'await api.handle(request, { attributes: { memberID: id } }); // error:',
      want: "'memberID' does not exist in type",
    },
  ],
  [
    'a wrong type in api.handle',
    {
      code: 'await api.handle(request, { attributes: { memberId: Number(id) } }); // error:',
      want: "Type 'number' is not assignable to type 'string'",
    },
  ],
  [
    'a misspelt name in api.fetch',
    {
      code: 'await api.fetch(request, { attributes: { memberID: id } }); // error:',
      want: "'memberID' does not exist in type",
    },
  ],
  [
    'a wrong type in api.fetch',
    {
      code: 'await api.fetch(request, { attributes: { memberId: 7 } }); // error:',
      want: "Type 'number' is not assignable to type 'string'",
    },
  ],
  [
    'a misspelt name in api.serve',
    {
      code: 'await api.serve(http, { attributes: { memberID: id } }); // error:',
      want: "'memberID' does not exist in type",
    },
  ],
  [
    'a wrong type in api.serve',
    {
      code: 'await api.serve(http, { attributes: { memberId: null } }); // error:',
      want: "Type 'null' is not assignable to type 'string",
    },
  ],
  [
    'a misspelt name in toNodeHandler',
    {
      code: 'toNodeHandler(api, { attributes: () => ({ memberID: id }) }); // error:',
      want: "Type '() => { memberID: string; }' is not assignable",
    },
  ],
  [
    'a wrong type in toNodeHandler',
    {
      code: 'toNodeHandler(api, { attributes: (req) => ({ memberId: req.headers }) }); // error:',
      want: 'is not assignable to type',
    },
  ],
  [
    'a misspelt name in new Context',
    { code: 'new Context(request, { memberID: id }); // error:', want: "'memberID' does not exist in type" },
  ],
  [
    'a wrong type in new Context',
    {
      code: 'new Context(request, { memberId: 7 }); // error:',
      want: "Type 'number' is not assignable to type 'string'",
    },
  ],
  [
    'a misspelt name in a variable',
    {
      code: 'const attributes = { memberID: id };\nawait api.handle(request, { attributes }); // error:',
      want: 'has no properties in common with type',
    },
  ],
];

const fileOf = (name: string) => `${name.replace(/\W+/g, '-')}.ts`;

describe('context attributes, declared', () => {
  let errors: Map<string, string[]>;
  beforeAll(() => {
    errors = compileHosts('.tmp/attribute-types/declared', {
      'attributes.ts': DECLARATION,
      'good.ts': GOOD,
      ...Object.fromEntries(MISTAKES.map(([name, { code }]) => [fileOf(name), `${PRELUDE}${code}\nexport {};\n`])),
    });
  }, 120_000);

  it('every place that sets them compiles with declared names and types, or none', () => {
    const judged = new Set(MISTAKES.map(([name]) => fileOf(name)));
    expect(Object.fromEntries([...errors].filter(([file]) => !judged.has(file)))).toEqual({});
  });

  it.each(MISTAKES)('%s fails on its line', (name, { code, want }) => {
    const found = errors.get(fileOf(name)) ?? [];
    expect(found[0]).toMatch(new RegExp(`^${markedLine(`${PRELUDE}${code}`)}: `));
    expect(found[0]).toContain(want);
  });
});

describe('context attributes, not declared', () => {
  it('any names and values compile, and read back as unknown', () => {
    const errors = compileHosts('.tmp/attribute-types/undeclared', {
      'free.ts': `${PRELUDE}
await api.handle(request, { attributes: { memberID: id, tenant: 7, roles: ['admin'] } });
await api.fetch(request, { attributes: { anything: null } });
toNodeHandler(api, { attributes: (req) => ({ memberId: Number(req.headers['x-member']) }) });
const ctx = new Context(request, { memberId: 7 });
// @ts-expect-error: an undeclared attribute is unknown, not a number
export const member: number | undefined = ctx.getAttribute('memberId');
`,
    });
    expect(Object.fromEntries(errors)).toEqual({});
  }, 120_000);
});
