// POST /api and POST /api/test: decode the body, run the operation, reply in the request's encoding.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findOperation } from '../operations/index.ts';
import { executeRequest, type AppContext } from '../operations/execute.ts';
import { bearerToken } from './auth.ts';
import { decodeBody, detectEncoding, encodeReply, replyContentType, type Encoding, type Reply } from './codec.ts';
import type { Metrics } from './metrics.ts';

function send(reply: FastifyReply, root: string, body: Reply, encoding: Encoding): FastifyReply {
  return reply.code(200).header('content-type', replyContentType(encoding)).send(encodeReply(root, body, encoding));
}

/** Registers the API routes. */
export function registerApiRoutes(app: FastifyInstance, ctx: AppContext, metrics: Metrics): void {
  const handle = (dryRun: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const started = process.hrtime.bigint();
    const body = typeof request.body === 'string' ? request.body : '';
    const encoding = detectEncoding(request.headers['content-type'], body);
    const decoded = await decodeBody(body, encoding);
    let root = 'response';
    let result: Reply;
    if (!decoded.ok) {
      result = { status: decoded.status, message: decoded.reason };
    } else {
      root = decoded.root;
      result = await executeRequest(ctx, {
        root,
        doc: decoded.doc,
        token: bearerToken(request.headers.authorization),
        ip: request.ip,
        dryRun,
      });
    }
    const label = findOperation(root) ? root : 'unknown';
    metrics.apiRequests.inc({ operation: label, status: String(result.status) });
    metrics.apiDuration.observe({ operation: label }, Number(process.hrtime.bigint() - started) / 1e9);
    return send(reply, root, result, encoding);
  };
  app.post('/api', handle(false));
  app.post('/api/test', handle(true));
}

/** Errors raised before the handler (body too large, aborted upload) still answer HTTP 200 with a status. */
export function apiErrorReply(request: FastifyRequest, reply: FastifyReply, error: { statusCode?: number; message: string }, bodyLimit: number): FastifyReply {
  const encoding = detectEncoding(request.headers['content-type'], '');
  const message = error.statusCode === 413
    ? `There was a problem parsing your XML/JSON: body larger than ${bodyLimit} bytes`
    : `There was a problem parsing your XML/JSON: ${error.message}`;
  return send(reply, 'response', { status: 1, message }, encoding);
}
