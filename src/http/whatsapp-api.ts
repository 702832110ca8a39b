// 019's WhatsApp API on both listeners: `POST /whatsapp-api/send-whatsapp-message`, `.../send-whatsapp-template`,
// `.../send-otp-whatsapp` (JSON bodies) and `GET /whatsapp-api/get-phone-templates/:phone/:templateId?`, with the
// SMS API's bearer tokens, IP allowlist and statuses. Each runs its operation through the runner (as the token's
// account) and answers in the shape 019's clients read, always HTTP 200: `{"success", "ans": {"status", "unique",
// "reason", "message"}}` (docs/whatsapp.md#reasons), the template listing as `{"success", "templates"}`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { reasonOfReply, WA_REASON } from '../domain/whatsapp-reasons.ts';
import { authenticateToken } from '../operations/auth.ts';
import { executeRequest, refusalHint, type AppContext } from '../operations/execute.ts';
import { IDEMPOTENCY_HEADER } from '../operations/idempotency.ts';
import type { Reply } from '../operations/types.ts';
import type { Logger } from '../logger.ts';
import { bearerToken } from './bearer.ts';
import { refuseUnsafeText } from './input-guard.ts';

/** The operation each POST path runs. */
export const SENDS: Readonly<Record<string, string>> = {
  'send-whatsapp-message': 'send_whatsapp_message',
  'send-whatsapp-template': 'send_whatsapp_template',
  'send-otp-whatsapp': 'send_otp_whatsapp',
};

/** The template listing's paths (its template id is optional). */
export const LISTING_PATHS = [
  '/whatsapp-api/get-phone-templates/:phone',
  '/whatsapp-api/get-phone-templates/:phone/:templateId',
] as const;

/** A reply in 019's WhatsApp shape. */
export function wireReply(root: string, reply: Reply): Record<string, unknown> {
  const reason = reasonOfReply(reply);
  const ok = reply.status === 0;
  const message = typeof reply.message === 'string' ? reply.message : '';
  if (root === 'get_phone_templates' && ok) return { success: true, templates: reply.templates ?? [] };
  const ans = {
    status: ok ? 'OK' : 'ERROR',
    unique: typeof reply.unique === 'string' ? reply.unique : '',
    reason,
    message,
    api_status: reply.status,
  };
  const out: Record<string, unknown> = { success: ok, ans };
  if (root === 'send_otp_whatsapp') out.data = { status: ok ? 0 : reason, message };
  return out;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Registers the WhatsApp API's routes. */
export function registerWhatsappApi(app: FastifyInstance, ctx: AppContext, logger: Logger): void {
  const run = async (
    request: FastifyRequest,
    reply: FastifyReply,
    root: string,
    body: Record<string, unknown> | undefined,
  ) => {
    const answer = (r: Reply) => {
      if (r.status !== 0)
        logger.info(
          { event: 'api.refused', operation: root, client: request.ip, status: r.status, hint: refusalHint(r) },
          'api request refused',
        );
      return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(wireReply(root, r));
    };
    if (body === undefined)
      return answer({ status: 1, message: 'There was a problem parsing your JSON', reason: WA_REASON.FIELD });
    const unsafe = refuseUnsafeText(root, body);
    if (unsafe) return answer({ status: unsafe.status, message: unsafe.reason });
    const token = bearerToken(request.headers.authorization);
    let username: string;
    try {
      username = (await authenticateToken(ctx.store.db, token, ctx.clock())).username;
    } catch (err) {
      if (err instanceof ApiError) return answer({ status: err.status, message: err.message });
      throw err;
    }
    const result = await executeRequest(ctx, {
      root,
      doc: { ...body, user: { username } },
      token,
      ip: request.ip,
      dryRun: false,
      secure: request.protocol === 'https',
      idempotencyKey: headerText(request.headers[IDEMPOTENCY_HEADER]),
    });
    return answer(result);
  };

  for (const [path, root] of Object.entries(SENDS)) {
    app.post(`/whatsapp-api/${path}`, async (request, reply) => run(request, reply, root, jsonBody(request.body)));
  }
  const listing = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as { phone: string; templateId?: string };
    const doc: Record<string, unknown> = { phone: params.phone };
    if (params.templateId) doc.templateId = params.templateId;
    return run(request, reply, 'get_phone_templates', doc);
  };
  for (const path of LISTING_PATHS) app.get(path, listing);
}

/** A JSON object body, or undefined (not JSON, or not an object). */
function jsonBody(raw: unknown): Record<string, unknown> | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  try {
    const parsed = JSON.parse(raw.toString('utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
