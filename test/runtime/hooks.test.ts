/**
 * Lifecycle hooks, field write policies and a resource's validation on real Requests, over an
 * in-memory store whose transaction restores a snapshot on failure: `saving` changes or refuses
 * a write before anything is stored, `saved`/`deleted` run only after commit (for Atomic
 * Operations, after the whole batch), their failures go to `onError`.
 */
import { describe, expect, it } from 'vitest';
import {
  Attribute,
  Create,
  Delete,
  JsonApi,
  JsonApiError,
  Show,
  ToMany,
  ToOne,
  Update,
  atomic,
  defineResource,
  type ResourceDefinition,
  type WriteEndpoint,
} from 'jsonapi-gen';

type Row = { id: number; title: string; body: string | null; ownerId: number | null };
const JSONAPI = 'application/vnd.api+json';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

/** A transaction over in-memory rows: `save` copies them at its start, `restore` puts the copy back when it fails. */
function snapshots<T>(save: () => T, restore: (saved: T) => void, log: string[]) {
  return async <R>(run: () => Promise<R>): Promise<R> => {
    const saved = save();
    log.push('begin');
    try {
      const result = await run();
      log.push('commit');
      return result;
    } catch (error) {
      restore(saved);
      log.push('rollback');
      throw error;
    }
  };
}

