/**
 * Standard Schema validators (standardschema.dev) on attributes, with a real one: zod 4, which
 * the runtime does not depend on. Its issues become 422s at the attribute; its output (a
 * transform) is what the data layer stores.
 */
import { Attribute, Create, JsonApi, Show, Update, defineResource } from 'jsonapi-gen';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { json } from '../support/validate.js';

type Person = { id: number; email: string; handle: string };

/** The README's example, served over an array. */
function host() {
  const people: Person[] = [{ id: 1, email: 'ada@example.com', handle: 'ada' }];
  const api = new JsonApi().resource({
    ...defineResource({
      type: 'people',
      fields: [
        Attribute.make('email').type('string').writable().required().validate(z.email()),
        Attribute.make('handle').type('string').writable().required().validate(z.string().trim().toLowerCase().min(2)),
      ],
      endpoints: [Show.make(), Create.make(), Update.make()],
    }),
    find: (id: string) => people.find((p) => String(p.id) === id) ?? null,
    create: (values: { attributes: Record<string, unknown> }) => {
      const person = { id: people.length + 1, ...(values.attributes as Omit<Person, 'id'>) };
      people.push(person);
      return person;
    },
    update: (person: Person, values: { attributes: Record<string, unknown> }) =>
      Object.assign(person, values.attributes),
  });
  const send = (method: string, path: string, data: unknown) =>
    api.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({ data }),
      }),
    );
  return { people, send };
}

describe('Standard Schema validation (zod)', () => {
  it('stores the validator output: handle trimmed and lower-cased', async () => {
    const { people, send } = host();
    const response = await send('POST', '/people', {
      type: 'people',
      attributes: { email: 'grace@example.com', handle: '  Grace ' },
    });
    expect(response.status).toBe(201);
    expect((await json(response)).data.attributes.handle).toBe('grace');
    expect(people[1]).toMatchObject({ email: 'grace@example.com', handle: 'grace' });
  });

  it("answers zod's issues as 422s, one per attribute, at its pointer; nothing is stored", async () => {
    const { people, send } = host();
    const response = await send('POST', '/people', {
      type: 'people',
      attributes: { email: 'not an email', handle: ' x ' },
    });
    expect(response.status).toBe(422);
    const errors = (await json(response)).errors as Array<{ source: { pointer: string }; detail: string }>;
    expect(errors.map((e) => e.source.pointer)).toEqual(['/data/attributes/email', '/data/attributes/handle']);
    expect(errors[0]!.detail).toMatch(/^email .*email/i);
    expect(people).toHaveLength(1);
  });

  it('runs on update too, and leaves the resource as it was when refused', async () => {
    const { people, send } = host();
    const refused = await send('PATCH', '/people/1', { type: 'people', id: '1', attributes: { email: 'ada@' } });
    expect(refused.status).toBe(422);
    expect(people[0]!.email).toBe('ada@example.com');
    const updated = await send('PATCH', '/people/1', { type: 'people', id: '1', attributes: { handle: 'ADA_L' } });
    expect(updated.status).toBe(200);
    expect(people[0]!.handle).toBe('ada_l');
  });
});
