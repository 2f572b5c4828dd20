/**
 * Finds where in the schema file a resource, field, endpoint, filter or sort is declared, by
 * parsing the file (syntax only) and looking for the builder call by name.
 */
import { readFileSync } from 'node:fs';
import {
  type CallExpression,
  type Node,
  type ObjectLiteralExpression,
  Project,
  SyntaxKind,
  type SourceFile,
} from 'ts-morph';

/** What to point at. Every level is optional below `exportName`; the most precise one found wins. */
export interface Target {
  /** The export holding the resource. */
  readonly exportName: string;
  /** The resource type, to find `defineResource({ type: '...' })` when the export is not a plain declaration. */
  readonly type?: string;
  /** A property of the object given to `defineResource`. */
  readonly part?: 'type' | 'fields' | 'endpoints' | 'filters' | 'sorts' | 'meta';
  /** The member declared in `part`: a field, filter or sort name, or an endpoint kind. */
  readonly name?: string;
  /** Which declaration of `name`, 0-based, when it is declared more than once. */
  readonly occurrence?: number;
  /** A method of the builder chain (`type`, `paginate`, `countable`, `defaultSort`). */
  readonly call?: string;
}

export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Locates targets in one schema file; parses it once, on first use. */
export class Locator {
  readonly #file: string;
  #source: SourceFile | null | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  locate(target: Target): Position | undefined {
    const source = this.#parse();
    if (!source) return undefined;
    const node = locateNode(source, target);
    if (!node) return undefined;
    const { line, column } = source.getLineAndColumnAtPos(node.getStart());
    return { line, column };
  }

  #parse(): SourceFile | null {
    if (this.#source !== undefined) return this.#source;
    try {
      const text = readFileSync(this.#file, 'utf8');
      const project = new Project({ useInMemoryFileSystem: true });
      this.#source = project.createSourceFile('/schema.ts', text);
    } catch {
      this.#source = null;
    }
    return this.#source;
  }
}

function locateNode(source: SourceFile, target: Target): Node | undefined {
  const spec = resourceObject(source, target);
  if (!spec) return exportNode(source, target.exportName);
  if (!target.part) return spec.getParent() ?? spec;
  const property = spec.getProperty(target.part);
  if (!property) return spec;
  const value = property.isKind(SyntaxKind.PropertyAssignment) ? property.getInitializer() : undefined;
  if (!value) return property;
  if (target.part === 'type' || target.name === undefined) return value;
  const declarations = declarationsNamed(value, target.part, target.name);
  const declaration = declarations[target.occurrence ?? 0] ?? declarations[0];
  if (!declaration) return value;
  if (target.call) {
    const call = chainCall(declaration, target.call);
    if (call) return call;
  }
  const [first] = declaration.getArguments();
  return target.part !== 'endpoints' && first?.isKind(SyntaxKind.StringLiteral) ? first : declaration;
}

/** The object literal given to the resource's `defineResource(...)`. */
function resourceObject(source: SourceFile, target: Target): ObjectLiteralExpression | undefined {
  const declared = source.getVariableDeclaration(target.exportName)?.getInitializer();
  const fromExport = declared?.isKind(SyntaxKind.CallExpression) ? declared.getArguments()[0] : undefined;
  if (fromExport?.isKind(SyntaxKind.ObjectLiteralExpression)) return fromExport;
  if (target.type === undefined) return undefined;
  for (const object of source.getDescendantsOfKind(SyntaxKind.ObjectLiteralExpression)) {
    const type = object.getProperty('type');
    const value = type?.isKind(SyntaxKind.PropertyAssignment) ? type.getInitializer() : undefined;
    if (
      value?.isKind(SyntaxKind.StringLiteral) &&
      value.getLiteralValue() === target.type &&
      object.getProperty('fields')
    ) {
      return object;
    }
  }
  return undefined;
}

function exportNode(source: SourceFile, exportName: string): Node | undefined {
  return (
    source.getVariableDeclaration(exportName) ??
    source
      .getExportSymbols()
      .find((s) => s.getName() === exportName)
      ?.getDeclarations()[0]
  );
}

/**
 * The calls declaring `name` in `list`: `X.make('name', ...)` or `new X('name')` for fields,
 * filters and sorts; `Kind.make()` for endpoints.
 */
function declarationsNamed(list: Node, part: string, name: string): CallExpression[] {
  const found: CallExpression[] = [];
  const candidates = [
    ...(list.isKind(SyntaxKind.CallExpression) ? [list] : []),
    ...list.getDescendantsOfKind(SyntaxKind.CallExpression),
  ];
  for (const call of candidates) {
    const callee = call.getExpression();
    if (!callee.isKind(SyntaxKind.PropertyAccessExpression) || callee.getName() !== 'make') continue;
    if (part === 'endpoints') {
      if (callee.getExpression().getText().split('.').pop()!.toLowerCase() === name) found.push(call);
      continue;
    }
    const [first] = call.getArguments();
    if (first?.isKind(SyntaxKind.StringLiteral) && first.getLiteralValue() === name) found.push(call);
  }
  for (const created of list.getDescendantsOfKind(SyntaxKind.NewExpression)) {
    const [first] = created.getArguments();
    if (part !== 'endpoints' && first?.isKind(SyntaxKind.StringLiteral) && first.getLiteralValue() === name) {
      found.push(created as unknown as CallExpression);
    }
  }
  return found.sort((a, b) => a.getStart() - b.getStart());
}

/** The name of `method` in the fluent chain that starts at `start` (`make(...).type(...)`). */
function chainCall(start: Node, method: string): Node | undefined {
  let node: Node = start;
  for (;;) {
    const access = node.getParent();
    if (!access?.isKind(SyntaxKind.PropertyAccessExpression) || access.getExpression() !== node) return undefined;
    const call = access.getParent();
    if (!call?.isKind(SyntaxKind.CallExpression) || call.getExpression() !== access) return undefined;
    if (access.getName() === method) return access.getNameNode();
    node = call;
  }
}
