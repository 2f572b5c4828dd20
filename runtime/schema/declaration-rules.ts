/**
 * The rules for what a resource's declaration was given: the builders' arguments
 * (`.type('enum', values)`, `.pattern(re)`, `.min(n)`, `.default(v)`, `Where.operators(...)`,
 * `Index.paginate(...)`, ...) and the names of its fields, filters and sorts. They are written
 * once, here: the runtime applies them when a resource is registered, and `jsonapi-gen build`
 * applies the same ones and points at the builder call in the schema file. The builders record
 * what they are given and do not check it, so that the mistake is reported with its resource.
 *
 * Declarations are read by property, never by `instanceof`: the generator may read a schema
 * built by another copy of this package.
 */
import { OPERATORS, type ComparedKind, type Operator, isOperator, operatorApplies } from '../query/operators.js';
import type { AttributeKind } from './fields.js';
import { checkKind } from './validation.js';

/** One mistake, and where in the declaration the builder call that made it is. */
export interface DeclarationIssue {
  /** What is wrong, naming the field, filter, sort or endpoint and the argument (not the resource). */
  readonly message: string;
  /** The list of the declaration holding the builder call. */
  readonly part: 'fields' | 'endpoints' | 'filters' | 'sorts';
  /** The field, filter or sort name, or the endpoint kind. */
  readonly name: string;
  /** Which declaration of `name`, 0-based, when it is declared more than once. */
  readonly occurrence: number;
  /** The builder method given the wrong argument (`pattern`, `paginate`, ...), when one was. */
  readonly call?: string;
}

/** A resource declaration as the rules read it: `defineResource`'s result, a `ResourceDefinition`, or the generator's view of one. */
export interface DeclarationLike {
  fields(): readonly object[];
  endpoints(): readonly object[];
  filters?(): readonly object[];
  sorts?(): readonly object[];
}

/** The fields of another resource, by its type: for `Where` paths (`author.name`). */
export type RelatedFields = (type: string) => readonly object[] | undefined;

type Members = Readonly<Record<string, unknown>>;
type Report = (message: string, call?: string) => void;

const KINDS: readonly AttributeKind[] = ['string', 'integer', 'number', 'boolean', 'date-time', 'date', 'enum', 'array', 'object'];

/**
 * Every mistake in what `schema`'s builders were given, in declaration order. `api.resource()`
 * throws the ones it finds; `jsonapi-gen build` reports each at its builder call.
 *
 * @example
 * declarationIssues(defineResource({ type: 'books', fields: [Attribute.make('isbn').pattern('^97' as never)] }));
 * // [{ message: 'attribute "isbn": pattern() takes a RegExp, such as /^97/, not the string "^97"', part: 'fields', name: 'isbn', occurrence: 0, call: 'pattern' }]
 */
export function declarationIssues(schema: DeclarationLike): DeclarationIssue[] {
  const issues: DeclarationIssue[] = [];
  const fields = schema.fields() as readonly Members[];
  eachNamed(fields, 'fields', 'field', issues, (field, report) => {
    if (field.cardinality === 'one' || field.cardinality === 'many') relationshipRules(field, report);
    else attributeRules(field, report);
    if (field.getter !== undefined && typeof field.getter !== 'function') report(`field "${String(field.name)}": get() takes a function, not ${show(field.getter)}`, 'get');
  });
  for (const endpoint of schema.endpoints() as readonly Members[]) {
    if (endpoint.kind !== 'index') continue;
    const report: Report = (message, call) => issues.push({ message: `the index endpoint: ${message}`, part: 'endpoints', name: 'index', occurrence: 0, ...(call !== undefined && { call }) });
    indexRules(endpoint, report);
  }
  eachNamed((schema.filters?.() ?? []) as readonly Members[], 'filters', 'filter', issues, (filter, report) => {
    if (filter.declares === 'where') whereRules(filter, fields, report);
    if (filter.declares === 'custom') implementationRule(filter, 'filter', report);
  });
  eachNamed((schema.sorts?.() ?? []) as readonly Members[], 'sorts', 'sort', issues, (sort, report) => {
    if (sort.declares === 'custom') implementationRule(sort, 'sort', report);
  });
  return issues;
}

/**
 * The mistakes of `Where` filters on paths (`author.name`) that only the related resource's
 * fields tell: an operator that does not apply to the related attribute's kind. Checked once
 * every resource is known (the API's first request, or the build).
 *
 * @example
 * import { articles, people } from './schema.js';
 * pathIssues(articles, (type) => (type === 'people' ? people.fields() : undefined));
 */
