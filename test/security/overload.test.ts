/**
 * Overload, injected for real: clients that go away mid-request (over HTTP, the Node adapter,
 * the Kysely store on SQLite: no data-layer call and no statement follows), the request gate
 * (a full queue and a long wait answer 503 with Retry-After, the cheapest waiting request goes
 * first, a waiting request whose client left is never started) and the cost budget of a read
 * (400 naming `include` or the page size). The load itself: overload-load.test.ts.
 */
import {
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
  request as httpRequest,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Context, DEFAULT_LIMITS, type Limits } from 'jsonapi-gen';
import { toNodeHandler } from 'jsonapi-gen/node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { type DataLayers, createApi } from '../../examples/blog/generated/index.js';
import { memoryStore, memoryTables } from '../../examples/blog/memory.js';
import { seed, seedRows } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { json, jsonError } from '../support/validate.js';

/** Every includable path of articles three relationships deep: the expensive request. */
const EVERY_PATH =
  'author.articles.author,author.articles.comments,author.articles.tags,comments.author.articles,comments.article.author,comments.article.comments,comments.article.tags,tags.articles.author,tags.articles.comments,tags.articles.tags';

/** A promise and what settles it. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A function that records its calls as `name` and runs through `hook`. */
function recorded(
  name: string,
  f: (...args: unknown[]) => unknown,
  self: unknown,
  calls: string[],
  hook: Hook,
): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => {
    calls.push(name);
    return hook(name, args, (...a) => f.apply(self, a));
  };
}

/** Runs a data-layer call: gets its name (`articles.find`, `articles.related.comments`), its arguments and the real method. */
type Hook = (name: string, args: unknown[], real: (...args: unknown[]) => unknown) => unknown;

/** The context a data-layer call was given. */
const contextOf = (args: unknown[]) => args.find((a): a is Context => a instanceof Context)!;

/** The data layers with every call recorded, its relationship loaders (`related`) too, each run through `hook`. */
function counted(layers: DataLayers, calls: string[], hook: Hook = (_n, args, real) => real(...args)): DataLayers {
  const wrapped: Record<string, unknown> = {};
  for (const [type, layer] of Object.entries(layers)) {
    wrapped[type] = new Proxy(layer as object, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof key !== 'string') return value;
        if (key === 'related' && value) {
          const loaders = value as Record<string, (...args: unknown[]) => unknown>;
          return Object.fromEntries(
            Object.entries(loaders).map(([name, load]) => [
              name,
              recorded(`${type}.related.${name}`, load, loaders, calls, hook),
            ]),
          );
        }
        return typeof value === 'function'
          ? recorded(`${type}.${key}`, value as (...args: unknown[]) => unknown, target, calls, hook)
          : value;
      },
    });
  }
  return wrapped as unknown as DataLayers;
}

const servers: Server[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const close of closers.splice(0)) await close();
});

/** Serves `api` with the Node adapter on a free loopback port; `served` resolves with each request's `res` once the adapter is done with it. */
async function listen(
  api: ReturnType<typeof createApi>,
): Promise<{ origin: string; served: Array<{ res: ServerResponse; done: Promise<void> }> }> {
  const handler = toNodeHandler(api);
  const served: Array<{ res: ServerResponse; done: Promise<void> }> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    served.push({ res, done: handler(req, res) });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served };
}

/** A GET the client gives up on when told: `abandon()` destroys its socket. */
function abandonable(url: string): { abandon: () => void; outcome: Promise<string> } {
  const req = httpRequest(url);
  const outcome = new Promise<string>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(`answered ${res.statusCode}`);
    });
    req.on('error', () => resolve('gone'));
  });
  req.end();
  return { abandon: () => req.destroy(), outcome };
}

