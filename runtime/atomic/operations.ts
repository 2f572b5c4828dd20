import type { HandleOptions } from '../dsl/context.js';
import { BadRequestError, JsonApiError, JsonApiErrors } from '../core/errors.js';
import { MEDIA_TYPE } from '../http/negotiate.js';
import type { Limits } from '../core/limits.js';
import { readJson } from '../write/body.js';
import { escape } from '../write/payload.js';
import { matchRoute } from '../http/router.js';
import { type HttpRequest, memoryRequest } from '../http/request.js';
import { type HttpResult, NO_CONTENT } from '../http/result.js';

/** The Atomic Operations extension's URI. */
export const ATOMIC_EXT = 'https://jsonapi.org/ext/atomic';

/** Options of `atomic()`. */
export interface AtomicOptions {
  /** Where operations are posted, below the API's base path. Default `/operations`. */
  path?: string;
  /** Requests with more operations are refused before any runs. Default: the API's `limits.operations`. */
  maxOperations?: number;
}

/** An extension as `JsonApi` takes it. */
export interface Extension {
  readonly uri: string;
  /** The path (below the base path) the extension serves. */
  readonly path: string;
  /** Serves a request to `path`; `serve` runs one REST request through the API's pipeline. */
  handle(request: HttpRequest, options: HandleOptions, api: ExtensionHost): Promise<HttpResult>;
}

