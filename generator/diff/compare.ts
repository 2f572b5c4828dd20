/**
 * The rules of `jsonapi-gen diff`: two descriptions of an API (`schema.json`'s shape) in, every
 * change out, each with its level. A change is `major` when a request or a reading that worked
 * against the old API can fail or read otherwise against the new one; docs/diff.md states each
 * rule for users.
 */
import { type Operator, defaultOperators } from 'jsonapi-gen';
import type { ApiDescription, ResourceDescription } from '../api-description.js';
import { COUNT_OPERATORS } from '../emit/openapi-parameters.js';
import type { Change, Level } from './changes.js';

type Attribute = ResourceDescription['attributes'][number];
type Relationship = ResourceDescription['relationships'][number];
type Endpoint = ResourceDescription['endpoints'][number];
type Filter = ResourceDescription['filters'][number];
type Index = Extract<Endpoint, { kind: 'index' }>;

/** Collects changes as they are found. */
class Changes {
  readonly list: Change[] = [];
  add(level: Level, kind: string, path: string, message: string): void {
    this.list.push({ level, kind, path, message });
  }
  major(kind: string, path: string, message: string): void {
    this.add('major', kind, path, message);
  }
  minor(kind: string, path: string, message: string): void {
    this.add('minor', kind, path, message);
  }
}

const show = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value));
const byName = <T extends { readonly name: string }>(list: readonly T[]) =>
  new Map(list.map((item) => [item.name, item]));

/**
 * Every change from `before` to `after`, resources in type order, each resource's in the order
 * of its description (members, endpoints, filters, sorts).
 *
 * @example
 * import { readApiDescription } from '../api-description.js';
 * compareApis(readApiDescription('old/generated'), readApiDescription('src/generated'));
 * // [{ kind: 'filter-added', level: 'minor', path: 'articles.filter.title', message: 'filter "title" added' }]
 */
export function compareApis(before: ApiDescription, after: ApiDescription): Change[] {
  const changes = new Changes();
  const old = new Map(before.resources.map((r) => [r.type, r]));
  const now = new Map(after.resources.map((r) => [r.type, r]));
  const types = [...new Set([...old.keys(), ...now.keys()])].sort();
  for (const type of types) {
    const o = old.get(type);
    const n = now.get(type);
    if (o && n) compareResource(changes, { before, after }, o, n);
    else if (o) changes.major('resource-removed', type, `resource type "${type}" removed`);
    else changes.minor('resource-added', type, `resource type "${type}" added`);
  }
  compareExtensions(changes, before, after);
  return changes.list;
}

interface Apis {
  readonly before: ApiDescription;
  readonly after: ApiDescription;
}

function compareResource(changes: Changes, apis: Apis, o: ResourceDescription, n: ResourceDescription): void {
  compareMembers(changes, o, n);
  compareMeta(changes, o, n);
  compareEndpoints(changes, o, n);
  compareFilters(changes, apis, o, n);
  compareSorts(changes, o, n);
}

/**
 * Resource-object meta members (read-only, in responses): removed, or of another kind, breaks
 * clients that read them; made nullable too. Descriptions written before meta existed have none.
 */
function compareMeta(changes: Changes, o: ResourceDescription, n: ResourceDescription): void {
  const before = byName(o.meta ?? []);
  const after = byName(n.meta ?? []);
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const path = `${o.type}.meta.${name}`;
    const was = before.get(name);
    const is = after.get(name);
    if (was && !is) changes.major('meta-removed', path, `meta member "${name}" removed from resource objects`);
    else if (!was && is) changes.minor('meta-added', path, `meta member "${name}" added to resource objects`);
    else if (was && is) {
      if (was.kind !== is.kind)
        changes.major('meta-kind-changed', path, `meta member kind changed from ${was.kind} to ${is.kind}`);
      if (!was.nullable && is.nullable)
        changes.major('meta-made-nullable', path, 'meta member made nullable: clients may now read null');
      if (was.nullable && !is.nullable) changes.minor('meta-made-non-nullable', path, 'meta member never null now');
    }
  }
}

