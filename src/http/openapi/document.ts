// The OpenAPI 3.1 document of the API: built at start from the operation table (requests, and replies from each
// operation's `reply` schema), the status catalogue and the push builders. Served as GET /openapi.json.
import { IDEMPOTENCY_DESCRIPTION } from '../../operations/idempotency.ts';
import { findOperation, operationNames } from '../../operations/index.ts';
import { jsonRequestSchema, requestComponents, xmlRequestSchema } from './requests.ts';
import { failureStatuses, statusSchema, statusTable } from './statuses.ts';
import { inputSchema, type JsonSchema } from './json-schema.ts';
import { webhooks } from './webhooks.ts';
import { whatsappPaths } from './whatsapp-paths.ts';

/** Component name of an operation's success reply (`sms` -> `smsReply`). */
export const replyComponent = (root: string) => `${root}Reply`;

function replyComponents(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {
    ErrorReply: {
      type: 'object',
      description: 'A failed call: a non-zero status and a message saying what was wrong.',
      properties: { status: statusSchema(failureStatuses()), message: { type: 'string' } },
      required: ['status', 'message'],
    },
  };
  for (const root of operationNames()) {
    const op = findOperation(root)!;
    // As accepted (`io: 'input'`): open objects, as a reply may carry fields its schema does not name.
    const fields = inputSchema(op.reply) as { properties?: Record<string, JsonSchema>; required?: string[] };
    out[replyComponent(root)] = {
      type: 'object',
      title: `${root} reply`,
      properties: {
        status: statusSchema(op.successStatuses ?? [0]),
        message: { type: 'string' },
        ...fields.properties,
      },
      required: ['status', 'message', ...(fields.required ?? [])],
      xml: { name: root },
    };
  }
  return out;
}

const DESCRIPTION = `Every operation is a POST of one document whose single root element names it (\`{"sms": {...}}\` or \`<sms>...</sms>\`).
Bodies are JSON or XML carrying the same document; the reply comes in the request's encoding unless \`Accept\` asks for the other.
Every reply is HTTP 200: the outcome is the integer \`status\` of the body.

Fields are read leniently: a text field may be given as a JSON number, a numeric field as a numeric string, a repeatable element
as a single value or an array; in XML an element with attributes and text, such as \`<phone id="a1">0521234567</phone>\`,
is \`{"$": {"id": "a1"}, "_": "0521234567"}\` in JSON.

Status codes:

${statusTable()}`;

function operation(dryRun: boolean): JsonSchema {
  const replySchema = {
    anyOf: [
      ...operationNames().map((root) => ({ $ref: `#/components/schemas/${replyComponent(root)}` })),
      { $ref: '#/components/schemas/ErrorReply' },
    ],
  };
  return {
    operationId: dryRun ? 'dryRun' : 'call',
    summary: dryRun
      ? 'Check a call without acting: parsed, authenticated and permission-checked, then rolled back'
      : 'Call an operation',
    description: dryRun
      ? 'Answers in the same shape as `/api`, and nothing is sent, charged or changed. A send answers campaign id 0. Keys of the body far from every field of the operation (accepted and ignored, as on `/api`) are listed in `unknown_fields` (`["sms.client_version"]`); a key that nearly matches a field is refused with status 2 on both paths.'
      : 'The root element of the body names the operation.',
    security: [{ bearer: [] }],
    parameters: dryRun
      ? []
      : [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: 255 },
            description: `For sms, bulk, send_otp and updateAmountSub. ${IDEMPOTENCY_DESCRIPTION}`,
          },
        ],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/JsonRequest' } },
        'application/xml': { schema: { $ref: '#/components/schemas/XmlRequest' } },
      },
    },
    responses: {
      200: {
        description: 'Every answer, successful or not; branch on `status` (see the table in the API description).',
        content: { 'application/json': { schema: replySchema }, 'application/xml': { schema: replySchema } },
      },
    },
  };
}

/** The OpenAPI 3.1 document. */
export function openApiDocument(): JsonSchema {
  return {
    openapi: '3.1.0',
    info: { title: 'Yona messaging API', version: '1.0.0', description: DESCRIPTION },
    paths: {
      '/api': { post: operation(false) },
      '/api/test': { post: operation(true) },
      ...whatsappPaths(),
    },
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (from your provider, the console, or getApiToken).',
        },
      },
      schemas: {
        JsonRequest: jsonRequestSchema(),
        XmlRequest: xmlRequestSchema(),
        ...requestComponents(),
        ...replyComponents(),
      },
    },
  };
}