function host(endpoints: { create?: Create; update?: Update; del?: Delete }, extra: Partial<ResourceDefinition> = {}) {
  let notes: Row[] = [{ id: 1, title: 'First', body: 'one', ownerId: 1 }];
  const log: string[] = [];
  const errors: unknown[] = [];
  const api = new JsonApi({
    extensions: [atomic()],
    onError: (error) => errors.push(error),
    transaction: snapshots(
      () => structuredClone(notes),
      (saved) => (notes = saved),
      log,
    ),
  });
  api.resource({
    ...defineResource({
      type: 'people',
      fields: [Attribute.make('name')],
      endpoints: [Show.make()],
    }),
    find: (id) => (id === '1' || id === '2' ? { id: Number(id), name: 'p' } : null),
  });
  api.resource({
    ...defineResource({
      type: 'notes',
      fields: [
        Attribute.make('title').type('string').writable().required(),
        Attribute.make('body')
          .type('string')
          .nullable()
          .writable((note: Row | undefined, ctx) =>
            note === undefined ? true : String(note.ownerId) === ctx.getAttribute('user'),
          ),
        ToOne.make('owner')
          .type('people')
          .writable((note: Row | undefined, ctx) => note === undefined || ctx.getAttribute('user') === 'admin'),
      ],
      endpoints: [
        Show.make(),
        endpoints.create ?? Create.make(),
        endpoints.update ?? Update.make(),
        endpoints.del ?? Delete.make(),
      ],
      validate: (values, stored: Row | undefined) =>
        values.attributes.title === 'same as body' && (values.attributes.body ?? stored?.body) === 'same as body'
          ? [{ detail: 'title and body must differ', pointer: '/data/attributes/title' }]
          : [],
    }),
    find: (id) => notes.find((n) => String(n.id) === id) ?? null,
    create: (values) => {
      const owner = values.relationships.owner as { id: string } | null | undefined;
      const row: Row = {
        id: Math.max(0, ...notes.map((n) => n.id)) + 1,
        title: values.attributes.title as string,
        body: (values.attributes.body as string | null | undefined) ?? null,
        ownerId: owner ? Number(owner.id) : null,
      };
      log.push(`create ${row.title}`);
      if (row.title === 'explode') throw new Error('the disk is full');
      notes.push(row);
      return row;
    },
    update: (model: Row, values) => {
      log.push(`update ${model.id}`);
      Object.assign(model, values.attributes);
      return model;
    },
    delete: (model: Row) => {
      log.push(`delete ${model.id}`);
      notes = notes.filter((n) => n !== model);
    },
    loadRelated: (_relationship, models: Row[]) => models.map((m) => (m.ownerId ? { id: m.ownerId, name: 'p' } : null)),
    ...extra,
  });
  const send = async (method: string, path: string, body?: unknown, user?: string, type = JSONAPI) => {
    const response = await api.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: { accept: type, ...(body !== undefined && { 'content-type': type }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
      { attributes: user === undefined ? {} : { user } },
    );
    const text = await response.text();
    return { status: response.status, doc: text ? (JSON.parse(text) as Record<string, any>) : undefined };
  };
  return { api, send, log, errors, notes: () => notes };
}

const note = (title: string, body?: string | null) => ({
  data: { type: 'notes', attributes: { title, ...(body !== undefined && { body }) } },
});

describe('saving hooks', () => {
  it('run inside the transaction before the store writes, and may change the values', async () => {
    const { send, log } = host({
      create: Create.make().saving((values) => {
        log.push('saving');
        return {
          ...values,
          attributes: { ...values.attributes, title: String(values.attributes.title).toUpperCase() },
        };
      }),
    });
    const created = await send('POST', '/notes', note('quiet'));
    expect(created.status).toBe(201);
    expect(created.doc!.data.attributes.title).toBe('QUIET');
    expect(log).toEqual(['begin', 'saving', 'create QUIET', 'commit']);
  });

  it('refuse the write with the problems they return, or the JsonApiError they throw: nothing is written', async () => {
    const problems = host({
      create: Create.make().saving(() => [{ detail: 'no', pointer: '/data/attributes/title', code: 'nope' }]),
    });
    const refused = await problems.send('POST', '/notes', note('x'));
    expect(refused.status).toBe(422);
    expect(refused.doc!.errors).toMatchObject([{ code: 'nope', source: { pointer: '/data/attributes/title' } }]);
    const thrown = host({
      update: Update.make().saving((_values, model: Row) => {
        throw new JsonApiError(409, { detail: `note ${model.id} is locked` });
      }),
    });
    const locked = await thrown.send('PATCH', '/notes/1', {
      data: { type: 'notes', id: '1', attributes: { title: 'y' } },
    });
    expect(locked.status).toBe(409);
    expect(thrown.notes()[0]!.title).toBe('First');
    expect([...problems.log, ...thrown.log].filter((l) => /^(create|update)/.test(l))).toEqual([]);
  });

  it('may fill in a required member the client left out; one still missing is 422 required', async () => {
    const filled = host({
      create: Create.make().saving((values, ctx) =>
        ctx.getAttribute('user') ? { ...values, attributes: { ...values.attributes, title: 'untitled' } } : undefined,
      ),
    });
    const body = { data: { type: 'notes', attributes: { body: 'text' } } };
    expect((await filled.send('POST', '/notes', body, '1')).doc!.data.attributes.title).toBe('untitled');
    const missing = await filled.send('POST', '/notes', body);
    expect(missing.status).toBe(422);
    expect(missing.doc!.errors).toMatchObject([{ code: 'required', source: { pointer: '/data/attributes' } }]);
  });

  it('deleting refuses a delete with its problems, before the store deletes', async () => {
    const { send, log } = host({ del: Delete.make().deleting((model: Row) => [{ detail: `keep ${model.title}` }]) });
    const refused = await send('DELETE', '/notes/1');
    expect(refused.status).toBe(422);
    expect(refused.doc!.errors).toMatchObject([{ detail: 'keep First', source: { pointer: '/data' } }]);
    expect(log).toEqual(['begin', 'rollback']);
  });
});

describe('saved and deleted hooks', () => {
  const recording = () => {
    const seen: string[] = [];
    const endpoints = {
      create: Create.make().saved((model: Row) => void seen.push(`saved ${model.title}`)),
      update: Update.make().saved((model: Row) => void seen.push(`updated ${model.title}`)),
      del: Delete.make().deleted((model: Row) => void seen.push(`deleted ${model.id}`)),
    };
    return { seen, endpoints };
  };

  it('run after commit, with the model written', async () => {
    const { seen, endpoints } = recording();
    const h = host(endpoints);
    endpoints.create.saved(() => void h.log.push('after'));
    expect((await h.send('POST', '/notes', note('new'))).status).toBe(201);
    expect(h.log).toEqual(['begin', 'create new', 'commit', 'after']);
    await h.send('PATCH', '/notes/1', { data: { type: 'notes', id: '1', attributes: { title: 'changed' } } });
    await h.send('DELETE', '/notes/1');
    expect(seen).toEqual(['saved new', 'updated changed', 'deleted 1']);
  });

  it('never run for a write that was rolled back', async () => {
    const { seen, endpoints } = recording();
    const h = host(endpoints);
    expect((await h.send('POST', '/notes', note('explode'))).status).toBe(500);
    expect(h.log).toEqual(['begin', 'create explode', 'rollback']);
    expect(seen).toEqual([]);
  });

  it('report a failure to onError; the committed write is answered as such', async () => {
    const h = host({
      create: Create.make().saved(() => {
        throw new Error('the mailer is down');
      }),
    });
    const created = await h.send('POST', '/notes', note('kept'));
    expect(created.status).toBe(201);
    expect(h.notes().map((n) => n.title)).toContain('kept');
    expect(h.errors).toMatchObject([{ message: 'the mailer is down' }]);
  });

  it('inside Atomic Operations: saving sees lids resolved, saved runs after the whole batch', async () => {
    const { seen, endpoints } = recording();
    const h = host(endpoints);
    const savingSaw: unknown[] = [];
    endpoints.update.saving((values) => void savingSaw.push(values.relationships.owner));
    endpoints.create.saved(() => void h.log.push('after'));
    const batch = {
      'atomic:operations': [
        { op: 'add', data: { type: 'notes', lid: 'n', attributes: { title: 'a' } } },
        {
          op: 'update',
          data: { type: 'notes', lid: 'n', relationships: { owner: { data: { type: 'people', id: '2' } } } },
        },
      ],
    };
    expect((await h.send('POST', '/operations', batch, 'admin', ATOMIC)).status).toBe(200);
    expect(h.log).toEqual(['begin', 'create a', 'update 2', 'commit', 'after']);
    expect(savingSaw).toEqual([{ type: 'people', id: '2' }]);
    expect(seen).toEqual(['saved a', 'updated a']);
  });

  it('inside Atomic Operations: a failing later operation runs no saved hook', async () => {
    const { seen, endpoints } = recording();
    const h = host(endpoints);
    const batch = {
      'atomic:operations': [
        { op: 'add', data: { type: 'notes', attributes: { title: 'first' } } },
        { op: 'add', data: { type: 'notes', attributes: { title: 'explode' } } },
      ],
    };
    expect((await h.send('POST', '/operations', batch, undefined, ATOMIC)).status).toBe(500);
    expect(seen).toEqual([]);
    expect(h.notes().map((n) => n.title)).toEqual(['First']);
  });
});

describe('field write policies', () => {
  it('see the stored model on update: 403 read_only at the member refused', async () => {
    const h = host({});
    const edit = { data: { type: 'notes', id: '1', attributes: { body: 'new' } } };
    const refused = await h.send('PATCH', '/notes/1', edit, '2');
    expect(refused.status).toBe(403);
    expect(refused.doc!.errors).toMatchObject([{ code: 'read_only', source: { pointer: '/data/attributes/body' } }]);
    expect((await h.send('PATCH', '/notes/1', edit, '1')).status).toBe(200);
  });

  it('get no model on create', async () => {
    const h = host({});
    expect((await h.send('POST', '/notes', note('mine', 'text'), '2')).status).toBe(201);
  });

  it('hold on relationship URLs and inside Atomic Operations', async () => {
    const h = host({});
    const owner = { data: { type: 'people', id: '2' } };
    const url = await h.send('PATCH', '/notes/1/relationships/owner', owner, '1');
    expect(url.status).toBe(403);
    expect(url.doc!.errors).toMatchObject([{ code: 'read_only' }]);
    expect((await h.send('PATCH', '/notes/1/relationships/owner', owner, 'admin')).status).toBe(204);
    const batch = {
      'atomic:operations': [{ op: 'update', data: { type: 'notes', id: '1', relationships: { owner } } }],
    };
    const inBatch = await h.send('POST', '/operations', batch, '1', ATOMIC);
    expect(inBatch.status).toBe(403);
    expect(inBatch.doc!.errors).toMatchObject([
      { code: 'read_only', source: { pointer: '/atomic:operations/0/data/relationships/owner' } },
    ]);
  });
});

describe('resource validation', () => {
  it('sees the values sent and the stored model; 422 at the pointer it gives', async () => {
    const h = host({});
    await h.send('PATCH', '/notes/1', { data: { type: 'notes', id: '1', attributes: { body: 'same as body' } } }, '1');
    const refused = await h.send('PATCH', '/notes/1', {
      data: { type: 'notes', id: '1', attributes: { title: 'same as body' } },
    });
    expect(refused.status).toBe(422);
    expect(refused.doc!.errors).toMatchObject([
      { code: 'invalid_value', source: { pointer: '/data/attributes/title' } },
    ]);
    expect(h.notes()[0]!.title).toBe('First');
    expect((await h.send('POST', '/notes', note('same as body', 'same as body'))).status).toBe(422);
  });
});

/**
 * A board whose to-many `members` (people 1 to 5) the relationship URL adds to and removes from;
 * `log` says which data-layer method wrote.
 */
function boards(update: Update, validate?: ResourceDefinition['validate']) {
  let members = ['1', '2'];
  const log: string[] = [];
  const api = new JsonApi({
    transaction: snapshots(
      () => [...members],
      (saved) => (members = saved),
      log,
    ),
  });
  const person = (id: string) => ({ id: Number(id), name: `p${id}` });
  api.resource({
    ...defineResource({ type: 'people', fields: [Attribute.make('name')], endpoints: [Show.make()] }),
    find: (id) => (['1', '2', '3', '4', '5'].includes(id) ? person(id) : null),
  });
  api.resource({
    ...defineResource({
      type: 'boards',
      fields: [Attribute.make('name'), ToMany.make('members').type('people').writable()],
      endpoints: [Show.make(), update],
      ...(validate && { validate }),
    }),
    find: (id) => (id === '1' ? { id: 1, name: 'Board' } : null),
    loadRelated: (_relationship, models: unknown[]) => {
      log.push('load');
      return models.map(() => members.map(person));
    },
    update: (model, values) => {
      members = (values.relationships.members as { id: string }[]).map((m) => m.id);
      log.push(`update ${members.join(',')}`);
      return model;
    },
    addToRelationship: (_model, _relationship, added) => {
      members.push(...added.map((m) => m.id));
      log.push(`add ${added.map((m) => m.id).join(',')}`);
    },
    removeFromRelationship: (_model, _relationship, removed) => {
      const gone = new Set(removed.map((m) => m.id));
      members = members.filter((id) => !gone.has(id));
      log.push(`remove ${removed.map((m) => m.id).join(',')}`);
    },
  });
  const send = async (method: 'POST' | 'DELETE', ids: string[]) => {
    const response = await api.fetch(
      new Request('http://localhost/boards/1/relationships/members', {
        method,
        headers: { accept: JSONAPI, 'content-type': JSONAPI },
        body: JSON.stringify({ data: ids.map((id) => ({ type: 'people', id })) }),
      }),
    );
    const text = await response.text();
    return { status: response.status, doc: text ? (JSON.parse(text) as Record<string, any>) : undefined };
  };
  return { send, log, members: () => members };
}

describe('adding to and removing from a to-many relationship', () => {
  const ids = (values: { relationships: Record<string, unknown> }) =>
    (values.relationships.members as { id: string }[]).map((m) => m.id);

  it('is validated, and seen by saving hooks, as the set of members it leaves; saved runs after commit', async () => {
    const seen: string[] = [];
    const update = Update.make()
      .saving((values) => void seen.push(`saving ${ids(values).join(',')}`))
      .saved((model: { name: string }) => void seen.push(`saved ${model.name}`));
    const b = boards(update, (values) =>
      ids(values).length > 3 ? [{ detail: 'at most 3 members', pointer: '/data', code: 'too_many' }] : [],
    );
    expect((await b.send('POST', ['2', '3'])).status).toBe(204);
    expect((await b.send('DELETE', ['1'])).status).toBe(204);
    expect(seen).toEqual(['saving 1,2,3', 'saved Board', 'saving 2,3', 'saved Board']);
    // The store adds and removes only the members named.
    expect(b.log).toEqual(['begin', 'load', 'add 3', 'commit', 'begin', 'load', 'remove 1', 'commit']);
    const refused = await b.send('POST', ['4', '5']);
    expect(refused.status).toBe(422);
    expect(refused.doc!.errors).toMatchObject([{ code: 'too_many', source: { pointer: '/data' } }]);
    expect(b.members()).toEqual(['2', '3']);
    expect(seen).toHaveLength(4);
  });

  it('writes the values a saving hook answers as a replacement', async () => {
    const update = Update.make().saving((values) => ({
      ...values,
      relationships: { members: [...(values.relationships.members as []), { type: 'people', id: '5' }] },
    }));
    const b = boards(update);
    expect((await b.send('POST', ['3'])).status).toBe(204);
    expect(b.log).toEqual(['begin', 'load', 'update 1,2,3,5', 'commit']);
    expect(b.members()).toEqual(['1', '2', '3', '5']);
    // Values changed in place count as answered.
    const inPlace = boards(Update.make().saving((values) => void (values.relationships.members as object[]).pop()));
    expect((await inPlace.send('POST', ['3', '4'])).status).toBe(204);
    expect(inPlace.log).toEqual(['begin', 'load', 'update 1,2,3', 'commit']);
  });

  it('without validation or saving hooks, reads no members to remove some', async () => {
    const b = boards(Update.make());
    expect((await b.send('DELETE', ['2', '4'])).status).toBe(204);
    expect(b.log).toEqual(['begin', 'remove 2,4', 'commit']);
    expect(b.members()).toEqual(['1']);
  });
});

// Only for the type: an Update is a WriteEndpoint.
export type Checked = Update extends WriteEndpoint ? true : false;