/** Attributes and relationships share one namespace of member names. */
function compareMembers(changes: Changes, o: ResourceDescription, n: ResourceDescription): void {
  const type = o.type;
  const oldAttributes = byName(o.attributes);
  const newAttributes = byName(n.attributes);
  const oldRelationships = byName(o.relationships);
  const newRelationships = byName(n.relationships);
  const creates = n.endpoints.some((e) => e.kind === 'create');
  const names = [
    ...new Set([...o.attributes, ...o.relationships, ...n.attributes, ...n.relationships].map((m) => m.name)),
  ];
  for (const name of names) {
    const path = `${type}.${name}`;
    const before = oldAttributes.get(name) ?? oldRelationships.get(name);
    const after = newAttributes.get(name) ?? newRelationships.get(name);
    const what = (member: Attribute | Relationship) => ('kind' in member ? 'attribute' : 'relationship');
    if (before && !after) {
      changes.major(`${what(before)}-removed`, path, `${what(before)} "${name}" removed`);
    } else if (!before && after) {
      if (after.required && creates)
        changes.major(
          `required-${what(after)}-added`,
          path,
          `${what(after)} "${name}" added, required on create: creates without it are refused`,
        );
      else changes.minor(`${what(after)}-added`, path, `${what(after)} "${name}" added`);
    } else if (before && after) {
      if (what(before) !== what(after))
        changes.major('member-kind-changed', path, `"${name}" changed from ${what(before)} to ${what(after)}`);
      else if ('kind' in before && 'kind' in after) compareAttribute(changes, path, before, after);
      else compareRelationship(changes, path, before as Relationship, after as Relationship);
    }
  }
}

/** What attributes and relationships share: writable, required, visibility. */
function compareField(
  changes: Changes,
  path: string,
  what: 'attribute' | 'relationship',
  o: Attribute | Relationship,
  n: Attribute | Relationship,
): void {
  if (o.writable && !n.writable)
    changes.major(`${what}-made-read-only`, path, `${what} made read-only: requests that set it are refused`);
  if (!o.writable && n.writable) changes.minor(`${what}-made-writable`, path, `${what} made writable`);
  if (!o.required && n.required)
    changes.major(`${what}-made-required`, path, `${what} made required on create: creates without it are refused`);
  if (o.required && !n.required) changes.minor(`${what}-made-optional`, path, `${what} made optional on create`);
  if (!o.conditional && n.conditional)
    changes.major(
      'member-visibility-added',
      path,
      `${what} given visible()/hidden() callbacks: responses may leave it out (breaking, though it may be intended)`,
    );
  if (o.conditional && !n.conditional)
    changes.minor('member-visibility-removed', path, `${what} no longer has visible()/hidden() callbacks`);
  if (o.writable && n.writable && !o.writePolicy && n.writePolicy)
    changes.major(
      'write-policy-added',
      path,
      `${what} given a writable(policy): writes of it may be refused with 403 (breaking, though it may be intended)`,
    );
  if (o.writePolicy && n.writePolicy === false && n.writable)
    changes.minor('write-policy-removed', path, `${what} writable by every request that may write the resource`);
}

function compareAttribute(changes: Changes, path: string, o: Attribute, n: Attribute): void {
  if (o.kind !== n.kind) {
    changes.major('attribute-kind-changed', path, `attribute kind changed from ${o.kind} to ${n.kind}`);
  } else if (o.kind === 'enum') {
    for (const value of o.enumValues)
      if (!n.enumValues.includes(value))
        changes.major('enum-value-removed', path, `enum value "${value}" removed: requests that send it are refused`);
    for (const value of n.enumValues)
      if (!o.enumValues.includes(value))
        changes.major(
          'enum-value-added',
          path,
          `enum value "${value}" added: responses may hold it, which clients matching every known value do not expect`,
        );
  }
  if (!o.nullable && n.nullable)
    changes.major('attribute-made-nullable', path, 'attribute made nullable: responses may hold null');
  if (o.nullable && !n.nullable)
    changes.major(
      'attribute-made-non-nullable',
      path,
      'attribute made non-nullable: requests that send null are refused, and clients typed for null change',
    );
  compareField(changes, path, 'attribute', o, n);
  if (!o.validated && n.validated)
    changes.major('validation-added', path, 'custom validation added: values accepted before may be refused');
  if (o.validated && !n.validated) changes.minor('validation-removed', path, 'custom validation removed');
  compareConstraints(changes, path, o.constraints, n.constraints);
}

