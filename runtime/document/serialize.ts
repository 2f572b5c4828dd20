import { MAY_NEED_ESCAPE } from '../core/json-text.js';
import type { TopLevelDocument } from '../core/vocabulary.js';

/**
 * A resource object the `DocumentBuilder` made: its members are set in the order the JSON reads
 * (type, id, attributes, relationships, links, meta), its relationship objects hold `links`, then
 * `data` (identifiers the builder made), then `meta.count` (a number), and nothing else is ever added. `documentJson` writes
 * it by that shape instead of walking it as `JSON.stringify` does.
 */
export class BuiltResource {
  declare attributes?: Record<string, unknown>;
  declare relationships?: Record<string, BuiltRelationship>;
  declare links: { self: string };
  declare meta?: Record<string, unknown>;
  /** Its links hold nothing JSON escapes (the builder checked their parts): written without a look. */
  readonly #plainLinks: boolean;

  constructor(
    readonly type: string,
    readonly id: string,
    plainLinks = false,
  ) {
    this.#plainLinks = plainLinks;
  }

  /** Whether `resource`'s links may be written without a look (for `documentJson`; the flag is private so that JSON never shows it). */
  static plainLinks(resource: BuiltResource): boolean {
    return resource.#plainLinks;
  }
}

interface BuiltRelationship {
  links: { self: string; related: string };
  data?: { type: string; id: string } | Array<{ type: string; id: string }> | null;
  meta?: { count: number };
}

/** A string as JSON: most have nothing to escape and are only quoted. */
function stringJson(text: string): string {
  return MAY_NEED_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** A link the builder made; `plain` when its parts were checked. */
function linkJson(link: string, plain: boolean): string {
  return plain ? `"${link}"` : stringJson(link);
}

/** Member names as JSON with their colon, by name: documents repeat the same few. */
const names = new Map<string, string>();
const MAX_NAMES = 4096;

function nameJson(name: string): string {
  let json = names.get(name);
  if (json === undefined) {
    json = `${stringJson(name)}:`;
    if (names.size < MAX_NAMES) names.set(name, json);
  }
  return json;
}

/** Resource types as JSON, by type: every identifier repeats one. */
const types = new Map<string, string>();

function typeJson(type: string): string {
  let json = types.get(type);
  if (json === undefined) {
    json = stringJson(type);
    if (types.size < MAX_NAMES) types.set(type, json);
  }
  return json;
}

const hasOwn = Object.hasOwn;
const getPrototypeOf = Object.getPrototypeOf;
const OBJECT_PROTOTYPE = Object.prototype;

/** Any value under `key`, as `JSON.stringify` writes it there; undefined where it leaves the member out. */
function valueJson(value: unknown, key: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return stringJson(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      // toJSON is called with the member's name, and what it gives is written without a second look for one.
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return memberValueJson(value, key);
      return isPlain(value) ? membersJson(value as Record<string, unknown>) : JSON.stringify(value);
    }
    default:
      // undefined, functions and symbols (left out), bigints (JSON.stringify throws, as it should).
      return JSON.stringify(value);
  }
}

/** What `JSON.stringify` writes for `value` as the member `key` of an object: undefined where it leaves the member out. */
function memberValueJson(value: unknown, key: string): string | undefined {
  const json = JSON.stringify({ [key]: value });
  return json === '{}' ? undefined : json.slice(nameJson(key).length + 1, -1);
}

/** An object with no prototype but Object's (or none), so its own enumerable members are all `JSON.stringify` writes. */
function isPlain(value: object): boolean {
  const prototype: unknown = getPrototypeOf(value);
  return (prototype === OBJECT_PROTOTYPE || prototype === null) && !Array.isArray(value);
}

/** A plain object's members, as `JSON.stringify` writes them. */
function membersJson(object: Record<string, unknown>): string {
  let json = '';
  for (const name in object) {
    if (!hasOwn(object, name)) continue;
    const value = valueJson(object[name], name);
    if (value === undefined) continue;
    json += (json === '' ? '{' : ',') + nameJson(name) + value;
  }
  return json === '' ? '{}' : `${json}}`;
}

function identifierJson(identifier: { type: string; id: string }): string {
  return `{"type":${typeJson(identifier.type)},"id":${stringJson(identifier.id)}}`;
}

function relationshipsJson(relationships: Record<string, BuiltRelationship>, plain: boolean): string {
  let json = '';
  for (const name in relationships) {
    if (!hasOwn(relationships, name)) continue;
    const { links, data, meta } = relationships[name]!;
    json += `${json === '' ? '{' : ','}${nameJson(name)}{"links":{"self":${linkJson(links.self, plain)},"related":${linkJson(links.related, plain)}}`;
    if (data === null) json += ',"data":null';
    else if (data !== undefined && !Array.isArray(data)) json += `,"data":${identifierJson(data)}`;
    else if (data !== undefined) {
      json += ',"data":[';
      for (let i = 0; i < data.length; i++) json += (i === 0 ? '' : ',') + identifierJson(data[i]!);
      json += ']';
    }
    // A count is a finite number (the builder made it with Number()); JSON.stringify writes NaN as null.
    json += meta === undefined ? '}' : `,"meta":{"count":${JSON.stringify(meta.count)}}}`;
  }
  return json === '' ? '{}' : `${json}}`;
}

function resourceJson(resource: BuiltResource): string {
  const plain = BuiltResource.plainLinks(resource);
  let json = `{"type":${typeJson(resource.type)},"id":${stringJson(resource.id)}`;
  if (resource.attributes !== undefined) {
    const attributes = valueJson(resource.attributes, 'attributes');
    if (attributes !== undefined) json += `,"attributes":${attributes}`;
  }
  if (resource.relationships !== undefined)
    json += `,"relationships":${relationshipsJson(resource.relationships, plain)}`;
  json += `,"links":{"self":${linkJson(resource.links.self, plain)}}`;
  if (resource.meta !== undefined) json += `,"meta":${valueJson(resource.meta, 'meta') ?? '{}'}`;
  return `${json}}`;
}

/** Primary data or included resources: the builder's resource objects by their shape, anything else as `JSON.stringify` writes it. */
function dataJson(data: unknown, key: string): string | undefined {
  if (data instanceof BuiltResource) return resourceJson(data);
  if (!Array.isArray(data)) return valueJson(data, key);
  let json = '[';
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    json +=
      (i === 0 ? '' : ',') +
      (item instanceof BuiltResource ? resourceJson(item) : (valueJson(item, String(i)) ?? 'null'));
  }
  return `${json}]`;
}

/**
 * The JSON text of a top-level document, exactly as `JSON.stringify(document)` writes it, for
 * about two thirds of the cost: Node 20's `JSON.stringify` spends some 40 instructions a byte,
 * and a document here is mostly the builder's resource objects, whose shape is known. Strings
 * that may need escaping, and every value of another shape, go to `JSON.stringify`.
 *
 * @example
 * documentJson({ jsonapi: { version: '1.1' }, data: { type: 'tags', id: '1', attributes: { name: 'ts' } } });
 * // '{"jsonapi":{"version":"1.1"},"data":{"type":"tags","id":"1","attributes":{"name":"ts"}}}'
 */
export function documentJson(document: TopLevelDocument): string {
  let json = '';
  for (const name in document) {
    if (!hasOwn(document, name)) continue;
    const value: unknown = document[name as keyof TopLevelDocument];
    const member = name === 'data' || name === 'included' ? dataJson(value, name) : valueJson(value, name);
    if (member === undefined) continue;
    json += (json === '' ? '{' : ',') + nameJson(name) + member;
  }
  return json === '' ? '{}' : `${json}}`;
}
