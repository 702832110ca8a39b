// POST /api and POST /api/test: decode the body, run the operation, reply in the encoding the Accept header
// prefers, else the request's (accept.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { findOperation } from '../operations/index.ts';
import { executeRequest, refusalHint, type AppContext } from '../operations/execute.ts';
import { authenticateToken } from '../operations/auth.ts';
import { ApiError } from '../domain/errors.ts';
import { bearerToken } from './bearer.ts';
import { BodyTooLarge, limitBodyBeforeAuthentication } from './body-limit.ts';
import {
  bodyText,
  decodeBody,
  detectEncoding,
  encodeReply,
  parseProblem,
  replyContentType,
  type Encoding,
  type Reply,
} from './codec.ts';
import { replyEncoding } from './accept.ts';
import { refuseUnsafeText } from './input-guard.ts';
import { IDEMPOTENCY_HEADER } from '../operations/idempotency.ts';
import { inHebrew, prefersHebrew } from './language.ts';
import type { Metrics } from './metrics.ts';
import type { Logger } from '../logger.ts';
import { statusText, type RequestStatus } from '../domain/status.ts';

// The Content-Type header as the client sent it (fastify refuses empty and malformed ones before any parser runs).
const sentContentType = new WeakMap<FastifyRequest, string | undefined>();
const NEUTRAL_CONTENT_TYPE = 'application/octet-stream';
const EMPTY = Buffer.alloc(0);

/** Keeps the client's Content-Type for the codec and gives fastify one it always accepts (we sniff instead). */
const keepContentType: onRequestHookHandler = (request, _reply, done) => {
  const headers = request.raw.headers;
  sentContentType.set(request, headers['content-type']);
  if (headers['content-type'] !== undefined) headers['content-type'] = NEUTRAL_CONTENT_TYPE;
  done();
};

function contentTypeOf(request: FastifyRequest): string | undefined {
  return sentContentType.has(request) ? sentContentType.get(request) : request.headers['content-type'];
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  root: string,
  body: Reply,
  requested: Encoding,
): FastifyReply {
  const encoding = replyEncoding(request.headers.accept, requested);
  reply.header('vary', 'Accept');
  const language = request.headers['accept-language']; // parsed only when sent
  if (language !== undefined && prefersHebrew(language)) {
    body = inHebrew(body, root);
    reply.header('content-language', 'he');
  }
  return reply
    .code(200)
    .header('content-type', replyContentType(encoding))
    .send(encodeReply(root, body, encoding));
}

let currentBatch: Promise<void> | undefined;

/**
 * Resolves after this turn of the event loop, together with every request that arrived in it. Requests run
 * in batches: the I/O phase reads and parses all that arrived, then their operations run back to back in
 * one callback, and on the embedded store share one group commit at its end. Run one by one between other
 * sockets' HTTP parsing, the same code cost 1.3-1.5x as much CPU (the caches were cold for each).
 */
function batchOfThisTurn(): Promise<void> {
  return (currentBatch ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      currentBatch = undefined;
      resolve();
    }),
  ));
}

// The account a request names (user.username), as far as it can be read: for the log, never its password.
function claimedAccount(doc: Record<string, unknown> | undefined): string | undefined {
  const user = (Array.isArray(doc?.user) ? doc.user[0] : doc?.user) as { username?: unknown } | undefined;
  const name = Array.isArray(user?.username) ? user.username[0] : user?.username;
  return typeof name === 'string' && name.trim() !== '' ? name.trim().slice(0, 64) : undefined;
}

/**
 * One info line per refused request (docs/logs.md, event api.refused): the operation, the account named, the
 * client address, the status, its catalogue text for the operation and the operator's hint when there is one;
 * never the token, a password, a code or the body.
 */
function logRefusal(
  logger: Logger,
  request: FastifyRequest,
  operation: string,
  status: number,
  account?: string,
  hint?: string,
): void {
  logger.info(
    {
      event: 'api.refused',
      operation,
      account,
      client: request.ip,
      status,
      text: statusText(status as RequestStatus, operation),
      hint,
    },
    'api request refused',
  );
}

/** A header's value (the first, when sent twice). */
function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The names in a request's raw headers (name, value, name, value, ...), as sent. */
function headerNames(raw: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < raw.length; i += 2) names.push(raw[i]);
  return names;
}

/** Registers the API routes. */
export function registerApiRoutes(app: FastifyInstance, ctx: AppContext, metrics: Metrics, logger: Logger): void {
  const handle = (dryRun: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const started = process.hrtime.bigint();
    const raw = Buffer.isBuffer(request.body) ? request.body : EMPTY;
    const contentType = contentTypeOf(request);
    await batchOfThisTurn();
    const text = bodyText(raw, contentType);
    const encoding = detectEncoding(contentType, text.ok ? text.text : raw.toString('latin1'));
    const decoded = text.ok ? await decodeBody(text.text, encoding) : text;
    let root = 'response';
    let result: Reply;
    const unsafe = decoded.ok ? refuseUnsafeText(decoded.root, decoded.doc) : undefined;
    if (!decoded.ok) {
      result = { status: decoded.status, message: decoded.reason };
    } else if (unsafe) {
      root = decoded.root;
      result = { status: unsafe.status, message: unsafe.reason };
    } else {
      root = decoded.root;
      result = await executeRequest(ctx, {
        root,
        doc: decoded.doc,
        token: bearerToken(request.headers.authorization),
        ip: request.ip,
        dryRun,
        secure: request.protocol === 'https',
        idempotencyKey: headerText(request.headers[IDEMPOTENCY_HEADER]),
        headerNames: headerNames(request.raw.rawHeaders),
      });
    }
    const label = findOperation(root) ? root : 'unknown';
    metrics.recordApiRequest(label, result.status, Number(process.hrtime.bigint() - started) / 1e9);
    if (result.status !== 0)
      logRefusal(
        logger,
        request,
        label,
        result.status,
        decoded.ok ? claimedAccount(decoded.doc) : undefined,
        refusalHint(result),
      );
    return send(request, reply, root, result, encoding);
  };
  const validToken = (token: string) =>
    authenticateToken(ctx.store.db, token, ctx.clock()).then(
      () => true,
      (err) => (err instanceof ApiError ? false : Promise.reject(err)),
    );
  const options = {
    onRequest: keepContentType,
    preParsing: limitBodyBeforeAuthentication(ctx.config.bodyLimitWithoutToken, validToken),
  };
  app.post('/api', options, handle(false));
  app.post('/api/test', options, handle(true));
}

/** Errors raised before the handler (body too large, aborted upload) still answer HTTP 200 with a status. */
export function apiErrorReply(
  request: FastifyRequest,
  reply: FastifyReply,
  error: { statusCode?: number; message: string },
  bodyLimit: number,
  logger: Logger,
): FastifyReply {
  logRefusal(logger, request, 'unknown', 1);
  const encoding = detectEncoding(contentTypeOf(request), '');
  const message =
    error.statusCode === 413 && !(error instanceof BodyTooLarge)
      ? parseProblem(`body larger than ${bodyLimit} bytes`)
      : parseProblem(error.message);
  return send(request, reply, 'response', { status: 1, message }, encoding);
}