/** What an extension may use of the API. */
export interface ExtensionHost {
  basePath: string;
  limits: Readonly<Limits>;
  /** Runs a request through the pipeline, inside the current transaction. */
  serve(request: HttpRequest, options: HandleOptions): Promise<HttpResult>;
  /** Runs `run` as one transaction (when the API has one). */
  transaction<T>(run: () => Promise<T>, request: HttpRequest, options: HandleOptions): Promise<T>;
  respond(document: Record<string, unknown>, status: number): HttpResult;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Target {
  type: string;
  id?: string;
  lid?: string;
  relationship?: string;
  /** Where in the operation the target was named (for error pointers). */
  pointer: string;
}

interface Operation {
  op: 'add' | 'update' | 'remove';
  target: Target | undefined;
  data: unknown;
  pointer: string;
  /** `meta.ifMatch`: the ETag the client read, sent on as `If-Match` (optimistic concurrency per operation). */
  ifMatch?: string;
}

/**
 * The JSON:API Atomic Operations extension: `POST /operations` runs its operations in order,
 * in one transaction, each through the same endpoint as its REST twin.
 *
 * @example
 * import { kyselyTransaction } from '@jsonapi-gen/kysely';
 * import { db } from './db.js';
 * const api = new JsonApi({ extensions: [atomic()], transaction: kyselyTransaction(db) });
 */
export function atomic(options: AtomicOptions = {}): Extension {
  const path = options.path ?? '/operations';
  return {
    uri: ATOMIC_EXT,
    path,
    async handle(request, handleOptions, host) {
      const body = await readJson(request, host.limits);
      const operations = readOperations(body, options.maxOperations ?? host.limits.operations, host.basePath);
      checkLids(operations);
      const results = await host.transaction(
        async () => {
          const lids = new Map<string, string>();
          const results: Json[] = [];
          for (const operation of operations) results.push(await run(operation, lids, request, handleOptions, host));
          return results;
        },
        request,
        handleOptions,
      );
      if (results.every((r) => !('data' in r))) return NO_CONTENT;
      return host.respond({ 'atomic:results': results }, 200);
    },
  };
}

function malformed(pointer: string, detail: string): BadRequestError {
  return new BadRequestError({ detail, source: { pointer }, code: 'invalid_operation' });
}

/** Checks the document and every operation's shape before anything runs (400 with a pointer). */
function readOperations(body: unknown, max: number, basePath: string): Operation[] {
  if (!isObject(body)) throw malformed('', 'The request document must be a JSON object');
  for (const member of Object.keys(body)) {
    if (!['atomic:operations', 'meta', 'jsonapi', 'links'].includes(member)) {
      throw malformed(`/${escape(member)}`, `"${member}" is not a member an operations document may have`);
    }
  }
  const list = body['atomic:operations'];
  if (!Array.isArray(list) || list.length === 0)
    throw malformed(Array.isArray(list) ? '/atomic:operations' : '', 'atomic:operations must be a non-empty array');
  if (list.length > max) {
    throw new BadRequestError({
      detail: `At most ${max} operations may be sent in one request; this one has ${list.length}`,
      source: { pointer: '/atomic:operations' },
      code: 'too_many_operations',
      meta: { limit: max },
    });
  }
  return list.map((raw, i) => {
    const pointer = `/atomic:operations/${i}`;
    if (!isObject(raw)) throw malformed(pointer, 'An operation must be a JSON object');
    for (const member of Object.keys(raw)) {
      if (!['op', 'ref', 'href', 'data', 'meta'].includes(member))
        throw malformed(`${pointer}/${escape(member)}`, `"${member}" is not a member of an operation`);
    }
    if (!('op' in raw)) throw malformed(pointer, 'The operation has no "op"');
    if (raw.op !== 'add' && raw.op !== 'update' && raw.op !== 'remove')
      throw malformed(`${pointer}/op`, `"op" must be add, update or remove`);
    if ('ref' in raw && 'href' in raw) throw malformed(pointer, 'An operation may have "ref" or "href", not both');
    const target =
      'ref' in raw
        ? readRef(raw.ref, `${pointer}/ref`)
        : 'href' in raw
          ? readHref(raw.href, `${pointer}/href`, basePath)
          : undefined;
    const ifMatch = isObject(raw.meta) ? raw.meta.ifMatch : undefined;
    if (
      ifMatch !== undefined &&
      (typeof ifMatch !== 'string' || (raw.op === 'add' && target?.relationship === undefined))
    ) {
      throw malformed(
        `${pointer}/meta/ifMatch`,
        'meta.ifMatch is the ETag of the resource an update or remove changes, as a string',
      );
    }
    const op: Operation = { op: raw.op, target, data: raw.data, pointer, ...(ifMatch !== undefined && { ifMatch }) };
    if (target?.relationship !== undefined) {
      if (!('data' in raw)) throw malformed(pointer, 'A relationship operation needs "data"');
    } else if (op.op === 'remove') {
      if (!target || (target.id === undefined && target.lid === undefined))
        throw malformed(pointer, 'remove needs a "ref" or "href" naming the resource');
    } else {
      if (!isObject(raw.data))
        throw malformed('data' in raw ? `${pointer}/data` : pointer, `${op.op} needs a resource object as "data"`);
      if (op.op === 'add' && target && (target.id !== undefined || target.lid !== undefined)) {
        throw malformed(
          `${pointer}/${'ref' in raw ? 'ref' : 'href'}`,
          'add targets a collection or a relationship, not a resource',
        );
      }
    }
    return op;
  });
}

function readRef(ref: unknown, pointer: string): Target {
  if (!isObject(ref)) throw malformed(pointer, '"ref" must be an object');
  for (const member of Object.keys(ref)) {
    if (!['type', 'id', 'lid', 'relationship'].includes(member))
      throw malformed(`${pointer}/${escape(member)}`, `"${member}" is not a member of "ref"`);
  }
  if (typeof ref.type !== 'string') throw malformed(pointer, '"ref" needs a string "type"');
  if ('id' in ref === 'lid' in ref) throw malformed(pointer, '"ref" needs exactly one of "id" and "lid"');
  for (const member of ['id', 'lid', 'relationship'] as const) {
    if (member in ref && typeof ref[member] !== 'string')
      throw malformed(`${pointer}/${member}`, `"${member}" must be a string`);
  }
  return {
    type: ref.type,
    id: ref.id as string | undefined,
    lid: ref.lid as string | undefined,
    relationship: ref.relationship as string | undefined,
    pointer,
  };
}

function readHref(href: unknown, pointer: string, basePath: string): Target {
  if (typeof href !== 'string') throw malformed(pointer, '"href" must be a string');
  let route: ReturnType<typeof matchRoute> = null;
  try {
    route = matchRoute(new URL(href, 'http://base.invalid').pathname, basePath);
  } catch {
    // an undecodable path names nothing, like an unknown one
  }
  if (!route || (route.relationship !== undefined && !route.linkage)) {
    throw malformed(pointer, `"${href}" does not name a collection, a resource or a relationship of this API`);
  }
  return { type: route.type, id: route.id, relationship: route.relationship, pointer };
}

/** Every `lid` used must have been assigned by an earlier `add` (400 before anything runs). */
function checkLids(operations: readonly Operation[]): void {
  const declared = new Set<string>();
  const use = (type: unknown, lid: unknown, pointer: string) => {
    if (typeof lid === 'string' && !declared.has(`${String(type)}\u0000${lid}`))
      throw malformed(pointer, `lid "${lid}" of ${String(type)} is not assigned by an earlier operation`);
  };
  const identifiers = (value: unknown, pointer: string) => {
    const list = Array.isArray(value) ? value : [value];
    list.forEach((item, i) => {
      if (isObject(item) && 'lid' in item)
        use(item.type, item.lid, `${Array.isArray(value) ? `${pointer}/${i}` : pointer}/lid`);
    });
  };
  for (const operation of operations) {
    const { target, data, pointer } = operation;
    if (target?.lid !== undefined) use(target.type, target.lid, `${target.pointer}/lid`);
    if (target?.relationship !== undefined) {
      identifiers(data, `${pointer}/data`);
      continue;
    }
    if (!isObject(data)) continue;
    if (operation.op === 'update' && 'lid' in data) use(data.type, data.lid, `${pointer}/data/lid`);
    if (isObject(data.relationships)) {
      for (const [name, member] of Object.entries(data.relationships)) {
        if (isObject(member)) identifiers(member.data, `${pointer}/data/relationships/${escape(name)}/data`);
      }
    }
    if (operation.op === 'add' && typeof data.lid === 'string') declared.add(`${String(data.type)}\u0000${data.lid}`);
  }
}

/** Replaces `lid` by the id it was given, in an identifier or a list of them. */
function resolve(value: unknown, lids: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => resolve(item, lids));
  if (!isObject(value) || !('lid' in value)) return value;
  const { lid, ...rest } = value;
  return { ...rest, id: lids.get(`${String(value.type)}\u0000${String(lid)}`) };
}

