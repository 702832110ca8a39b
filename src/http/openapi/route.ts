// GET /openapi.json: the document, built once per process.
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './document.ts';

export function registerOpenApiRoute(app: FastifyInstance): void {
  const body = JSON.stringify(openApiDocument());
  app.get('/openapi.json', (_request, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(body),
  );
}
