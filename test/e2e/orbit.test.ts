/**
 * A maintained JSON:API client speaks Atomic Operations to the demo: Orbit's @orbit/jsonapi
 * (0.17) serializes Orbit record operations into operation objects and deserializes the
 * resources of `atomic:results` back into records. (Its JSONAPISource does not send atomic
 * requests itself, and its serializers know no `lid`, so new records are linked to existing
 * ones by the remote ids its key map learns from results.) SQLite only: the client side is
 * what is under test; the server side is covered on both databases by atomic.test.ts.
 */
import { buildJSONAPISerializerFor, JSONAPISerializers } from '@orbit/jsonapi';
import { RecordKeyMap, RecordSchema, type InitializedRecord, type RecordOperation } from '@orbit/records';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../examples/blog/server.js';
import { expectValidAtomicDocument } from '../support/atomic-schema.js';

const ATOMIC = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

describe('Orbit (@orbit/jsonapi) drives the demo through Atomic Operations', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, seed: 10, databaseUrl: null });
  });
  afterAll(async () => demo?.close());

  const schema = new RecordSchema({
    models: {
      people: { keys: { remoteId: {} }, attributes: { name: { type: 'string' } } },
      tags: { keys: { remoteId: {} }, attributes: { name: { type: 'string' } } },
      articles: {
        keys: { remoteId: {} },
        attributes: { title: { type: 'string' }, body: { type: 'string' }, status: { type: 'string' } },
        relationships: { author: { kind: 'hasOne', type: 'people' }, tags: { kind: 'hasMany', type: 'tags' } },
      },
    },
  });
  const keyMap = new RecordKeyMap();
  const serializerFor = buildJSONAPISerializerFor({ schema, keyMap });
  const operation = serializerFor(JSONAPISerializers.ResourceAtomicOperation) as unknown as {
    serialize(op: RecordOperation): unknown;
  };
  const resource = serializerFor(JSONAPISerializers.Resource) as unknown as {
    deserialize(resource: unknown): InitializedRecord;
  };

  async function perform(operations: RecordOperation[], user: string): Promise<InitializedRecord[]> {
    // Orbit 0.17 sends `"ref": { "type": ... }` on add: the extension's text allows a ref only
    // with id or lid, and the demo refuses it (400 at /atomic:operations/i/ref), so drop it.
    const serialized = operations.map((op) => operation.serialize(op) as { op: string; ref?: Record<string, string> });
    for (const op of serialized) if (op.op === 'add' && op.ref && Object.keys(op.ref).join() === 'type') delete op.ref;
    const body = { 'atomic:operations': serialized };
    expectValidAtomicDocument(body);
    const response = await fetch(`${demo.url}/operations`, {
      method: 'POST',
      headers: { 'content-type': ATOMIC, accept: ATOMIC, authorization: `Bearer ${user}` },
      body: JSON.stringify(body),
    });
    if (response.status === 204) return [];
    const document = await response.json();
    expectValidAtomicDocument(document);
    expect(response.status, JSON.stringify(document)).toBe(200);
    return (document['atomic:results'] as Array<{ data?: unknown }>).flatMap((r) =>
      r.data ? [resource.deserialize(r.data)] : [],
    );
  }

  it('sends what Orbit serializes as is: add with a type-only ref is refused with 400 at the ref', async () => {
    const body = {
      'atomic:operations': [
        operation.serialize({ op: 'addRecord', record: { type: 'tags', id: 'x', attributes: { name: 'as is' } } }),
      ],
    };
    const response = await fetch(`${demo.url}/operations`, {
      method: 'POST',
      headers: { 'content-type': ATOMIC, accept: ATOMIC },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].source).toEqual({ pointer: '/atomic:operations/0/ref' });
  });

  it('adds records, learns their remote ids, then updates and relates them', async () => {
    keyMap.pushRecord({ type: 'people', id: 'person-1', keys: { remoteId: '1' } });
    keyMap.pushRecord({ type: 'tags', id: 'tag-2', keys: { remoteId: '2' } });
    const [tag, article] = await perform(
      [
        { op: 'addRecord', record: { type: 'tags', id: 'tag-new', attributes: { name: 'orbit' } } },
        {
          op: 'addRecord',
          record: {
            type: 'articles',
            id: 'article-new',
            attributes: { title: 'Written by Orbit' },
            relationships: {
              author: { data: { type: 'people', id: 'person-1' } },
              tags: { data: [{ type: 'tags', id: 'tag-2' }] },
            },
          },
        },
      ],
      '1',
    );
    expect(tag).toMatchObject({ type: 'tags', attributes: { name: 'orbit' } });
    expect(article).toMatchObject({ type: 'articles', attributes: { title: 'Written by Orbit', status: 'draft' } });
    // Orbit's records carry their remote id in keys; the key map learns it.
    const remote = (record: InitializedRecord) => record.keys!.remoteId!;
    keyMap.pushRecord({ type: 'tags', id: 'tag-new', keys: { remoteId: remote(tag!) } });
    keyMap.pushRecord({ type: 'articles', id: 'article-new', keys: { remoteId: remote(article!) } });

    const [updated] = await perform(
      [
        // (Orbit 0.17 serializes addToRelatedRecords with one identifier as data, not an array,
        // which the extension does not allow; a record update replaces the tags instead.)
        {
          op: 'updateRecord',
          record: {
            type: 'articles',
            id: 'article-new',
            attributes: { status: 'published', body: 'and updated by Orbit' },
            relationships: {
              tags: {
                data: [
                  { type: 'tags', id: 'tag-2' },
                  { type: 'tags', id: 'tag-new' },
                ],
              },
            },
          },
        },
      ],
      '1',
    );
    expect(updated).toMatchObject({ attributes: { status: 'published' } });
    const read = await (await fetch(`${demo.url}/articles/${remote(article!)}?include=tags,author`)).json();
    expect(read.data.attributes).toMatchObject({
      title: 'Written by Orbit',
      status: 'published',
      body: 'and updated by Orbit',
    });
    expect(read.data.relationships.tags.data.map((t: { id: string }) => t.id).sort()).toEqual(
      ['2', remote(tag!)].sort(),
    );
    expect(read.data.relationships.author.data).toEqual({ type: 'people', id: '1' });

    await perform([{ op: 'removeRecord', record: { type: 'articles', id: 'article-new' } }], '1');
    expect((await fetch(`${demo.url}/articles/${remote(article!)}`)).status).toBe(404);
  });
});
