// Pure builders of the form fields pushed to customer URLs, named and spelled as compatibility.md says
// (dlr carries both `operaor`, the 019 spelling, and `operator`), and the form body they travel in.
import { formatEvent } from './dates.ts';
import { DELIVERY, deliveryStatusText } from './status.ts';

/** Every feed a URL can be registered for, in the order the spec lists them. */
export const PUSH_TYPES = ['dlr', 'incoming_sms', 'blacklist', 'dlr_whatsapp', 'incoming_whatsapp'] as const;

/** The Hebrew note pushed with a blocklist addition ("the number was removed from the mailing list"). */
export const BLACKLIST_NOTE = 'המספר הוסר מרשימת התפוצה';

/** Form fields of one push, in wire order. */
export type PushFields = Record<string, string>;

/** What a dlr push says about one message's status. */
export interface DlrInput {
  /** The caller's id from `phone id="..."` (blank when none was given). */
  externalId: string | null | undefined;
  /** Delivery status code (compatibility.md catalogue). */
  status: number;
  /** When the status happened, epoch ms. */
  date: number;
  /** Destination, international digits (9725xxxxxxxx); a leading '+' is dropped. */
  phone: string;
  /** Carrier name (blank when unknown). */
  operator: string | null | undefined;
  /** The campaign the message belonged to. */
  shipmentId: string | number;
  timeZone: string;
}

const digits = (phone: string) => phone.replace(/^\+/, '');

/** The fields of a `dlr` push, in wire order. */
export type DlrFields = {
  external_id: string;
  status: string;
  he_message: string;
  en_message: string;
  date: string;
  phone: string;
  operaor: string;
  operator: string;
  shipment_id: string;
};

/** Fields of a `dlr` push: external_id, status, he_message, en_message, date, phone, operaor, operator, shipment_id. */
export function dlrFields(input: DlrInput): DlrFields {
  const text = deliveryStatusText(input.status);
  const operator = input.operator ?? '';
  return {
    external_id: input.externalId ?? '',
    status: String(input.status),
    he_message: text.he,
    en_message: text.en,
    date: formatEvent(input.date, input.timeZone),
    phone: digits(input.phone),
    operaor: operator,
    operator,
    shipment_id: String(input.shipmentId),
  };
}

/** What an incoming_sms push says about one inbound SMS. */
export interface IncomingInput {
  /** The sender, international digits. */
  phone: string;
  /** The account's number it arrived on. */
  dest: string;
  message: string;
  date: number;
  timeZone: string;
}

/** Fields of an `incoming_sms` push: phone, dest, message, date. */
export function incomingFields(input: IncomingInput): PushFields {
  return {
    phone: digits(input.phone),
    dest: digits(input.dest),
    message: input.message,
    date: formatEvent(input.date, input.timeZone),
  };
}

/** Fields of a `blacklist` push: dest (the blocked number), message (a Hebrew note), date. */
export function blacklistFields(input: { dest: string; date: number; timeZone: string }): PushFields {
  return { dest: digits(input.dest), message: BLACKLIST_NOTE, date: formatEvent(input.date, input.timeZone) };
}

/** True for a delivery status that a later receipt may still change (-1: accepted/en route, no confirmation yet). */
export function isIntermediateDlrStatus(status: number | string): boolean {
  return Number(status) === DELIVERY.SUBMITTED || Number(status) === DELIVERY.WHATSAPP_SENT;
}

/** The feeds whose pushes are JSON documents (the WhatsApp feeds); the others are forms. */
export const JSON_PUSH_TYPES: ReadonlySet<string> = new Set(['dlr_whatsapp', 'incoming_whatsapp']);

/** A push's body and content type: a JSON document of its fields for the WhatsApp feeds, else the form. */
export function encodePush(type: string, fields: PushFields): { body: string; contentType: string } {
  if (JSON_PUSH_TYPES.has(type)) return { body: JSON.stringify(fields), contentType: 'application/json' };
  return { body: encodeForm(fields), contentType: 'application/x-www-form-urlencoded' };
}

/** What happened to a WhatsApp message, as the `ack` of a dlr_whatsapp push says it. */
export function whatsappAck(
  status: number,
): 'accepted' | 'sent' | 'delivered' | 'read' | 'failed' | 'expired' | 'cancelled' {
  if (status === DELIVERY.SUBMITTED) return 'accepted';
  // Withdrawn before any carrier took it (its SMS fallback went in its place).
  if (status === DELIVERY.DELETED) return 'cancelled';
  if (status === DELIVERY.WHATSAPP_SENT) return 'sent';
  if (status === DELIVERY.WHATSAPP_DELIVERED || status === DELIVERY.DELIVERED) return 'delivered';
  if (status === DELIVERY.WHATSAPP_READ) return 'read';
  if (status === DELIVERY.TIMEOUT) return 'expired';
  return 'failed';
}