describe('a client that goes away mid-request (Node adapter, Kysely store on SQLite)', () => {
  /** The demo's API on a seeded SQLite file whose statements are counted; `hook` as in `counted`. */
  async function sqliteApi(hook: Hook) {
    const statements: string[] = [];
    const database = openDatabase({
      log: (event) => void (event.level === 'query' && statements.push(event.query.sql)),
    });
    closers.push(() => database.close());
    await migrate(database.db, 'sqlite');
    await seed(database.db, 20);
    statements.length = 0;
    const calls: string[] = [];
    const onError = vi.fn();
    const api = createApi(counted(createStore(database.db), calls, hook), { onError });
    return { api, calls, statements, onError };
  }

  it('between include levels: the next level is never loaded, no statement runs, nothing is written', async () => {
    const paused = deferred();
    const release = deferred();
    let seen: { aborted: boolean } | undefined;
    const { api, calls, statements, onError } = await sqliteApi(async (name, args, real) => {
      const result = await real(...args);
      // The first include level is loaded; the client leaves before the next one.
      if (name === 'articles.related.comments' && seen === undefined) {
        seen = contextOf(args).signal;
        paused.resolve();
        await release.promise;
      }
      return result;
    });
    const { origin, served } = await listen(api);
    const client = abandonable(`${origin}/articles?include=comments.author&page[limit]=20`);
    await paused.promise;
    const [callsBefore, statementsBefore] = [calls.length, statements.length];
    expect(calls).toContain('articles.related.comments');
    expect(seen!.aborted).toBe(false);
    client.abandon();
    await new Promise<void>((resolve) => served[0]!.res.once('close', () => resolve()));
    release.resolve();
    await served[0]!.done;
    expect(await client.outcome).toBe('gone');
    // The data layer's signal says so; the comments' authors were never asked for.
    expect(seen!.aborted).toBe(true);
    expect(calls.slice(callsBefore)).toEqual([]);
    expect(statements.length).toBe(statementsBefore);
    // No document was written: the adapter had only the runtime's "client gone" (499) to send.
    expect(served[0]!.res.statusCode).toBe(499);
    expect(onError).not.toHaveBeenCalled();
    // The server goes on serving.
    const next = await fetch(`${origin}/articles?include=comments.author&page[limit]=2`);
    expect((await json(next)).included.length).toBeGreaterThan(0);
  });

  it('inside a data-layer call: the Kysely store runs no further statement', async () => {
    const paused = deferred();
    const release = deferred();
    let signal: AbortSignal | undefined;
    const { api, calls, statements, onError } = await sqliteApi(async (name, args, real) => {
      if (name === 'articles.related.author' && signal === undefined) {
        signal = contextOf(args).signal;
        paused.resolve();
        await release.promise;
      }
      return real(...args);
    });
    const { origin, served } = await listen(api);
    const client = abandonable(`${origin}/articles?include=author&page[limit]=20`);
    await paused.promise;
    const statementsBefore = statements.length;
    expect(statementsBefore).toBeGreaterThan(0); // the page was read
    client.abandon();
    await new Promise<void>((resolve) => served[0]!.res.once('close', () => resolve()));
    release.resolve();
    await served[0]!.done;
    expect(signal!.aborted).toBe(true);
    expect(statements.length).toBe(statementsBefore);
    expect(calls.filter((c) => c.includes('.related.'))).toEqual(['articles.related.author']);
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('the request gate', () => {
  /** The demo's API on the in-memory store, `limits` set; `articles.find` waits for `gate` when given. */
  function memoryApi(limits: Partial<Limits>, gate?: Promise<void>) {
    const calls: string[] = [];
    const entered = deferred();
    const layers = counted(memoryStore(memoryTables(seedRows(20))).dataLayers, calls, async (name, args, real) => {
      if (name === 'articles.find' && gate) {
        entered.resolve();
        await gate;
      }
      return real(...args);
    });
    return { api: createApi(layers, { limits }), calls, entered: entered.promise };
  }
  const get = (path: string, init?: RequestInit) => new Request(`http://localhost${path}`, init);

  it('a full queue answers 503 with Retry-After and an errors document; the others are served after', async () => {
    const release = deferred();
    const { api, entered } = memoryApi({ concurrentRequests: 1, queuedRequests: 1 }, release.promise);
    const first = api.fetch(get('/articles/1'));
    await entered;
    const second = api.fetch(get('/tags/1'));
    const third = await api.fetch(get('/tags/2'));
    const refused = await jsonError(third, 503);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(refused.errors[0]).toMatchObject({ status: '503', code: 'server_busy' });
    release.resolve();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
  });

  it('a request that waits longer than queueTimeoutMs: 503', async () => {
    const release = deferred();
    const { api, entered } = memoryApi({ concurrentRequests: 1, queueTimeoutMs: 50 }, release.promise);
    const first = api.fetch(get('/articles/1'));
    await entered;
    const waited = await api.fetch(get('/tags/1'));
    expect(waited.status).toBe(503);
    expect((await json(waited)).errors[0].detail).toContain('waited 50 ms');
    release.resolve();
    expect((await first).status).toBe(200);
  });

  it('the cheapest waiting request goes first; a full queue refuses its most expensive', async () => {
    const release = deferred();
    const { api, calls, entered } = memoryApi({ concurrentRequests: 1, queuedRequests: 2 }, release.promise);
    const first = api.fetch(get('/articles/1'));
    await entered;
    const expensive = api.fetch(get('/comments?include=author,article&page[limit]=100')); // cost 300
    const middling = api.fetch(get('/people?page[limit]=50')); // cost 50
    const cheap = api.fetch(get('/tags/1')); // cost 1: the expensive one gives way
    const refused = await expensive;
    expect(refused.status).toBe(503);
    expect((await json(refused)).errors[0].detail).toContain('all cheaper than this one');
    calls.length = 0;
    release.resolve();
    expect((await first).status).toBe(200);
    expect((await middling).status).toBe(200);
    expect((await cheap).status).toBe(200);
    // tags.find (the cheap one) ran before people's list.
    expect(calls.filter((c) => c === 'tags.find' || c === 'people.results')).toEqual(['tags.find', 'people.results']);
  });

  it('a waiting request whose client went away is never started', async () => {
    const release = deferred();
    const { api, calls, entered } = memoryApi({ concurrentRequests: 1 }, release.promise);
    const first = api.fetch(get('/articles/1'));
    await entered;
    const controller = new AbortController();
    const abandoned = api.fetch(get('/tags/1', { signal: controller.signal }));
    controller.abort();
    release.resolve();
    expect((await first).status).toBe(200);
    expect((await abandoned).status).toBe(499);
    expect(calls).not.toContain('tags.find');
  });

  it('heavy requests start one per turn of the event loop; a cheap one at once', async () => {
    const { api, calls } = memoryApi({ heavyCost: 100 });
    const started = (name: string) => calls.filter((c) => c === name).length;
    const heavy = Array.from({ length: 3 }, () =>
      api.fetch(get('/articles?include=author,comments,tags&page[limit]=50')),
    ); // cost 200, heavy under heavyCost 100
    const cheap = api.fetch(get('/people/1'));
    // However long the promise chains run, no other turn of the event loop comes in between.
    for (let i = 0; i < 500; i++) await Promise.resolve();
    expect(started('articles.query')).toBe(1);
    expect(started('people.find')).toBe(1);
    expect((await Promise.all([...heavy, cheap])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(started('articles.query')).toBe(3);
  });
});

describe('the cost budget of a read', () => {
  const api = (limits: Partial<Limits> = {}) =>
    createApi(memoryStore(memoryTables(seedRows(20))).dataLayers, { limits });
  const get = (path: string) => new Request(`http://localhost${path}`);

  it(`every includable path with page[limit]=50: 400 naming include, the cost, the budget (${DEFAULT_LIMITS.requestCost}) and what to do; doing it passes`, async () => {
    const response = await api().fetch(get(`/articles?include=${EVERY_PATH}&page[limit]=50`));
    const error = (await jsonError(response, 400)).errors[0];
    expect(error).toMatchObject({
      code: 'limit_exceeded',
      source: { parameter: 'include' },
      meta: { limit: DEFAULT_LIMITS.requestCost, cost: 18 * 50 },
    });
    expect(error.detail).toBe(
      `This request costs 900 ((1 + 17 included relationships) × 50 per page), more than the ${DEFAULT_LIMITS.requestCost} allowed: include fewer relationships or ask for a smaller page[limit]`,
    );
    // As the error says: a smaller page, or the budget raised.
    expect((await api().fetch(get(`/articles?include=${EVERY_PATH}&page[limit]=20`))).status).toBe(200);
    expect((await api({ requestCost: 1000 }).fetch(get(`/articles?include=${EVERY_PATH}&page[limit]=50`))).status).toBe(
      200,
    );
  });

  it('a page alone over the budget: 400 naming page[limit] (or page[size])', async () => {
    const small = api({ requestCost: 10 });
    expect((await jsonError(await small.fetch(get('/articles?page[limit]=20')), 400)).errors[0].source).toEqual({
      parameter: 'page[limit]',
    });
    expect((await jsonError(await small.fetch(get('/articles?page[size]=20')), 400)).errors[0].source).toEqual({
      parameter: 'page[size]',
    });
    expect((await small.fetch(get('/articles/1?include=author,tags'))).status).toBe(200);
  });
});
