// What each operation answers on success, beside `status` and `message`. Replies are flat JSON objects; in XML
// the root element is named as the operation and a list field holds one child element per item
// (`<transactions><transaction>…`). Error replies carry only `status` and `message` (and, for a few, a list
// saying which items failed).
import type { JsonSchema } from './json-schema.ts';

const str = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) });
const list = (items: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] });
const obj = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  properties,
  required,
});

const DATE = "dd/mm/yy hh:mm in the account's time zone";
const SHEKELS = 'shekels with two decimals, as text';

const REPORT = obj(
  {
    external_id: str('the id given on `phone` when sending'),
    status: str('delivery status code'),
    he_message: str(),
    en_message: str(),
    date: str('dd/mm/yy hh:mm:ss'),
    phone: str('international digits'),
    operaor: str(),
    operator: str(),
    shipment_id: str(),
    carrier: str('the carrier that took the message (the same name as operator); blank before one did'),
    channel: str('`call` for a voice call'),
    call_seconds: int('seconds the message played, for an answered call'),
  },
  ['external_id', 'status', 'he_message', 'en_message', 'date', 'phone', 'shipment_id'],
);

const ROW_ERROR = obj({
  list: str(),
  list_id: int(),
  row: int('row of the request, from 1'),
  phone: str(),
  reason: str('missing_phone, too_short, too_long, invalid, duplicate or not_in_list'),
});
const LIST_SUMMARY = obj({ id: int(), name: str(), contacts: int('contacts in the list'), rejected: int() }, [
  'id',
  'name',
  'contacts',
]);
const REJECTED = obj({ phone: str(), reason: str() }, ['phone', 'reason']);

const SEND: Record<string, JsonSchema> = {
  shipment_id: str('the campaign, as pushed delivery reports name it'),
  campaign_id: int('the campaign (0 on /api/test)'),
  recipients: int('messages accepted'),
  parts: int('SMS parts per message'),
  encoding: str('gsm7 or ucs2'),
  credits: int('credits taken'),
  international_cost: str(SHEKELS),
  calls: int('voice calls to place'),
  timing: str(`when a scheduled send leaves, ${DATE}`),
  rejected: list(REJECTED, 'recipients not sent to (the first 1,000)'),
  rejected_total: int(),
  rejected_by_reason: { type: 'object', additionalProperties: { type: 'integer' } },
};
const SEND_REQUIRED = ['shipment_id', 'campaign_id', 'recipients', 'parts', 'encoding', 'credits'];

const BALANCE = {
  balance: str('domestic credits'),
  international_balance: str(SHEKELS),
  interantional_balance: str('the same, spelled as 019 spells it'),
};
const SUB = obj({ username: str(), name: str(), balance: str(), international_balance: str(SHEKELS) });

/** Success reply fields by root element, with those always present, and the success statuses when not just 0. */
export const REPLY_FIELDS: Record<
  string,
  { properties: Record<string, JsonSchema>; required?: string[]; statuses?: number[] }
> = {
  getApiToken: { properties: { expiration_date: str('dd/mm/yyyy hh:mm:ss'), name: str("the token's name") } },
  balance: { properties: BALANCE },
  newCL: { properties: { id: int('the first new list'), lists: list(LIST_SUMMARY), errors: list(ROW_ERROR) } },
  removeCL: { properties: { ids: list(int()) } },
  addNumCL: {
    properties: { id: int(), added: int(), contacts: int('contacts in the list now'), errors: list(ROW_ERROR) },
  },
  rmNumCL: {
    properties: { id: int(), removed: int(), contacts: int('contacts in the list now'), errors: list(ROW_ERROR) },
  },
  getCL: { properties: { lists: list(obj({ id: int(), name: str(), contacts: int(), date: str(DATE) })) } },
  getCLbyID: {
    properties: {
      id: int(),
      name: str(),
      date: str(DATE),
      total: int(),
      page: int(),
      page_size: int(),
      pages: int(),
      contacts: list(
        { type: 'object', properties: { phone: str() }, required: ['phone'], additionalProperties: { type: 'string' } },
        'phone and df1..df6',
      ),
      next_after: int('pass as `after` for the next page'),
    },
    required: ['id', 'name', 'date', 'total', 'page_size', 'pages', 'contacts'],
  },
  blacklist: { properties: { transactions: list(obj({ phone: str('masked'), date: str(DATE) })) } },
  addNumBL: { properties: { added: int(), already_listed: int() }, statuses: [946] },
  rmNumBL: { properties: { deleted: int(), not_in_blacklist: int() }, statuses: [0, 944] },
  new_birthday_campaign: { properties: { id: int() } },
  get_birthday_campaigns: {
    properties: {
      campaigns: list(
        obj({
          id: int(),
          name: str(),
          cl_id: int('the list greeted'),
          message: str(),
          source: str(),
          hour: int("0-23, the account's time zone"),
          dob_field: str('df1..df6: the contact field holding the birthday'),
          active: int('1 or 0'),
          date: str(`created, ${DATE}`),
        }),
      ),
    },
  },
  edit_birthday_campaign: { properties: { id: int() } },
  sms: { properties: SEND, required: SEND_REQUIRED },
  bulk: { properties: SEND, required: SEND_REQUIRED },
  cancel: {
    properties: {
      campaign_id: int(),
      cancelled: int('campaigns cancelled'),
      refunded_credits: int(),
      refunded_international: str(SHEKELS),
    },
    required: ['cancelled'],
  },
  verify_phone: { properties: { verify_message: list(str(), 'per number, what happens next') } },
  getVerifiedPhones: { properties: { phones: list(str()) } },
  dlr: {
    properties: { transactions: list(REPORT), truncated: int('1 when more than 10,000 matched') },
    required: ['transactions'],
  },
  dlrByDate: {
    properties: { transactions: list(REPORT), truncated: int('1 when more than 10,000 matched') },
    required: ['transactions'],
  },
  incoming: {
    properties: {
      transactions: list({ type: 'object', properties: { phone: str(), dest: str(), message: str(), date: str() } }),
      truncated: int(),
    },
    required: ['transactions'],
  },
  push_url: {
    properties: {
      type: str('the type registered (action add)'),
      url: str('the URL registered (action add)'),
      registrations: list({
        type: 'object',
        description: 'action status: one item per registered type',
        properties: {
          type: str(),
          url: str(),
          state: str('registered or disabled'),
          consecutive_failures: int(),
          pending_events: int('events waiting to be pushed'),
          signed: int('1 when pushes carry a signature'),
          disabled_at: nullable(str()),
          disabled_reason: nullable(str()),
          created_at: str(),
          last_attempt_at: nullable(str()),
          last_http_status: nullable(int()),
          last_error: nullable(str()),
        },
      }),
    },
    required: [],
  },
  send_otp: {
    properties: {
      shipment_id: str(),
      campaign_id: int(),
      credits: int(),
      valid_time: int('minutes'),
      max_tries: int(),
    },
  },
  validate_otp: { properties: {} },
  addSub: { properties: { username: str(), balance: str() } },
  updateAmountSub: { properties: { balance: str(), international_balance: str(SHEKELS) } },
  getBlanceSubs: { properties: { subs: list(SUB) } },
};
REPLY_FIELDS.dlrbyDate = REPLY_FIELDS.dlrByDate;
