// One route wrapper for the customer console and the operator console: a route answers only over HTTPS (404 on
// plain HTTP), its query string, form body and path parameters pass the input guard before anything else runs (a
// refusal names the field), and a fault in its handler becomes the console's failure page (logged by the console).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type FieldProblem, readFields, refusedParam } from './console/form-guard.ts';
import { overHttps } from './console/http.ts';

export type Input =
  | { ok: true; query: Record<string, string>; form: URLSearchParams }
  | { ok: false; problem: FieldProblem };

/** The query string, the form body of a POST and the path parameters, through the input guard. */
export function inputOf(request: FastifyRequest): Input {
  const url = request.raw.url ?? request.url;
  const at = url.indexOf('?');
  const query = readFields(Buffer.from(at < 0 ? '' : url.slice(at + 1), 'latin1'), 'query');
  if (!query.ok) return query;
  const param = refusedParam((request.params ?? {}) as Record<string, string>);
  if (param) return { ok: false, problem: param };
  const first: Record<string, string> = {};
  for (const [k, v] of query.fields) if (!Object.hasOwn(first, k)) first[k] = v;
  if (request.method !== 'POST') return { ok: true, query: first, form: new URLSearchParams() };
  const body = request.body;
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : '');
  const form = readFields(raw, 'form', request.headers['content-type']);
  return form.ok ? { ok: true, query: first, form: form.fields } : form;
}

/** What a console gives the wrapper: its request context, its input refusal page and its failure page. */
export interface RouteGuard<B> {
  base(request: FastifyRequest, reply: FastifyReply, input: Input): B;
  refuse(b: B, problem: FieldProblem): FastifyReply;
  failure(b: B, err: unknown): FastifyReply;
}

/** Registers a console route whose handler runs over HTTPS only, on guarded input, with faults answered. */
export function guardedRoute<B>(
  fastify: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  guard: RouteGuard<B>,
  handler: (b: B) => Promise<FastifyReply>,
): void {
  fastify.route({
    method,
    url,
    handler: async (request, reply) => {
      if (!overHttps(request)) return reply.code(404).send({ error: 'Not Found' });
      const input = inputOf(request);
      const b = guard.base(request, reply, input);
      if (!input.ok) return guard.refuse(b, input.problem);
      try {
        return await handler(b);
      } catch (err) {
        return guard.failure(b, err);
      }
    },
  });
}