/** What a dlr_whatsapp push says about one WhatsApp message's status. */
export interface WhatsappDlrInput {
  /** Yona's id of the message (the `unique` 019's WhatsApp endpoints answer). */
  messageId: number;
  externalId: string | null | undefined;
  status: number;
  date: number;
  /** The user: their phone (international digits) or their business-scoped user id. */
  phone: string;
  /** Meta's error code of a failure (blank when none). */
  errorCode: string | null | undefined;
  shipmentId: string | number;
  timeZone: string;
}

/** The fields of a `dlr_whatsapp` push (a JSON document of strings), in order. */
export type WhatsappDlrFields = {
  hook: 'update';
  channel: 'whatsapp';
  unique: string;
  ack: string;
  external_id: string;
  status: string;
  he_message: string;
  en_message: string;
  error_code: string;
  date: string;
  phone: string;
  shipment_id: string;
};

/** Fields of a `dlr_whatsapp` push: hook, channel, unique, ack, external_id, status, texts, error_code, date, phone, shipment_id. */
export function whatsappDlrFields(input: WhatsappDlrInput): WhatsappDlrFields {
  const text = deliveryStatusText(input.status);
  return {
    hook: 'update',
    channel: 'whatsapp',
    unique: String(input.messageId),
    ack: whatsappAck(input.status),
    external_id: input.externalId ?? '',
    status: String(input.status),
    he_message: text.he,
    en_message: text.en,
    error_code: input.errorCode ?? '',
    date: formatEvent(input.date, input.timeZone),
    phone: digits(input.phone),
    shipment_id: String(input.shipmentId),
  };
}

/** What an incoming_whatsapp push says about one message a user wrote to a business number. */
export interface WhatsappIncomingInput {
  /** The user: their phone (international digits), or their business-scoped user id when Meta gave no phone. */
  phone: string;
  /** The business number it was written to. */
  dest: string;
  message: string;
  /** The user's profile name (blank when none). */
  name: string | null | undefined;
  /** Meta's id of the message. */
  unique: string | null | undefined;
  date: number;
  timeZone: string;
}

/** The fields of an `incoming_whatsapp` push (a JSON document of strings), in order. */
export type WhatsappIncomingFields = {
  hook: 'message';
  channel: 'whatsapp';
  unique: string;
  phone: string;
  dest: string;
  name: string;
  message: string;
  date: string;
};

/** Fields of an `incoming_whatsapp` push: hook, channel, unique, phone, dest, name, message, date. */
export function whatsappIncomingFields(input: WhatsappIncomingInput): WhatsappIncomingFields {
  return {
    hook: 'message',
    channel: 'whatsapp',
    unique: input.unique ?? '',
    phone: digits(input.phone),
    dest: digits(input.dest),
    name: input.name ?? '',
    message: input.message,
    date: formatEvent(input.date, input.timeZone),
  };
}

/** The request body: fields url-encoded in order (UTF-8, spaces as '+', as HTML forms send them). */
export function encodeForm(fields: PushFields): string {
  return new URLSearchParams(fields).toString();
}

/** The number a test event names: a reserved-looking placeholder no handset has. */
export const TEST_EVENT_PHONE = '972500000000';
/** The text of a test event (incoming_sms / incoming_whatsapp) and the external id of a test dlr. */
export const TEST_EVENT_TEXT = 'Test event';

/**
 * The fields of a test event of a type ("send a test event" in the console): the type's wire fields with
 * placeholder values (TEST_EVENT_PHONE, campaign 0, external id "test"), so a receiver sees the real shape.
 */
export function testEventFields(type: (typeof PUSH_TYPES)[number], now: number, timeZone: string): PushFields {
  if (type === 'dlr_whatsapp')
    return whatsappDlrFields({
      messageId: 0,
      externalId: 'test',
      status: DELIVERY.WHATSAPP_DELIVERED,
      date: now,
      phone: TEST_EVENT_PHONE,
      errorCode: '',
      shipmentId: 0,
      timeZone,
    });
  if (type === 'incoming_whatsapp')
    return whatsappIncomingFields({
      phone: TEST_EVENT_PHONE,
      dest: TEST_EVENT_PHONE,
      message: TEST_EVENT_TEXT,
      name: '',
      unique: 'test',
      date: now,
      timeZone,
    });
  if (type === 'dlr')
    return dlrFields({
      externalId: 'test',
      status: DELIVERY.DELIVERED,
      date: now,
      phone: TEST_EVENT_PHONE,
      operator: '',
      shipmentId: 0,
      timeZone,
    });
  if (type === 'blacklist') return blacklistFields({ dest: TEST_EVENT_PHONE, date: now, timeZone });
  return incomingFields({
    phone: TEST_EVENT_PHONE,
    dest: TEST_EVENT_PHONE,
    message: TEST_EVENT_TEXT,
    date: now,
    timeZone,
  });
}
