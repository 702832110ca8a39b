// GET /api and GET /: where people look first. The API is POST /api with one root element, so a GET there
// answers with that, an example, and where the schema and the docs are, instead of a bare 404.
import type { FastifyInstance } from 'fastify';

/** What GET /api and GET / answer (JSON). */
export const API_GUIDE = {
  service: 'yona',
  api: 'POST /api with one root element naming the operation, in JSON or XML (the 019 SMS API); POST /api/test checks the same body and changes nothing',
  example: {
    method: 'POST',
    path: '/api',
    headers: { Authorization: 'Bearer <your API token>', 'Content-Type': 'application/json' },
    body: { balance: { user: { username: 'alice' } } },
  },
  openapi: '/openapi.json',
  docs: 'docs/api/README.md (operations with examples), docs/statuses.md (status codes) in the Yona distribution',
  console: '/console',
} as const;

/** Registers GET /api and GET /. */
export function registerApiGuide(app: FastifyInstance): void {
  for (const path of ['/', '/api'])
    app.get(path, async (_request, reply) => reply.header('cache-control', 'no-store').send(API_GUIDE));
}
