// 019's WhatsApp endpoints (`/whatsapp-api/...`, http/whatsapp-api.ts) as OpenAPI paths: each POST's JSON body is
// its operation's input (without `user`: the bearer token names the account), each answer 019's shape
// (`{"success", "ans": {"status", "unique", "reason", "message", "api_status"}}`, one-time codes with `data`, the
// template listing `{"success", "templates"}`), with the reasons of docs/whatsapp.md#reasons.
import { findOperation } from '../../operations/index.ts';
import { WA_REASON_TEXT } from '../../domain/whatsapp-reasons.ts';
import { LISTING_PATHS, SENDS } from '../whatsapp-api.ts';
import { IDEMPOTENCY_DESCRIPTION } from '../../operations/idempotency.ts';
import { inputSchema, type JsonSchema } from './json-schema.ts';
import { requestContentSchema } from './requests.ts';

const SUMMARIES: Readonly<Record<string, string>> = {
  send_whatsapp_message: "Send free text to a user inside their 24-hour window (019's send-whatsapp-message)",
  send_whatsapp_template: "Send an approved template with its variables (019's send-whatsapp-template)",
  send_otp_whatsapp:
    "Send a one-time code over WhatsApp, checked by validate_otp with service_type whatsapp (019's send-otp-whatsapp)",
  get_phone_templates: "List a business number's templates in 019's shape (019's get-phone-templates)",
};

const REASON: JsonSchema = {
  type: 'integer',
  description: '0 when accepted, else why it was refused (docs/whatsapp.md#reasons).',
  oneOf: Object.entries(WA_REASON_TEXT).map(([code, text]) => ({
    const: Number(code),
    title: text.en,
    description: text.he,
  })),
};

const ANS: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['OK', 'ERROR'] },
    unique: {
      type: 'string',
      description: "The WhatsApp message's id (what dlr_whatsapp pushes name); blank on a refusal.",
    },
    reason: REASON,
    message: { type: 'string', description: 'What was done, or what was wrong.' },
    api_status: { type: 'integer', description: "The SMS API's status of the same outcome (0: accepted)." },
  },
  required: ['status', 'unique', 'reason', 'message', 'api_status'],
};

const SEND_ANSWER: JsonSchema = {
  type: 'object',
  properties: { success: { type: 'boolean' }, ans: ANS },
  required: ['success', 'ans'],
};

const OTP_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    ...(SEND_ANSWER.properties as JsonSchema),
    data: {
      type: 'object',
      description: "019's envelope, without the code (Yona never returns it).",
      properties: { status: { type: 'integer', description: '0, or the reason' }, message: { type: 'string' } },
      required: ['status', 'message'],
    },
  },
  required: ['success', 'ans', 'data'],
};

const SECURITY = [{ bearer: [] }];

function answer(schema: JsonSchema): JsonSchema {
  return {
    200: {
      description: 'Every answer, accepted or refused (HTTP is always 200): branch on `success` and `ans.reason`.',
      content: { 'application/json': { schema } },
    },
  };
}

/** An operation's body as on /api, without `user` (the token names the account). */
function bodySchema(root: string): JsonSchema {
  const { xml: _xml, ...content } = requestContentSchema(root);
  const { user: _user, ...properties } = content.properties as JsonSchema;
  const required = (content.required as string[]).filter((name) => name !== 'user');
  return {
    ...content,
    properties,
    required,
    description: `The fields of operation \`${root}\` (also callable on /api).`,
  };
}

const IDEMPOTENCY_HEADER_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: IDEMPOTENCY_DESCRIPTION,
};

function send(path: string, root: string): [string, JsonSchema] {
  return [
    `/whatsapp-api/${path}`,
    {
      post: {
        operationId: root,
        summary: SUMMARIES[root],
        security: SECURITY,
        parameters: [IDEMPOTENCY_HEADER_PARAMETER],
        requestBody: { required: true, content: { 'application/json': { schema: bodySchema(root) } } },
        responses: answer(root === 'send_otp_whatsapp' ? OTP_ANSWER : SEND_ANSWER),
      },
    },
  ];
}

function listing(path: string, withTemplate: boolean): [string, JsonSchema] {
  const reply = inputSchema(findOperation('get_phone_templates')!.reply) as { properties: JsonSchema };
  const param = (name: string, description: string) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description,
  });
  return [
    path.replace(/:(\w+)/g, '{$1}'),
    {
      get: {
        operationId: withTemplate ? 'get_phone_template' : 'get_phone_templates',
        summary: withTemplate ? "One template of a business number, in 019's shape" : SUMMARIES.get_phone_templates,
        security: SECURITY,
        parameters: [
          param('phone', 'A business number of the account, international digits.'),
          ...(withTemplate ? [param('templateId', "The template's name.")] : []),
        ],
        responses: answer({
          oneOf: [
            {
              type: 'object',
              title: 'templates',
              properties: { success: { const: true }, templates: reply.properties.templates },
              required: ['success', 'templates'],
            },
            { ...SEND_ANSWER, title: 'refused' },
          ],
        }),
      },
    },
  ];
}

/** The `/whatsapp-api/...` paths. */
export function whatsappPaths(): Record<string, JsonSchema> {
  return Object.fromEntries([
    ...Object.entries(SENDS).map(([path, root]) => send(path, root)),
    ...LISTING_PATHS.map((path) => listing(path, path.includes(':templateId'))),
  ]);
}