/** Which way of each bound tightens it: a higher minimum, a lower maximum. */
const BOUNDS = [
  ['minLength', 'up'],
  ['maxLength', 'down'],
  ['min', 'up'],
  ['max', 'down'],
] as const;

function compareConstraints(
  changes: Changes,
  path: string,
  o: Attribute['constraints'],
  n: Attribute['constraints'],
): void {
  for (const [bound, tighter] of BOUNDS) {
    const before = o[bound];
    const after = n[bound];
    if (before === after) continue;
    const tightened =
      after !== undefined && (before === undefined || (tighter === 'up' ? after > before : after < before));
    const message = `${bound} ${show(before)} → ${show(after)}`;
    if (tightened)
      changes.major('constraint-tightened', `${path}.${bound}`, `${message}: values accepted before may be refused`);
    else changes.minor('constraint-loosened', `${path}.${bound}`, message);
  }
  const before = o.pattern && `/${o.pattern.source}/${o.pattern.flags}`;
  const after = n.pattern && `/${n.pattern.source}/${n.pattern.flags}`;
  if (before === after) return;
  // Whether one pattern accepts everything another does is undecidable in general: any new pattern is a tightening.
  if (after !== undefined)
    changes.major(
      'constraint-tightened',
      `${path}.pattern`,
      `pattern ${before ?? 'none'} → ${after}: values accepted before may be refused`,
    );
  else changes.minor('constraint-loosened', `${path}.pattern`, `pattern ${before} removed`);
}

function compareRelationship(changes: Changes, path: string, o: Relationship, n: Relationship): void {
  if (o.cardinality !== n.cardinality)
    changes.major(
      'relationship-cardinality-changed',
      path,
      `relationship changed from to-${o.cardinality} to to-${n.cardinality}`,
    );
  if (o.relatedType !== n.relatedType)
    changes.major('relationship-type-changed', path, `related type changed from ${o.relatedType} to ${n.relatedType}`);
  compareField(changes, path, 'relationship', o, n);
  if (o.includable && !n.includable)
    changes.major('include-removed', path, 'no longer includable: requests with include paths through it are refused');
  if (!o.includable && n.includable) changes.minor('include-added', path, 'made includable');
  if (o.countable && !n.countable)
    changes.major('relationship-count-removed', path, 'no longer countable: withCount naming it is refused');
  if (!o.countable && n.countable) changes.minor('relationship-count-added', path, 'made countable (withCount)');
  if (o.linkage && !n.linkage) changes.major('linkage-removed', path, 'linkage (data) no longer always sent');
  if (!o.linkage && n.linkage) changes.minor('linkage-added', path, 'linkage (data) always sent');
}

