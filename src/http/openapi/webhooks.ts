// The push bodies as OpenAPI 3.1 webhooks (forms, and JSON for the WhatsApp feeds). Field names come from the builders that fill the pushes
// (domain/push-fields.ts); a field without a description here fails the document's build.
import {
  blacklistFields,
  dlrFields,
  incomingFields,
  JSON_PUSH_TYPES,
  whatsappDlrFields,
  whatsappIncomingFields,
  type PushFields,
} from '../../domain/push-fields.ts';
import type { JsonSchema } from './json-schema.ts';
import { deliveryStatusList } from './statuses.ts';
import { DELIVERY } from '../../domain/status.ts';

const DATE = "When it happened, `dd/mm/yy hh:mm:ss` in the account's time zone.";

const FIELD_MEANINGS: Record<string, Record<string, string>> = {
  dlr: {
    external_id: 'The id given as attribute `id` on `phone` when sending (blank when none was given).',
    status: `Delivery status code: ${deliveryStatusList()}`,
    he_message: 'The delivery status in Hebrew.',
    en_message: 'The delivery status in English.',
    date: DATE,
    phone: 'The destination, international digits (`9725xxxxxxxx`).',
    operaor: 'The carrier (the 019 spelling, without the t); blank when unknown.',
    operator: 'The carrier again, spelled as in polled reports.',
    shipment_id: 'The campaign the message belonged to (`shipment_id` of the send reply).',
  },
  incoming_sms: {
    phone: 'The sender, international digits.',
    dest: "The account's number the message arrived on.",
    message: 'The text received.',
    date: DATE,
  },
  blacklist: {
    dest: 'The blocked number.',
    message: 'A Hebrew note saying the number was removed from the mailing list.',
    date: DATE,
  },
  dlr_whatsapp: {
    hook: '`update`.',
    channel: '`whatsapp`.',
    unique: "Yona's id of the message (`ans.unique` of the WhatsApp endpoints).",
    ack: '`accepted`, `sent`, `delivered`, `read`, `failed`, `expired` or `cancelled` (docs/whatsapp.md).',
    external_id: 'The id given for the recipient when sending (blank when none was given).',
    status: `Delivery status code: ${deliveryStatusList()}`,
    he_message: 'The delivery status in Hebrew.',
    en_message: 'The delivery status in English.',
    error_code: "Meta's error code of a failed message (blank otherwise).",
    date: DATE,
    phone: 'The WhatsApp user, international digits.',
    shipment_id: 'The send the message belonged to.',
  },
  incoming_whatsapp: {
    hook: '`message`.',
    channel: '`whatsapp`.',
    unique: "Meta's id of the message (`wamid...`).",
    phone: 'The user: international digits, or their business-scoped user id when Meta gave no phone.',
    dest: 'The business number the user wrote to.',
    name: "The user's profile name (blank when none).",
    message: 'The text (a reply button or list item: its title).',
    date: DATE,
  },
};

const SAMPLE = { date: 0, timeZone: 'UTC' };
const FIELDS: Record<string, PushFields> = {
  dlr: dlrFields({
    ...SAMPLE,
    externalId: '',
    status: DELIVERY.DELIVERED,
    phone: '972500000000',
    operator: '',
    shipmentId: 1,
  }),
  incoming_sms: incomingFields({ ...SAMPLE, phone: '972500000000', dest: '972500000001', message: '' }),
  blacklist: blacklistFields({ ...SAMPLE, dest: '972500000000' }),
  dlr_whatsapp: whatsappDlrFields({
    ...SAMPLE,
    messageId: 1,
    externalId: '',
    status: DELIVERY.WHATSAPP_READ,
    phone: '972500000000',
    errorCode: '',
    shipmentId: 1,
  }),
  incoming_whatsapp: whatsappIncomingFields({
    ...SAMPLE,
    phone: '972500000000',
    dest: '972500000001',
    message: '',
    name: '',
    unique: 'wamid.1',
  }),
};

const SUMMARIES: Record<string, string> = {
  dlr: 'A delivery report for one sent message',
  incoming_sms: "One SMS sent to one of the account's numbers",
  blacklist: "A number added to the account's blocklist (usually an opt-out)",
  dlr_whatsapp: 'A status of one WhatsApp message (JSON)',
  incoming_whatsapp: 'One message a WhatsApp user wrote to a business number of the account (JSON)',
};

const HEADERS = [
  {
    name: 'X-Yona-Event-Id',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: "The event's id, the same on every repeat: de-duplicate on it.",
  },
  {
    name: 'X-Yona-Timestamp',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: 'Unix seconds of the signature; sent when the operator set a signing secret for the account.',
  },
  {
    name: 'X-Yona-Signature',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: 'HMAC of the timestamp and the raw body (docs/push.md); sent with X-Yona-Timestamp.',
  },
];

function formSchema(type: string): JsonSchema {
  const names = Object.keys(FIELDS[type]);
  const meanings = FIELD_MEANINGS[type];
  const properties = Object.fromEntries(
    names.map((name) => {
      const description = meanings[name];
      if (!description) throw new Error(`push field ${type}.${name} has no description`);
      return [name, { type: 'string', description }];
    }),
  );
  return { type: 'object', properties, required: names, additionalProperties: false };
}

/**
 * `webhooks`: one POST per registered feed, form fields in a url-encoded body (a JSON document of the same string
 * fields for the WhatsApp feeds); any answer but 200 is a failure.
 */
export function webhooks(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.keys(FIELDS).map((type) => [
      type,
      {
        post: {
          summary: SUMMARIES[type],
          description: `Pushed to the URL registered for \`${type}\` (\`push_url\` or the console), one event per request. A push may arrive more than once; every repeat carries the same \`X-Yona-Event-Id\`. Retries, disabling and signatures: docs/push.md.`,
          parameters: HEADERS,
          requestBody: {
            required: true,
            content: {
              [JSON_PUSH_TYPES.has(type) ? 'application/json' : 'application/x-www-form-urlencoded']: {
                schema: formSchema(type),
              },
            },
          },
          responses: { 200: { description: 'Received. Any other answer counts as a failed delivery and is retried.' } },
        },
      },
    ]),
  );
}
