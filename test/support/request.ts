/** The media type of JSON:API documents. */
export const JSON_API = 'application/vnd.api+json';

/**
 * A Fetch `Request` for `path` on `http://localhost`, Hono style: no server needed.
 *
 * @example
 * await api.fetch(request('/articles?sort=-title'));
 * await api.fetch(request('/articles/1', { method: 'DELETE' }));
 */
export function request(path: string, init?: RequestInit): Request {
  return new Request('http://localhost' + path, init);
}
