// The reasons of 019's WhatsApp endpoints (`ans.reason`): 0 when the message was accepted, else why it was refused.
// A refusal of a WhatsApp send carries its reason beside the catalogue status (`reason` in the API's reply); a
// refusal that names none (authentication, a missing field, credit) takes the reason of its status.
// docs/whatsapp.md#reasons holds this table.
import type { RequestStatus } from './status.ts';

export const WA_REASON = {
  OK: 0,
  /** A required field is missing or malformed. */
  FIELD: 1,
  /** The token is not recognised, has expired, or does not match; or the caller's address is not allowed. */
  AUTH: 2,
  /** The destination is not a valid phone number. */
  DESTINATION: 3,
  /** Not enough credit. */
  CREDIT: 4,
  /** `source` is not a business number the operator gave this account. */
  SOURCE: 5,
  /** No WhatsApp carrier can take the message now. */
  UNAVAILABLE: 6,
  /** Free-form text to a user who never wrote to this business number: a template must be used. */
  NO_WINDOW: 7,
  /** Free-form text after the user's 24-hour window closed: a template must be used. */
  WINDOW_CLOSED: 8,
  /** No template of this id on the business number's account. */
  TEMPLATE_UNKNOWN: 9,
  /** The template is not APPROVED (pending, rejected, paused). */
  TEMPLATE_NOT_APPROVED: 10,
  /** The variables do not fit the template: wrong number, empty, or with a line break. */
  VARIABLES: 11,
  /** The fallback is malformed or its SMS sender is not verified. */
  FALLBACK: 12,
  /** The destination is on the account's blocklist. */
  BLOCKED: 13,
  /** Too many requests for now (one-time code limits). */
  LIMIT: 14,
  /** The account may not do this (suspended, closed, no permission). */
  PERMISSION: 15,
  /** Anything else: a fault of the service. */
  UNKNOWN: 99,
} as const;

export type WaReason = (typeof WA_REASON)[keyof typeof WA_REASON];

/** Each reason's English and Hebrew text, for docs and the replies' `message`. */
export const WA_REASON_TEXT: Readonly<Record<WaReason, { en: string; he: string }>> = {
  0: { en: 'Accepted', he: 'התקבל' },
  1: { en: 'Missing or invalid field', he: 'שדה חסר או לא תקין' },
  2: {
    en: 'API token invalid, expired or not allowed from this address',
    he: 'הטוקן אינו תקין, פג תוקפו או שהכתובת אינה מורשית',
  },
  3: { en: 'Invalid destination number', he: 'מספר יעד לא תקין' },
  4: { en: 'Not enough credit', he: 'אין מספיק יתרה' },
  5: { en: 'Source is not a WhatsApp business number of this account', he: 'המקור אינו מספר עסקי של החשבון' },
  6: { en: 'WhatsApp is not available now', he: 'וואטסאפ אינו זמין כעת' },
  7: {
    en: 'Outside the 24-hour window: the user never wrote; use a template',
    he: 'מחוץ לחלון 24 השעות: המשתמש לא כתב מעולם; יש להשתמש בתבנית',
  },
  8: {
    en: 'Outside the 24-hour window: it closed; use a template',
    he: 'מחוץ לחלון 24 השעות: החלון נסגר; יש להשתמש בתבנית',
  },
  9: { en: 'Template not found', he: 'התבנית לא נמצאה' },
  10: { en: 'Template not approved', he: 'התבנית אינה מאושרת' },
  11: { en: 'Variables do not fit the template', he: 'המשתנים אינם תואמים לתבנית' },
  12: { en: 'Invalid fallback or unverified SMS sender', he: 'גיבוי לא תקין או שולח SMS לא מאומת' },
  13: { en: 'Destination is blocked', he: 'היעד חסום' },
  14: { en: 'Too many requests, try later', he: 'יותר מדי בקשות, נסו מאוחר יותר' },
  15: { en: 'No permission', he: 'אין הרשאה' },
  99: { en: 'Unknown error', he: 'שגיאה לא ידועה' },
};

/** The reason of a refusal that names none, by its request status. */
const BY_STATUS: Partial<Record<RequestStatus, WaReason>> = {
  1: WA_REASON.FIELD,
  2: WA_REASON.FIELD,
  3: WA_REASON.AUTH,
  10: WA_REASON.AUTH,
  11: WA_REASON.AUTH,
  4: WA_REASON.CREDIT,
  12: WA_REASON.CREDIT,
  5: WA_REASON.UNAVAILABLE,
  7: WA_REASON.NO_WINDOW,
  8: WA_REASON.BLOCKED,
  9: WA_REASON.DESTINATION,
  933: WA_REASON.DESTINATION,
  503: WA_REASON.PERMISSION,
  511: WA_REASON.PERMISSION,
  515: WA_REASON.FALLBACK,
  998: WA_REASON.UNKNOWN,
};

/** The reason of a reply: its own `reason` when it names one, else its status's (0 for a success). */
export function reasonOfReply(reply: { status: number; reason?: unknown }): WaReason {
  if (typeof reply.reason === 'number' && reply.reason in WA_REASON_TEXT) return reply.reason as WaReason;
  if (reply.status === 0) return WA_REASON.OK;
  return BY_STATUS[reply.status as RequestStatus] ?? WA_REASON.UNKNOWN;
}
