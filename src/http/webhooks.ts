// Carriers' webhooks: every API node mounts /webhooks/<protocol>/<carrier>[/<path>] and hands each request, its
// body as raw bytes, to the webhook port (component.ts), which knows the protocols and stores what they read.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebhookIngress } from '../component.ts';

const METHODS = ['GET', 'POST', 'PUT'];

// Header values as one string each (a repeated header joined as node joins it).
function plainHeaders(headers: FastifyRequest['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** Mounts the webhook routes, handing each request to `ingress`. */
export function registerWebhooks(app: FastifyInstance, ingress: WebhookIngress): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as { protocol: string; carrier: string; '*'?: string };
    const query = Object.fromEntries(
      Object.entries((request.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
    const answer = await ingress.receive({
      protocol: params.protocol,
      carrier: params.carrier,
      method: request.method,
      path: (params['*'] ?? '').replace(/^\/+|\/+$/g, ''),
      query,
      headers: plainHeaders(request.headers),
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    });
    reply.code(answer.status);
    if (answer.body === undefined) return reply.send();
    return reply.header('content-type', answer.contentType ?? 'text/plain; charset=utf-8').send(answer.body);
  };
  const options = { method: METHODS, bodyLimit: ingress.maxBodyBytes, handler };
  app.route({ ...options, url: '/webhooks/:protocol/:carrier' });
  app.route({ ...options, url: '/webhooks/:protocol/:carrier/*' });
}
