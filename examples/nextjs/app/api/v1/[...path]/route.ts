/**
 * JSON:API in a Next.js App Router route handler: this catch-all route receives every request
 * under /api/v1 as a Fetch Request and returns the API's Response. The API's basePath is
 * `/api/v1`, matching this folder, so links carry it.
 */
import { createApi } from '../../../../../shared/api.js';

const api = createApi();

export const GET = (request: Request) => api.fetch(request);
export const HEAD = (request: Request) => api.fetch(request);
export const POST = (request: Request) => api.fetch(request);
export const PATCH = (request: Request) => api.fetch(request);
export const DELETE = (request: Request) => api.fetch(request);
