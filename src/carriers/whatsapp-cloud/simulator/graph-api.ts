// The simulator's Graph API, as Meta's Cloud API answers it: versioned paths (/v23.0/...), a bearer token on
// every request, POST /{phone-number-id}/messages for texts and templates (and marking a message read),
// GET /{waba-id}/message_templates and GET /{phone-number-id}, and Meta's error body
// {"error":{"message","type","code","error_data","fbtrace_id"}} with its HTTP status.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readJson, send } from '../../simulator/control.ts';
import type { MetaError } from './outcomes.ts';
import type { Addressee, SendContent, WhatsAppSimulator } from './simulator.ts';
import { placeholderCount, type SimulatedTemplate, templateAsGraph } from './templates.ts';
import { isBsuid } from './users.ts';

const MAX_TEXT = 4096;

/** A refusal as Graph answers it. */
class GraphError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    message: string,
    readonly type = 'OAuthException',
    readonly details?: string,
  ) {
    super(message);
  }
}

const invalid = (details: string) => new GraphError(400, 100, '(#100) Invalid parameter', 'OAuthException', details);

const fromMeta = (error: MetaError, httpStatus = 400) =>
  new GraphError(httpStatus, error.code, `(#${error.code}) ${error.title}`, 'OAuthException', error.details);

function answerError(res: ServerResponse, err: GraphError): void {
  send(res, err.httpStatus, {
    error: {
      message: err.message,
      type: err.type,
      code: err.code,
      ...(err.details === undefined ? {} : { error_data: { messaging_product: 'whatsapp', details: err.details } }),
      fbtrace_id: randomBytes(8).toString('base64url'),
    },
  });
}

// The token of the Authorization header (Bearer) or of the access_token query parameter, as Graph takes either.
function checkToken(sim: WhatsAppSimulator, req: IncomingMessage, url: URL): void {
  const header = req.headers.authorization;
  const given = header?.match(/^Bearer\s+(.+)$/i)?.[1] ?? url.searchParams.get('access_token') ?? undefined;
  if (given === undefined) throw new GraphError(401, 104, 'An access token is required to request this resource.');
  if (given !== sim.settings.token)
    throw new GraphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');
}

