/**
 * The rules for what a resource's declaration was given: the builders' arguments
 * (`.type('enum', values)`, `.pattern(re)`, `.min(n)`, `.default(v)`, `Where.operators(...)`,
 * `Index.paginate(...)`, ...), the names of its type, fields, endpoints, filters and sorts, what
 * its filters and sorts name, and (`relatedIssues`) what it says of the other resources. They
 * are written once, here: the runtime applies them when a resource is registered, and `jsonapi-gen build`
 * applies the same ones and points at the builder call in the schema file. The builders record
 * what they are given and do not check it, so that the mistake is reported with its resource.
 *
 * Declarations are read by property, never by `instanceof`: the generator may read a schema
 * built by another copy of this package.
 */
import {
  COUNT_OPERATORS,
  OPERATORS,
  type ComparedKind,
  type Operator,
  isOperator,
  operatorApplies,
} from './operators.js';
import type { AttributeKind } from './fields.js';
import { isMemberName } from '../core/member-name.js';
import { checkKind } from './validation.js';

/** One mistake, and where in the declaration the builder call that made it is. */
export interface DeclarationIssue {
  /** What is wrong, naming the field, filter, sort or endpoint and the argument (not the resource). */
  readonly message: string;
  /** The list of the declaration holding the builder call, or `type` for the resource type itself. */
  readonly part: 'type' | 'fields' | 'endpoints' | 'filters' | 'sorts' | 'meta';
  /** The field, filter or sort name, the endpoint kind, or the resource type. */
  readonly name: string;
  /** Which declaration of `name`, 0-based, when it is declared more than once. */
  readonly occurrence: number;
  /** The builder method given the wrong argument (`pattern`, `paginate`, ...), when one was. */
  readonly call?: string;
}

/** A resource declaration as the rules read it: `defineResource`'s result, a `ResourceDefinition`, or the generator's view of one. */
export interface DeclarationLike {
  type(): string;
  fields(): readonly object[];
  endpoints(): readonly object[];
  filters?(): readonly object[];
  sorts?(): readonly object[];
  meta?(): readonly object[];
}

/** The mistakes of one resource of a schema (`schemaIssues`), and its type when `type()` gives one. */
export interface ResourceIssues {
  readonly type: string | undefined;
  readonly issues: readonly DeclarationIssue[];
}

type Members = Readonly<Record<string, unknown>>;
type Report = (message: string, call?: string) => void;

const KINDS: readonly AttributeKind[] = [
  'string',
  'integer',
  'number',
  'boolean',
  'date-time',
  'date',
  'enum',
  'array',
  'object',
];
const META_KINDS: readonly string[] = ['string', 'integer', 'number', 'boolean', 'date-time', 'json'];
const ENDPOINT_KINDS: readonly string[] = ['show', 'index', 'create', 'update', 'delete'];
const LEGAL = 'letters and digits, with - or _ inside';

/**
 * Every mistake of a whole schema, resource by resource in the order given: each resource's
 * `declarationIssues`, a type declared by two resources, and `relatedIssues` against the
 * others. What `jsonapi-gen build` reports; registration finds the same, one resource at a
 * time and then at the API's first request.
 *
 * @example
 * import { articles, comments, people, tags } from './schema.js';
 * const issues = schemaIssues([people, articles, comments, tags]);
 * const messages = issues.flatMap((r) => r.issues.map((i) => `${r.type ?? '?'}: ${i.message}`)); // [] for the demo's schema
 */
export function schemaIssues(schemas: readonly DeclarationLike[]): ResourceIssues[] {
  const byType = new Map<string, DeclarationLike>();
  for (const schema of schemas) {
    const type = typeOf(schema);
    if (type !== undefined && !byType.has(type)) byType.set(type, schema);
  }
  return schemas.map((schema) => {
    const type = typeOf(schema);
    if (type === undefined) return { type, issues: declarationIssues(schema) };
    const twice: DeclarationIssue[] =
      byType.get(type) === schema
        ? []
        : [{ message: `resource type "${type}" is declared twice`, part: 'type', name: type, occurrence: 0 }];
    return { type, issues: [...declarationIssues(schema), ...twice, ...relatedIssues(schema, byType)] };
  });
}