export function pathIssues(schema: DeclarationLike, related: RelatedFields): DeclarationIssue[] {
  const issues: DeclarationIssue[] = [];
  const fields = schema.fields() as readonly Members[];
  const seen = new Map<string, number>();
  for (const filter of (schema.filters?.() ?? []) as readonly Members[]) {
    if (typeof filter.name !== 'string') continue;
    const name = filter.name;
    const occurrence = seen.get(name) ?? 0;
    seen.set(name, occurrence + 1);
    if (filter.declares !== 'where' || !name.includes('.')) continue;
    const [first, path] = name.split('.');
    const relationship = fields.find((f) => f.name === first);
    const type = relationship?.hasRelatedType === true ? relationship.relatedType : undefined;
    const attribute = typeof type === 'string' ? (related(type) as readonly Members[] | undefined)?.find((f) => f.name === path) : undefined;
    if (attribute === undefined || attribute.cardinality !== undefined) continue;
    operatorRules(filter, compared(attribute), (message, call) => issues.push({ message, part: 'filters', name, occurrence, ...(call !== undefined && { call }) }));
  }
  return issues;
}

/** Runs `rules` on each member of a list, with its name and occurrence; refuses names that are not text, and names declared twice. */
function eachNamed(list: readonly Members[], part: DeclarationIssue['part'], what: string, issues: DeclarationIssue[], rules: (member: Members, report: Report) => void): void {
  const seen = new Map<string, number>();
  for (const member of list) {
    const name = typeof member.name === 'string' ? member.name : String(member.name);
    const occurrence = seen.get(name) ?? 0;
    seen.set(name, occurrence + 1);
    const report: Report = (message, call) => issues.push({ message, part, name, occurrence, ...(call !== undefined && { call }) });
    if (typeof member.name !== 'string') {
      report(`${what} ${show(member.name)}: make() takes the ${what}'s name as a string`, 'make');
      continue;
    }
    if (occurrence === 1) report(`${what} "${name}" is declared twice`);
    rules(member, report);
  }
}

function attributeRules(attribute: Members, report: Report): void {
  const name = `attribute "${String(attribute.name)}"`;
  const kind = attribute.kind;
  if (!KINDS.includes(kind as AttributeKind)) {
    report(`${name}: type() takes one of ${KINDS.join(', ')}, not ${show(kind)}`, 'type');
    return;
  }
  let sound = true;
  const refuse: Report = (message, call) => {
    sound = false;
    report(`${name}: ${message}`, call);
  };
  if (kind === 'enum') enumRules(attribute.enumValues, refuse);
  const c = (attribute.constraints ?? {}) as Members;
  const applies = (method: string, kinds: readonly string[]) => {
    if (c[method] === undefined) return false;
    if (kinds.includes(kind as string)) return true;
    refuse(`${method}() applies to ${kinds.join(' and ')} attributes, not ${String(kind)} ones`, method);
    return false;
  };
  for (const method of ['minLength', 'maxLength']) {
    const n = c[method];
    if (applies(method, ['string']) && !(Number.isSafeInteger(n) && (n as number) >= 0)) refuse(`${method}() takes a whole number of characters, 0 or more, not ${show(n)}`, method);
  }
  if (sound && typeof c.minLength === 'number' && typeof c.maxLength === 'number' && c.minLength > c.maxLength) {
    refuse(`minLength(${c.minLength}) is above maxLength(${c.maxLength}): no value could be written`, 'maxLength');
  }
  if (applies('pattern', ['string']) && !(c.pattern instanceof RegExp)) {
    const example = typeof c.pattern === 'string' ? `/${c.pattern}/` : '/^[a-z-]+$/';
    refuse(`pattern() takes a RegExp, such as ${example}, not ${show(c.pattern)}`, 'pattern');
  }
  for (const method of ['min', 'max']) {
    if (applies(method, ['integer', 'number']) && !Number.isFinite(c[method])) refuse(`${method}() takes a finite number, not ${show(c[method])}`, method);
  }
  if (sound && typeof c.min === 'number' && typeof c.max === 'number' && c.min > c.max) {
    refuse(`min(${c.min}) is above max(${c.max}): no value could be written`, 'max');
  }
  for (const validator of (attribute.validators ?? []) as readonly unknown[]) {
    if (typeof validator !== 'function' && !isStandardSchema(validator)) refuse(`validate() takes a function or a Standard Schema, not ${show(validator)}`, 'validate');
  }
  const declared = attribute.declaredDefault as { readonly value: unknown } | undefined;
  // A function is called at each create; its result is checked as any written value is.
  if (sound && declared !== undefined && typeof declared.value !== 'function') {
    const problems = checkKind(attribute as unknown as Parameters<typeof checkKind>[0], declared.value);
    if (problems.length > 0) refuse(`default(${literal(declared.value)}): the value ${problems.join(', ')}`, 'default');
  }
}