async function run(
  operation: Operation,
  lids: Map<string, string>,
  request: HttpRequest,
  options: HandleOptions,
  host: ExtensionHost,
): Promise<Json> {
  const { op, pointer } = operation;
  const target = operation.target;
  const id = target?.lid !== undefined ? lids.get(`${target.type}\u0000${target.lid}`) : target?.id;
  let data = operation.data;
  if (target?.relationship === undefined && isObject(data)) {
    const copy: Json = { ...data };
    if (op === 'update' && 'lid' in copy) {
      copy.id = lids.get(`${String(copy.type)}\u0000${String(copy.lid)}`);
      delete copy.lid;
    }
    if (isObject(copy.relationships)) {
      copy.relationships = Object.fromEntries(
        Object.entries(copy.relationships).map(([name, member]) => [
          name,
          isObject(member) ? { ...member, data: resolve(member.data, lids) } : member,
        ]),
      );
    }
    data = copy;
  } else {
    data = resolve(data, lids);
  }

  let method: string;
  let path: string;
  const type = target?.type ?? (isObject(data) && typeof data.type === 'string' ? data.type : '');
  const enc = encodeURIComponent;
  if (target?.relationship !== undefined) {
    method = op === 'add' ? 'POST' : op === 'update' ? 'PATCH' : 'DELETE';
    path = `/${enc(type)}/${enc(id ?? '')}/relationships/${enc(target.relationship)}`;
  } else if (op === 'add') {
    method = 'POST';
    path = `/${enc(type)}`;
  } else {
    const resourceId = id ?? (isObject(data) && typeof data.id === 'string' ? data.id : undefined);
    if (resourceId === undefined)
      throw malformed(pointer, `${op} needs the id of the resource, in "ref", "href" or "data"`);
    method = op === 'update' ? 'PATCH' : 'DELETE';
    path = `/${enc(type)}/${enc(resourceId)}`;
  }
  const url = new URL(request.url);
  const twin = memoryRequest(
    method,
    `${url.origin}${host.basePath}${path}`,
    {
      'content-type': MEDIA_TYPE,
      accept: MEDIA_TYPE,
      ...(operation.ifMatch !== undefined && { 'if-match': operation.ifMatch }),
    },
    method !== 'DELETE' || target?.relationship !== undefined ? JSON.stringify({ data }) : undefined,
  );
  let result: HttpResult;
  try {
    result = await host.serve(twin, options);
  } catch (thrown) {
    throw relocate(thrown, pointer);
  }
  if (result.status === 204 || result.body === null) return {};
  const document = JSON.parse(result.body) as Json;
  if (op === 'add' && target?.relationship === undefined && isObject(data) && typeof data.lid === 'string') {
    const created = document.data as Json;
    lids.set(`${String(created.type)}\u0000${data.lid}`, created.id as string);
  }
  return target?.relationship === undefined && op !== 'remove' ? { data: document.data } : {};
}

/** Errors of an operation's REST twin point into the operation: `/data/x` → `/atomic:operations/i/data/x`. */
function relocate(thrown: unknown, pointer: string): unknown {
  const move = (error: JsonApiError) =>
    new JsonApiError(error.status, {
      ...(error.code !== undefined && { code: error.code }),
      ...(error.detail !== undefined && { detail: error.detail }),
      ...(error.meta !== undefined && { meta: error.meta }),
      source: { pointer: error.source?.pointer !== undefined ? pointer + error.source.pointer : pointer },
    });
  if (thrown instanceof JsonApiErrors) return new JsonApiErrors(thrown.errors.map(move));
  if (thrown instanceof JsonApiError) return move(thrown);
  return thrown;
}
