/**
 * The Node adapter scenario that test/adapters/node-versions.test.ts runs on each Node
 * version: plain JavaScript (no TypeScript, no loader), importing the runtime's built output.
 *
 *   node scenario.mjs <dist folder>
 *
 * Serves one in-memory resource on 127.0.0.1 twice, through `toNodeHandler(api)` and through
 * `toNodeHandler((request) => api.fetch(request))` (the Fetch path), sends each the same
 * requests and prints one JSON line: what came back, per handler.
 */
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
const { Attribute, Create, Index, JsonApi, Show, defineResource } = await import(
  pathToFileURL(join(dist, 'index.js')).href
);
const { toNodeHandler } = await import(pathToFileURL(join(dist, 'adapters', 'node.js')).href);

const JSON_API = 'application/vnd.api+json';
/** Request bodies past this many bytes are refused (413). */
const BODY_LIMIT = 1024;

/** A fresh API with its own data: two tags, and tags can be created. */
function createApi() {
  const tags = [
    { id: 1, name: 'news' },
    { id: 2, name: 'tech' },
  ];
  return new JsonApi({ limits: { bodyBytes: BODY_LIMIT } }).resource({
    ...defineResource({
      type: 'tags',
      fields: [Attribute.make('name').type('string').writable().required()],
      endpoints: [Show.make(), Index.make(), Create.make()],
    }),
    find: (id) => tags.find((tag) => String(tag.id) === id),
    query: () => tags,
    results: (rows) => rows,
    create: ({ attributes }) => {
      const tag = { id: tags.length + 1, name: attributes.name };
      tags.push(tag);
      return tag;
    },
  });
}

/** Listens on a free loopback port; resolves with the origin and a close function. */
async function listen(handler) {
  const server = createServer(handler);
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  };
  return { origin, close };
}

/** A raw HTTP/1.1 exchange on its own connection: every byte the server sent until it closed. */
function rawExchange(origin, head) {
  const url = new URL(origin);
  return new Promise((done, fail) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => done(Buffer.concat(chunks)));
    socket.on('error', fail);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer within 5 s to ${head.split('\r\n')[0]}`)));
    socket.write(`${head}\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
  });
}

/** A body that arrives in several chunks without Content-Length (Transfer-Encoding: chunked). */
function chunked(text, parts) {
  const bytes = new TextEncoder().encode(text);
  const size = Math.ceil(bytes.length / parts);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, (offset += size)));
    },
  });
}

const signal = () => AbortSignal.timeout(5_000);

/** The same conversation with a server; what matters of each answer. */
async function conversation(origin) {
  const get = await fetch(`${origin}/tags/2`, { headers: { accept: JSON_API }, signal: signal() });
  const getDoc = await get.json();

  const post = await fetch(`${origin}/tags`, {
    method: 'POST',
    headers: { 'content-type': JSON_API, accept: JSON_API },
    body: JSON.stringify({ data: { type: 'tags', attributes: { name: 'node' } } }),
    signal: signal(),
  });
  const postDoc = await post.json();

  // HEAD over a raw socket: fetch would hide body bytes sent after the headers.
  const headBytes = await rawExchange(origin, 'HEAD /tags/2 HTTP/1.1');
  const split = headBytes.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`HEAD: no complete response head in ${JSON.stringify(headBytes.toString('latin1'))}`);
  const headHead = headBytes.subarray(0, split).toString('latin1').split('\r\n');
  const headHeader = (name) =>
    headHead
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim();

  const missing = await fetch(`${origin}/tags/99`, { signal: signal() });
  const missingDoc = await missing.json();

  const big = JSON.stringify({ data: { type: 'tags', attributes: { name: 'x'.repeat(BODY_LIMIT * 2) } } });
  const tooLarge = await fetch(`${origin}/tags`, {
    method: 'POST',
    headers: { 'content-type': JSON_API },
    body: big,
    signal: signal(),
  });
  const tooLargeDoc = await tooLarge.json();
  const streamed = await fetch(`${origin}/tags`, {
    method: 'POST',
    headers: { 'content-type': JSON_API },
    body: chunked(big, 4),
    duplex: 'half',
    signal: signal(),
  });
  const streamedDoc = await streamed.json();

  const result = {
    get: {
      status: get.status,
      type: get.headers.get('content-type'),
      length: get.headers.get('content-length'),
      data: getDoc.data,
      self: getDoc.links?.self,
    },
    post: {
      status: post.status,
      type: post.headers.get('content-type'),
      location: post.headers.get('location'),
      data: postDoc.data,
    },
    head: {
      statusLine: headHead[0],
      type: headHeader('content-type') ?? null,
      length: headHeader('content-length') ?? null,
      etagAsGet: headHeader('etag') === get.headers.get('etag'),
      bodyBytes: headBytes.length - split - 4,
    },
    notFound: {
      status: missing.status,
      type: missing.headers.get('content-type'),
      errors: missingDoc.errors?.map((e) => e.status),
    },
    tooLarge: {
      status: tooLarge.status,
      type: tooLarge.headers.get('content-type'),
      errors: tooLargeDoc.errors?.map((e) => [e.status, e.code, e.meta?.limit]),
    },
    tooLargeStreamed: {
      status: streamed.status,
      type: streamed.headers.get('content-type'),
      errors: streamedDoc.errors?.map((e) => [e.status, e.code, e.meta?.limit]),
    },
  };
  // The port differs per server and per run: links name the origin as ORIGIN.
  return JSON.parse(JSON.stringify(result).replaceAll(origin, 'ORIGIN'));
}

const results = {};
const errors = [];
const handlers = {
  server: () => toNodeHandler(createApi(), { onError: (error) => errors.push(String(error)) }),
  fetch: () => {
    const api = createApi();
    return toNodeHandler((request) => api.fetch(request), { onError: (error) => errors.push(String(error)) });
  },
};
for (const [name, make] of Object.entries(handlers)) {
  const { origin, close } = await listen(make());
  try {
    results[name] = await conversation(origin);
  } finally {
    await close();
  }
}
console.log(JSON.stringify({ node: process.version, results, errors }));