function enumRules(values: unknown, refuse: Report): void {
  if (!Array.isArray(values) || values.length === 0) {
    refuse(`type('enum', values) takes a non-empty list of strings, not ${show(values)}`, 'type');
    return;
  }
  const wrong = values.find((v) => typeof v !== 'string');
  if (wrong !== undefined) {
    refuse(`type('enum', values) takes strings, not ${show(wrong)}`, 'type');
    return;
  }
  const twice = values.find((v, i) => values.indexOf(v) !== i);
  if (twice !== undefined) refuse(`type('enum', values) lists ${literal(twice)} twice`, 'type');
}

function relationshipRules(relationship: Members, report: Report): void {
  if (relationship.hasRelatedType === true && typeof relationship.relatedType !== 'string') {
    report(`relationship "${String(relationship.name)}": type() takes the related resource type as a string, not ${show(relationship.relatedType)}`, 'type');
  }
}

function indexRules(index: Members, report: Report): void {
  const pagination = index.pagination as { readonly defaultLimit: unknown; readonly maxLimit: unknown } | undefined;
  if (pagination !== undefined) {
    const { defaultLimit, maxLimit } = pagination;
    const limits = `paginate(${show(defaultLimit)}, ${show(maxLimit)})`;
    const positive = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 1;
    if (!positive(defaultLimit) || !positive(maxLimit)) report(`${limits}: the limits are whole numbers, 1 or more`, 'paginate');
    else if ((defaultLimit as number) > (maxLimit as number)) report(`${limits}: the default limit is above the maximum`, 'paginate');
  }
  const sort = index.defaultSortValue;
  if (sort !== undefined && (typeof sort !== 'string' || sort.trim() === '')) report(`defaultSort() takes sort terms, such as '-createdAt', not ${show(sort)}`, 'defaultSort');
}

function whereRules(filter: Members, fields: readonly Members[], report: Report): void {
  const [first, path] = String(filter.name).split('.');
  const field = fields.find((f) => f.name === first);
  // A path's attribute is the related resource's (`pathIssues`); a field that is not there is another rule's.
  if (path !== undefined || field === undefined) {
    operatorRules(filter, undefined, report);
    return;
  }
  if (field.cardinality === 'many') return;
  operatorRules(filter, field.cardinality === 'one' ? { kind: 'id' } : compared(field), report);
}

/** `Where.operators(...)`: operator words, at least one, each applying to what the field compares (when known). */
function operatorRules(filter: Members, field: ComparedKind | undefined, report: Report): void {
  const operators = filter.declaredOperators;
  if (operators === undefined) return;
  const name = `filter "${String(filter.name)}"`;
  const unknown = Array.isArray(operators) ? operators.filter((op) => !isOperator(op)) : [];
  if (!Array.isArray(operators) || operators.length === 0 || unknown.length > 0) {
    report(`${name}: operators() takes one or more of ${OPERATORS.join(', ')}${unknown.length > 0 ? `, not ${unknown.map(show).join(', ')}` : ''}`, 'operators');
    return;
  }
  if (field === undefined || (!KINDS.includes(field.kind as AttributeKind) && field.kind !== 'id')) return;
  const inapplicable = (operators as Operator[]).filter((op) => !operatorApplies(op, field.kind));
  if (inapplicable.length > 0) {
    const compares = field.kind === 'id' ? 'a to-one relationship (its id)' : `${/^[aeiou]/.test(field.kind) ? 'an' : 'a'} ${field.kind} attribute`;
    const takes = OPERATORS.filter((op) => operatorApplies(op, field.kind));
    report(`${name}: ${inapplicable.map((op) => `"${op}"`).join(', ')} ${inapplicable.length > 1 ? 'do' : 'does'} not apply to ${compares}; it takes ${takes.join(', ')}`, 'operators');
  }
}

/** A `CustomFilter` or `CustomSort` given its implementation in the schema. */
function implementationRule(member: Members, what: string, report: Report): void {
  const apply = member.implementation;
  if (apply !== undefined && typeof apply !== 'function') report(`${what} "${String(member.name)}": make(name, apply) takes a function as apply, not ${show(apply)}`, 'make');
}

function compared(attribute: Members): ComparedKind {
  return { kind: attribute.kind as AttributeKind };
}

function isStandardSchema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const standard = (value as Members)['~standard'];
  return typeof standard === 'object' && standard !== null && typeof (standard as Members).validate === 'function';
}

/** A wrong argument as a message names it: a string says it is one (`the string "^97"`). */
function show(value: unknown): string {
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : literal(value);
}

/** A value as it would be written in the schema, near enough to recognize. */
function literal(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value !== 'object' || value === null || value instanceof RegExp) return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  try {
    return JSON.stringify(value);
  } catch {
    return 'an object';
  }
}