/** Starts the Graph API on 127.0.0.1:`port` (0: any free port). */
export async function startGraphServer(sim: WhatsAppSimulator, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    route(sim, req, res).catch((err: unknown) => {
      if (err instanceof GraphError) answerError(res, err);
      else answerError(res, new GraphError(500, 1, `An unknown error occurred: ${(err as Error).message}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

async function route(sim: WhatsAppSimulator, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = /^\/v\d+\.\d+\/([^/]+)(?:\/([^/]+))?\/?$/.exec(url.pathname);
  checkToken(sim, req, url);
  if (!path) throw new GraphError(400, 2500, `Unknown path components: ${url.pathname}`);
  const [, node, edge] = path;
  if (req.method === 'POST' && edge === 'messages') return send(res, 200, await sendMessage(sim, node, req));
  if (req.method === 'GET' && edge === 'message_templates') return send(res, 200, listTemplates(sim, url));
  if (req.method === 'GET' && edge === undefined) return send(res, 200, phoneNumber(sim, node));
  throw new GraphError(
    400,
    100,
    `Unsupported ${req.method?.toLowerCase()} request. Object with ID '${node}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    'GraphMethodException',
  );
}

async function sendMessage(sim: WhatsAppSimulator, phoneNumberId: string, req: IncomingMessage): Promise<object> {
  let body: Record<string, unknown>;
  try {
    body = await readJson(req);
  } catch (err) {
    throw invalid(`the body is not a JSON object: ${(err as Error).message}`);
  }
  if (body.messaging_product !== 'whatsapp')
    throw new GraphError(400, 100, '(#100) The parameter messaging_product is required.');
  // Marking a user's message read.
  if (body.status === 'read') {
    if (typeof body.message_id !== 'string')
      throw new GraphError(400, 100, '(#100) The parameter message_id is required.');
    return { success: true };
  }
  const to = addressee(body);
  const answer = sim.send(phoneNumberId, to, content(sim, body));
  if (!answer.ok) throw fromMeta(answer.error, answer.httpStatus);
  const { message, input, user } = answer;
  return {
    messaging_product: 'whatsapp',
    contacts: [{ input, ...('userId' in to ? { user_id: user.userId } : { wa_id: user.waId }) }],
    messages: [{ id: message.id, ...(message.type === 'template' ? { message_status: 'accepted' } : {}) }],
  };
}

// `to` (a phone number, which wins) or `recipient` (a business-scoped user id).
function addressee(body: Record<string, unknown>): Addressee {
  if (typeof body.to === 'string' && body.to !== '') {
    if (!/^\+?[\d\s()-]{6,20}$/.test(body.to)) throw invalid(`to: "${body.to}" is not a phone number`);
    return { phone: body.to };
  }
  if (typeof body.recipient === 'string' && body.recipient !== '') {
    if (!isBsuid(body.recipient)) throw invalid(`recipient: "${body.recipient}" is not a business-scoped user id`);
    return { userId: body.recipient };
  }
  throw new GraphError(400, 100, '(#100) The parameter to is required.');
}

function content(sim: WhatsAppSimulator, body: Record<string, unknown>): SendContent {
  const type = body.type ?? 'text';
  if (type === 'text') {
    const text = body.text as { body?: unknown } | undefined;
    if (typeof text?.body !== 'string' || text.body === '')
      throw new GraphError(400, 100, "(#100) The parameter text['body'] is required.");
    if (text.body.length > MAX_TEXT) throw invalid(`text['body'] must be at most ${MAX_TEXT} characters long`);
    return { type: 'text', body: text.body };
  }
  if (type === 'template') return templateContent(sim, body.template);
  throw new GraphError(
    400,
    131051,
    '(#131051) Unsupported message type',
    'OAuthException',
    `message type ${String(type)} is not supported by the simulator`,
  );
}

function templateContent(sim: WhatsAppSimulator, given: unknown): SendContent {
  const t = given as { name?: unknown; language?: { code?: unknown }; components?: unknown } | undefined;
  if (typeof t?.name !== 'string') throw new GraphError(400, 100, "(#100) The parameter template['name'] is required.");
  if (typeof t.language?.code !== 'string')
    throw new GraphError(400, 100, "(#100) The parameter template['language'] is required.");
  const template: SimulatedTemplate | undefined = sim.templates.find(t.name, t.language.code);
  if (template?.status !== 'APPROVED')
    throw new GraphError(
      404,
      132001,
      '(#132001) Template name does not exist in the translation',
      'OAuthException',
      `template name (${t.name}) does not exist in ${t.language.code}${template ? ` (its status is ${template.status})` : ''}`,
    );
  const variables = bodyParameters(t.components);
  const expected = placeholderCount(template.body);
  if (variables.length !== expected)
    throw new GraphError(
      400,
      132000,
      '(#132000) Number of parameters does not match the expected number of params',
      'OAuthException',
      `body: number of localizable_params (${variables.length}) does not match the expected number of params (${expected})`,
    );
  if (variables.some((v) => /[\n\t]| {5}/.test(v)))
    throw new GraphError(
      400,
      132018,
      '(#132018) There was an issue with the parameters in your template.',
      'OAuthException',
      'Param text cannot have new-line/tab characters or more than 4 consecutive spaces',
    );
  return { type: 'template', template, variables };
}

// The text parameters of the body component, in order.
function bodyParameters(components: unknown): string[] {
  if (components === undefined) return [];
  if (!Array.isArray(components)) throw invalid("template['components'] must be an array");
  const body = components.find((c) => (c as { type?: unknown })?.type === 'body') as
    | { parameters?: unknown }
    | undefined;
  if (!body?.parameters) return [];
  if (!Array.isArray(body.parameters)) throw invalid("the body component's parameters must be an array");
  return body.parameters.map((p: { type?: unknown; text?: unknown }) => {
    if (p?.type !== 'text' || typeof p.text !== 'string')
      throw invalid('only text parameters are supported by the simulator');
    return p.text;
  });
}

// GET /{waba-id}/message_templates: every template (the same library for any account id), filtered by name,
// status and language, `limit` at a time with an `after` cursor.
function listTemplates(sim: WhatsAppSimulator, url: URL): object {
  const q = url.searchParams;
  const all = sim.templates
    .list()
    .filter(
      (t) =>
        (!q.get('name') || t.name === q.get('name')) &&
        (!q.get('status') || t.status === q.get('status')) &&
        (!q.get('language') || t.language === q.get('language')),
    );
  const limit = Math.max(1, Math.min(Number(q.get('limit') ?? 25) || 25, 1000));
  const after = q.get('after');
  const start = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) || 0 : 0;
  const page = all.slice(start, start + limit);
  const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
  return {
    data: page.map(templateAsGraph),
    paging: {
      cursors: { before: cursor(start), after: cursor(start + page.length) },
      ...(start + page.length < all.length
        ? { next: `${url.pathname}?limit=${limit}&after=${cursor(start + page.length)}` }
        : {}),
    },
  };
}

// GET /{phone-number-id}: the number as Meta describes it.
function phoneNumber(sim: WhatsAppSimulator, phoneNumberId: string): object {
  const business = sim.businessOfId(phoneNumberId);
  return {
    verified_name: 'Yona Simulator',
    code_verification_status: 'VERIFIED',
    display_phone_number: business.number,
    quality_rating: 'GREEN',
    platform_type: 'CLOUD_API',
    throughput: { level: 'STANDARD' },
    id: business.phoneNumberId,
  };
}