/** What `type()` gives, when it gives a string without throwing. */
function typeOf(schema: DeclarationLike): string | undefined {
  try {
    const type = schema.type();
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

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
  const type = typeOf(schema);
  if (type === undefined)
    issues.push({ message: 'type() must return a string', part: 'type', name: '', occurrence: 0 });
  else if (!isMemberName(type))
    issues.push({
      message: `resource type "${type}" is not a legal member name (${LEGAL})`,
      part: 'type',
      name: type,
      occurrence: 0,
    });
  const of = type ?? 'the resource';
  const fields = schema.fields() as readonly Members[];
  eachNamed(fields, 'fields', 'field', issues, (field, report) => {
    const name = String(field.name);
    if (!isMemberName(name)) report(`field "${name}" is not a legal member name (${LEGAL})`);
    else if (name === 'id' || name === 'type')
      report(`"${name}" cannot be a field name: every resource object has its own "${name}"`);
    if (field.cardinality === 'one' || field.cardinality === 'many') relationshipRules(field, report);
    else attributeRules(field, report);
    if (field.getter !== undefined && typeof field.getter !== 'function')
      report(`field "${name}": get() takes a function, not ${show(field.getter)}`, 'get');
  });
  eachNamed((schema.meta?.() ?? []) as readonly Members[], 'meta', 'meta member', issues, (meta, report) => {
    const name = String(meta.name);
    if (!isMemberName(name)) report(`meta member "${name}" is not a legal member name (${LEGAL})`);
    if (!META_KINDS.includes(String(meta.kind)))
      report(`meta member "${name}": type() takes one of ${META_KINDS.join(', ')}, not ${show(meta.kind)}`, 'type');
    if (typeof meta.getter !== 'function')
      report(`meta member "${name}": get() must give the function that computes it`, 'get');
  });
  const sorts = (schema.sorts?.() ?? []) as readonly Members[];
  const kinds = new Map<string, number>();
  for (const endpoint of schema.endpoints() as readonly Members[]) {
    const kind = String(endpoint.kind);
    const occurrence = kinds.get(kind) ?? 0;
    kinds.set(kind, occurrence + 1);
    const report: Report = (message, call) =>
      issues.push({ message, part: 'endpoints', name: kind, occurrence, ...(call !== undefined && { call }) });
    if (!ENDPOINT_KINDS.includes(kind)) report(`unknown endpoint kind ${show(endpoint.kind)}`);
    if (occurrence === 1) report(`the ${kind} endpoint is declared twice`);
    if (kind === 'index')
      indexRules(endpoint, sorts, (message, call) => report(`the index endpoint: ${message}`, call));
    else otherEndpointRules(endpoint, kind, report);
  }
  eachNamed((schema.filters?.() ?? []) as readonly Members[], 'filters', 'filter', issues, (filter, report) => {
    if (!String(filter.name).split('.').every(isMemberName))
      report(`filter "${String(filter.name)}" is not a legal member name (${LEGAL})`);
    else if (GROUP_NAME.test(String(filter.name)))
      report(`filter "${String(filter.name)}": and, or, not and numbers name filter[...] groups, not filters`);
    if (filter.declares === 'where') whereRules(filter, fields, of, report);
    if (filter.declares === 'count') countRules(filter, 'WhereCount', fields, of, report);
    if (filter.declares === 'custom') implementationRule(filter, 'filter', report);
  });
  eachNamed(sorts, 'sorts', 'sort', issues, (sort, report) => {
    if (!String(sort.name).split('.').every(isMemberName))
      report(`sort "${String(sort.name)}" is not a legal member name (${LEGAL})`);
    if (sort.declares === 'field') sortByRules(sort, fields, of, report);
    if (sort.declares === 'count') countRules(sort, 'SortWithCount', fields, of, report);
    if (sort.declares === 'custom') implementationRule(sort, 'sort', report);
  });
  return issues;
}

/**
 * The mistakes only the other resources of the API tell: a relationship to a type none
 * declares, and a `Where` filter or `SortBy` sort on a path (`author.name`) naming no attribute
 * of the related resource, or an operator that does not apply to that attribute's kind.
 * Checked once every resource is known (the API's first request, or the build).
 *
 * @example
 * import { articles, people } from './schema.js';
 * const resources = new Map<string, DeclarationLike>([['articles', articles], ['people', people]]);
 * relatedIssues(articles, resources); // relationships "comments" and "tags" relate to types not in `resources`
 */
export function relatedIssues(
  schema: DeclarationLike,
  resources: ReadonlyMap<string, DeclarationLike>,
): DeclarationIssue[] {
  const issues: DeclarationIssue[] = [];
  const type = typeOf(schema) ?? 'the resource';
  const fields = schema.fields() as readonly Members[];
  const known = () => [...resources.keys()].sort().join(', ');
  eachOccurrence(fields, (field, name, occurrence) => {
    if (
      (field.cardinality !== 'one' && field.cardinality !== 'many') ||
      field.hasRelatedType !== true ||
      typeof field.relatedType !== 'string'
    )
      return;
    if (!resources.has(field.relatedType)) {
      const message = `relationship "${name}" relates to "${field.relatedType}", which no resource of the API declares (known: ${known()})`;
      issues.push({ message, part: 'fields', name, occurrence, call: 'type' });
    }
  });
  // The related resource's attribute a path names: undefined when the path's relationship or type is not known (another rule's), null when there is no such attribute.
  const pathAttribute = (name: string): Members | null | undefined => {
    const [first, path, ...rest] = name.split('.');
    if (path === undefined || rest.length > 0) return undefined;
    const relationship = fields.find((f) => f.name === first);
    const relatedType = relationship?.hasRelatedType === true ? relationship.relatedType : undefined;
    const related = typeof relatedType === 'string' ? resources.get(relatedType) : undefined;
    if (related === undefined) return undefined;
    const attribute = (related.fields() as readonly Members[]).find((f) => f.name === path);
    return attribute === undefined || attribute.cardinality !== undefined ? null : attribute;
  };
  eachOccurrence((schema.filters?.() ?? []) as readonly Members[], (filter, name, occurrence) => {
    if (filter.declares !== 'where') return;
    const attribute = pathAttribute(name);
    const report: Report = (message, call) =>
      issues.push({ message, part: 'filters', name, occurrence, ...(call !== undefined && { call }) });
    if (attribute === null)
      report(
        `Where.make('${name}') names no relationship.attribute path of ${type}: the related resource has no attribute "${name.split('.')[1]}"`,
      );
    else if (attribute !== undefined) operatorRules(filter, compared(attribute), report);
  });
  eachOccurrence((schema.sorts?.() ?? []) as readonly Members[], (sort, name, occurrence) => {
    if (sort.declares !== 'field' || pathAttribute(name) !== null) return;
    const message = `SortBy.make('${name}') names no to-one relationship's attribute of ${type}: the related resource has no attribute "${name.split('.')[1]}"`;
    issues.push({ message, part: 'sorts', name, occurrence });
  });
  return issues;
}

/** Each member of a list whose name is text, with its occurrence. */
function eachOccurrence(
  list: readonly Members[],
  visit: (member: Members, name: string, occurrence: number) => void,
): void {
  const seen = new Map<string, number>();
  for (const member of list) {
    if (typeof member.name !== 'string') continue;
    const occurrence = seen.get(member.name) ?? 0;
    seen.set(member.name, occurrence + 1);
    visit(member, member.name, occurrence);
  }
}

/** Runs `rules` on each member of a list, with its name and occurrence; refuses names that are not text, and names declared twice. */
function eachNamed(
  list: readonly Members[],
  part: DeclarationIssue['part'],
  what: string,
  issues: DeclarationIssue[],
  rules: (member: Members, report: Report) => void,
): void {
  const seen = new Map<string, number>();
  for (const member of list) {
    const name = typeof member.name === 'string' ? member.name : String(member.name);
    const occurrence = seen.get(name) ?? 0;
    seen.set(name, occurrence + 1);
    const report: Report = (message, call) =>
      issues.push({ message, part, name, occurrence, ...(call !== undefined && { call }) });
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
    if (applies(method, ['string']) && !(Number.isSafeInteger(n) && (n as number) >= 0))
      refuse(`${method}() takes a whole number of characters, 0 or more, not ${show(n)}`, method);
  }
  if (sound && typeof c.minLength === 'number' && typeof c.maxLength === 'number' && c.minLength > c.maxLength) {
    refuse(`minLength(${c.minLength}) is above maxLength(${c.maxLength}): no value could be written`, 'maxLength');
  }
  if (applies('pattern', ['string']) && !(c.pattern instanceof RegExp)) {
    const example = typeof c.pattern === 'string' ? `/${c.pattern}/` : '/^[a-z-]+$/';
    refuse(`pattern() takes a RegExp, such as ${example}, not ${show(c.pattern)}`, 'pattern');
  }
  for (const method of ['min', 'max']) {
    if (applies(method, ['integer', 'number']) && !Number.isFinite(c[method]))
      refuse(`${method}() takes a finite number, not ${show(c[method])}`, method);
  }
  if (sound && typeof c.min === 'number' && typeof c.max === 'number' && c.min > c.max) {
    refuse(`min(${c.min}) is above max(${c.max}): no value could be written`, 'max');
  }
  for (const validator of (attribute.validators ?? []) as readonly unknown[]) {
    if (typeof validator !== 'function' && !isStandardSchema(validator))
      refuse(`validate() takes a function or a Standard Schema, not ${show(validator)}`, 'validate');
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
  const list: readonly unknown[] = values;
  const wrong = list.find((v) => typeof v !== 'string');
  if (wrong !== undefined) {
    refuse(`type('enum', values) takes strings, not ${show(wrong)}`, 'type');
    return;
  }
  const twice = list.find((v, i) => list.indexOf(v) !== i);
  if (twice !== undefined) refuse(`type('enum', values) lists ${literal(twice)} twice`, 'type');
}

function relationshipRules(relationship: Members, report: Report): void {
  if (relationship.hasRelatedType === false) report(`relationship "${String(relationship.name)}" has no .type(...)`);
  if (relationship.hasRelatedType === true && typeof relationship.relatedType !== 'string') {
    report(
      `relationship "${String(relationship.name)}": type() takes the related resource type as a string, not ${show(relationship.relatedType)}`,
      'type',
    );
  }
}

function indexRules(index: Members, sorts: readonly Members[], report: Report): void {
  const pagination = index.pagination as { readonly defaultLimit: unknown; readonly maxLimit: unknown } | undefined;
  if (pagination !== undefined) {
    const { defaultLimit, maxLimit } = pagination;
    const limits = `paginate(${show(defaultLimit)}, ${show(maxLimit)})`;
    const positive = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 1;
    if (!positive(defaultLimit) || !positive(maxLimit))
      report(`${limits}: the limits are whole numbers, 1 or more`, 'paginate');
    else if ((defaultLimit as number) > (maxLimit as number))
      report(`${limits}: the default limit is above the maximum`, 'paginate');
  }
  if (index.isCountable === true && pagination === undefined) {
    report(
      'countable() needs paginate(): counting gives paginated collections their "last" link and meta.total',
      'countable',
    );
  }
  if (index.acceptsCursor === true && pagination === undefined)
    report(`cursor() needs paginate(): the cursor pages' sizes are its limits`, 'cursor');
  const sort = index.defaultSortValue;
  if (sort !== undefined && (typeof sort !== 'string' || sort.trim() === '')) {
    report(`defaultSort() takes sort terms, such as '-createdAt', not ${show(sort)}`, 'defaultSort');
    return;
  }
  for (const term of typeof sort === 'string' ? sort.split(',') : []) {
    const name = term.startsWith('-') ? term.slice(1) : term;
    if (!sorts.some((s) => s.name === name))
      report(`the default sort names "${name}", which is not a declared sort`, 'defaultSort');
  }
}

/** What only an Index takes, given to another endpoint (read by property: an endpoint object may carry them whatever its class). */
function otherEndpointRules(endpoint: Members, kind: string, report: Report): void {
  if (endpoint.pagination !== undefined)
    report(`paginate() applies to the Index endpoint only, not ${kind}`, 'paginate');
  if (endpoint.isCountable === true) report(`countable() applies to the Index endpoint only, not ${kind}`, 'countable');
  if (endpoint.acceptsCursor === true) report(`cursor() applies to the Index endpoint only, not ${kind}`, 'cursor');
}

/** A `Where` filter names an attribute or a to-one relationship, or a path `relationship.attribute`; its operators apply. */
function whereRules(filter: Members, fields: readonly Members[], type: string, report: Report): void {
  const name = String(filter.name);
  const [first, path, ...rest] = name.split('.');
  const field = fields.find((f) => f.name === first);
  const relationship = field?.cardinality === 'one' || field?.cardinality === 'many';
  if (path !== undefined) {
    // The related resource's attribute is `relatedIssues`'s to check, once every resource is known.
    if (!relationship || rest.length > 0)
      report(`Where.make('${name}') names no relationship.attribute path of ${type}`);
    operatorRules(filter, undefined, report);
    return;
  }
  if (field === undefined || field.cardinality === 'many') {
    report(`Where.make('${name}') names no attribute or to-one relationship of ${type}`);
    operatorRules(filter, undefined, report);
    return;
  }
  operatorRules(filter, field.cardinality === 'one' ? { kind: 'id' } : compared(field), report);
}

/** Names that open a boolean group in `filter[...]`. */
const GROUP_NAME = /^(and|or|not|\d+)$/;

/**
 * A `WhereCount` or `SortWithCount` counts a to-many relationship of the resource, given to
 * `relationship()`; its own name is not a field's (it is no attribute); a `WhereCount`'s
 * operators compare integers.
 */
function countRules(member: Members, builder: string, fields: readonly Members[], type: string, report: Report): void {
  const name = String(member.name);
  const counted = member.countedRelationship;
  if (fields.some((f) => f.name === name))
    report(
      `${builder}.make('${name}') is named after a field of ${type}: name the count otherwise, such as '${name}Count'`,
    );
  if (counted === undefined)
    report(`${builder}.make('${name}') needs relationship(name): the to-many relationship it counts`);
  else if (!fields.some((f) => f.name === counted && f.cardinality === 'many'))
    report(
      `${builder}.make('${name}').relationship(${show(counted)}) names no to-many relationship of ${type}`,
      'relationship',
    );
  const operators = member.declaredOperators;
  if (operators === undefined) return;
  const wrong = Array.isArray(operators) ? operators.filter((op) => !COUNT_OPERATORS.includes(op as Operator)) : [];
  if (!Array.isArray(operators) || operators.length === 0 || wrong.length > 0)
    report(
      `filter "${name}": operators() takes one or more of ${COUNT_OPERATORS.join(', ')}${wrong.length > 0 ? `, not ${wrong.map(show).join(', ')}` : ''}`,
      'operators',
    );
}

/** A `SortBy` sort names an attribute, or an attribute of a to-one relationship (`author.name`). */
function sortByRules(sort: Members, fields: readonly Members[], type: string, report: Report): void {
  const name = String(sort.name);
  const [first, path, ...rest] = name.split('.');
  const field = fields.find((f) => f.name === first);
  const fits =
    path === undefined
      ? field !== undefined && field.cardinality === undefined
      : field?.cardinality === 'one' && rest.length === 0;
  if (!fits) report(`SortBy.make('${name}') names no attribute of ${type}, nor a to-one relationship's attribute`);
}

/** `Where.operators(...)`: operator words, at least one, each applying to what the field compares (when known). */
function operatorRules(filter: Members, field: ComparedKind | undefined, report: Report): void {
  const operators = filter.declaredOperators;
  if (operators === undefined) return;
  const name = `filter "${String(filter.name)}"`;
  const unknown = Array.isArray(operators) ? operators.filter((op) => !isOperator(op)) : [];
  if (!Array.isArray(operators) || operators.length === 0 || unknown.length > 0) {
    report(
      `${name}: operators() takes one or more of ${OPERATORS.join(', ')}${unknown.length > 0 ? `, not ${unknown.map(show).join(', ')}` : ''}`,
      'operators',
    );
    return;
  }
  if (field === undefined || (!KINDS.includes(field.kind as AttributeKind) && field.kind !== 'id')) return;
  const inapplicable = (operators as Operator[]).filter((op) => !operatorApplies(op, field.kind));
  if (inapplicable.length > 0) {
    const compares =
      field.kind === 'id'
        ? 'a to-one relationship (its id)'
        : `${/^[aeiou]/.test(field.kind) ? 'an' : 'a'} ${field.kind} attribute`;
    const takes = OPERATORS.filter((op) => operatorApplies(op, field.kind));
    report(
      `${name}: ${inapplicable.map((op) => `"${op}"`).join(', ')} ${inapplicable.length > 1 ? 'do' : 'does'} not apply to ${compares}; it takes ${takes.join(', ')}`,
      'operators',
    );
  }
}

/** A `CustomFilter` or `CustomSort` given its implementation in the schema. */
function implementationRule(member: Members, what: string, report: Report): void {
  const apply = member.implementation;
  if (apply !== undefined && typeof apply !== 'function')
    report(`${what} "${String(member.name)}": make(name, apply) takes a function as apply, not ${show(apply)}`, 'make');
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
