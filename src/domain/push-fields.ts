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
  if (type === 'dlr' || type === 'dlr_whatsapp')
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
