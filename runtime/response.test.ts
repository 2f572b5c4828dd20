import { describe, expect, it } from 'vitest';
import { noContent, responseParts, stringResponse, withoutBody } from './response.js';

const parts = { status: 201, headers: { 'content-type': 'application/vnd.api+json', location: '/x/1' }, body: '{"a":1}' };

describe('stringResponse', () => {
  it('is a Response: instanceof, status, headers, body, clone', async () => {
    const response = stringResponse(parts);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('location')).toBe('/x/1');
    const copy = response.clone();
    expect(await response.json()).toEqual({ a: 1 });
    expect(response.bodyUsed).toBe(true);
    expect(await copy.text()).toBe('{"a":1}');
    await expect(response.text()).rejects.toThrow();
  });

  it('hands its parts to an adapter until something reads its headers or body', async () => {
    const response = stringResponse(parts);
    void response.status;
    expect(responseParts(response)).toEqual(parts);
    response.headers.set('x-added', 'by a wrapper');
    // From now on the Response counts: the adapter must not write the stale parts.
    expect(responseParts(response)).toBeUndefined();
    expect(response.headers.get('x-added')).toBe('by a wrapper');
    expect(await response.text()).toBe('{"a":1}');
  });

  it('works where platform code copies it: new Response(body, response) and Response.prototype methods', async () => {
    const response = stringResponse(parts);
    const copy = new Response(response.body, response);
    expect(copy.status).toBe(201);
    expect(copy.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(await copy.text()).toBe('{"a":1}');
    expect(await Response.prototype.text.call(stringResponse(parts))).toBe('{"a":1}');
  });

  it('withoutBody keeps status and headers; noContent is an empty 204', async () => {
    const head = withoutBody(stringResponse(parts));
    expect(head.status).toBe(201);
    expect(head.body).toBeNull();
    expect(head.headers.get('location')).toBe('/x/1');
    expect(responseParts(withoutBody(stringResponse(parts)))).toEqual({ ...parts, body: null });
    const empty = noContent();
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
    expect(withoutBody(new Response('x', { status: 202, headers: { 'x-a': 'b' } })).headers.get('x-a')).toBe('b');
  });
});