function compareEndpoints(changes: Changes, o: ResourceDescription, n: ResourceDescription): void {
  const kinds = [...new Set([...o.endpoints, ...n.endpoints].map((e) => e.kind))];
  for (const kind of kinds) {
    const path = `${o.type}.endpoint.${kind}`;
    const before = o.endpoints.find((e) => e.kind === kind);
    const after = n.endpoints.find((e) => e.kind === kind);
    if (!after) {
      changes.major('endpoint-removed', path, `${kind} endpoint removed`);
      continue;
    }
    if (!before) {
      changes.minor('endpoint-added', path, `${kind} endpoint added`);
      continue;
    }
    compareVisibility(changes, 'endpoint', path, before, after);
    if (before.kind === 'index' && after.kind === 'index') compareIndex(changes, path, before, after);
    if (before.kind === 'create' && after.kind === 'create') {
      if (before.clientIds && !after.clientIds)
        changes.major('client-ids-removed', `${path}.clientIds`, 'client-generated ids no longer accepted');
      if (!before.clientIds && after.clientIds)
        changes.minor('client-ids-added', `${path}.clientIds`, 'client-generated ids accepted');
    }
    if ((before.kind === 'update' || before.kind === 'delete') && before.kind === after.kind) {
      if (!before.requiresIfMatch && after.requiresIfMatch)
        changes.major('if-match-required', `${path}.ifMatch`, 'If-Match now required: requests without it are refused');
      if (before.requiresIfMatch && !after.requiresIfMatch)
        changes.minor('if-match-optional', `${path}.ifMatch`, 'If-Match no longer required');
    }
  }
}

/** Visibility added to what anyone could use: breaking, and reported so, though it is often the point. */
function compareVisibility(
  changes: Changes,
  what: 'endpoint' | 'filter' | 'sort',
  path: string,
  o: { readonly conditional: boolean },
  n: { readonly conditional: boolean },
): void {
  if (!o.conditional && n.conditional)
    changes.major(
      `${what}-visibility-added`,
      path,
      `${what} given visible()/hidden() callbacks: some requests are now refused (breaking, though it may be intended)`,
    );
  if (o.conditional && !n.conditional)
    changes.minor(`${what}-visibility-removed`, path, `${what} no longer has visible()/hidden() callbacks`);
}

function compareIndex(changes: Changes, path: string, o: Index, n: Index): void {
  const before = o.pagination;
  const after = n.pagination;
  if (!before && after)
    changes.major(
      'pagination-added',
      `${path}.page`,
      `collection now paginated (${after.defaultLimit} by default): clients reading it whole see the first page only`,
    );
  if (before && !after)
    changes.major('pagination-removed', `${path}.page`, 'pagination removed: page parameters are refused');
  if (before && after) {
    if (before.defaultLimit !== after.defaultLimit)
      changes.major(
        'default-page-size-changed',
        `${path}.page.defaultLimit`,
        `default page size ${before.defaultLimit} → ${after.defaultLimit}: clients paging without parameters see other pages`,
      );
    if (after.maxLimit < before.maxLimit)
      changes.major(
        'max-page-size-lowered',
        `${path}.page.maxLimit`,
        `max page size ${before.maxLimit} → ${after.maxLimit}: larger pages asked for are cut`,
      );
    if (after.maxLimit > before.maxLimit)
      changes.minor(
        'max-page-size-raised',
        `${path}.page.maxLimit`,
        `max page size ${before.maxLimit} → ${after.maxLimit}`,
      );
  }
  if (o.cursor && !n.cursor)
    changes.major(
      'cursor-pagination-removed',
      `${path}.cursor`,
      'cursor pagination removed: page[size], page[after], page[before] are refused',
    );
  if (!o.cursor && n.cursor) changes.minor('cursor-pagination-added', `${path}.cursor`, 'cursor pagination added');
  if (o.defaultSort !== n.defaultSort)
    changes.major(
      'default-sort-changed',
      `${path}.defaultSort`,
      `default sort ${show(o.defaultSort)} → ${show(n.defaultSort)}: clients paging without a sort see another order`,
    );
  if (o.countable === true && n.countable !== true)
    changes.major(
      'collection-count-removed',
      `${path}.countable`,
      'collections no longer counted for sure (no total, no last link)',
    );
  if (o.countable !== true && n.countable === true)
    changes.minor('collection-count-added', `${path}.countable`, 'collections always counted (total, last link)');
}

/** The operators a filter takes, as the runtime decides them: declared, else by what it compares. */
function operatorsOf(filter: Filter, resource: ResourceDescription, api: ApiDescription): readonly Operator[] {
  if (filter.kind === 'count') return filter.operators ?? COUNT_OPERATORS;
  if (filter.kind !== 'where') return [];
  if (filter.operators) return filter.operators;
  const owner = filter.path
    ? api.resources.find(
        (r) => r.type === resource.relationships.find((rel) => rel.name === filter.path?.relationship)?.relatedType,
      )
    : resource;
  const attribute = owner?.attributes.find((a) => a.name === (filter.path?.attribute ?? filter.field));
  if (attribute) return defaultOperators(attribute.kind, attribute.nullable);
  return defaultOperators('id', !resource.relationships.find((r) => r.name === filter.field)?.required);
}

function compareFilters(changes: Changes, apis: Apis, o: ResourceDescription, n: ResourceDescription): void {
  const before = byName(o.filters);
  const after = byName(n.filters);
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const path = `${o.type}.filter.${name}`;
    const f = before.get(name);
    const g = after.get(name);
    if (!g) {
      changes.major('filter-removed', path, `filter "${name}" removed`);
      continue;
    }
    if (!f) {
      changes.minor('filter-added', path, `filter "${name}" added`);
      continue;
    }
    if (f.kind !== g.kind || f.counts?.relationship !== g.counts?.relationship) {
      changes.major(
        'filter-target-changed',
        path,
        `filter "${name}" now compares another thing (${describeFilter(f)} → ${describeFilter(g)})`,
      );
      continue;
    }
    const was = operatorsOf(f, o, apis.before);
    const is = operatorsOf(g, n, apis.after);
    for (const op of was)
      if (!is.includes(op)) changes.major('operator-removed', `${path}.${op}`, `operator "${op}" removed`);
    for (const op of is)
      if (!was.includes(op)) changes.minor('operator-added', `${path}.${op}`, `operator "${op}" added`);
    if (f.caseInsensitive !== g.caseInsensitive)
      changes.major(
        'filter-case-changed',
        path,
        `text operators now ${g.caseInsensitive ? 'ignore' : 'respect'} letter case: the same request matches other resources`,
      );
    if (f.takesCommaList !== g.takesCommaList)
      changes.major(
        'filter-comma-list-changed',
        path,
        g.takesCommaList ? 'a comma in the value now separates values' : 'a comma in the value is now part of it',
      );
    compareVisibility(changes, 'filter', path, f, g);
    if (f.description !== g.description)
      changes.add(
        'patch',
        'filter-description-changed',
        path,
        `description ${show(f.description)} → ${show(g.description)}`,
      );
  }
}

function describeFilter(filter: Filter): string {
  return filter.kind === 'count' ? `count of ${filter.counts?.relationship}` : filter.kind;
}

function compareSorts(changes: Changes, o: ResourceDescription, n: ResourceDescription): void {
  const before = byName(o.sorts);
  const after = byName(n.sorts);
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const path = `${o.type}.sort.${name}`;
    const s = before.get(name);
    const t = after.get(name);
    if (!t) changes.major('sort-removed', path, `sort "${name}" removed`);
    else if (!s) changes.minor('sort-added', path, `sort "${name}" added`);
    else {
      if (s.kind !== t.kind || s.counts?.relationship !== t.counts?.relationship)
        changes.major('sort-target-changed', path, `sort "${name}" now orders by another thing`);
      compareVisibility(changes, 'sort', path, s, t);
    }
  }
}

function compareExtensions(changes: Changes, before: ApiDescription, after: ApiDescription): void {
  for (const o of before.extensions) {
    const n = after.extensions.find((e) => e.uri === o.uri);
    if (!n) changes.major('extension-removed', o.uri, `extension ${o.uri} removed (was at ${o.path})`);
    else if (n.path !== o.path)
      changes.major('extension-moved', o.uri, `extension ${o.uri} moved from ${o.path} to ${n.path}`);
  }
  for (const n of after.extensions)
    if (!before.extensions.some((e) => e.uri === n.uri))
      changes.minor('extension-added', n.uri, `extension ${n.uri} added at ${n.path}`);
}
