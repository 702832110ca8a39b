// Meta's error codes in delivery terms: throttling (130429 throughput, 131056 pair rate, 131048 spam rate) is
// retried, never failed; a server-side hiccup is retried; the rest end the message with a delivery status, Meta's
// code kept beside it (messages.carrier_error).
import { DELIVERY, type DeliveryStatus } from '../../domain/status.ts';

/** Codes that ask the business to slow down: the message is retried later and never fails of them. */
export const THROTTLING_CODES = new Set([130429, 131056, 131048, 80007]);
/** Codes of a passing fault on Meta's side (and HTTP 5xx): retried with backoff. */
const PASSING_CODES = new Set([1, 2, 4, 17, 131000, 131016, 133004]);
/** Codes of a template that cannot be sent as asked. */
const TEMPLATE_CODES = new Set([132000, 132001, 132005, 132007, 132012, 132015, 132016, 132068, 132069]);

/** What an error code makes of a message. */
export type MetaOutcome = { kind: 'throttled' } | { kind: 'retry' } | { kind: 'failed'; status: DeliveryStatus };

/** The outcome of Meta's error `code` (HTTP status `http` for a send's answer; 0 in a status webhook). */
export function outcomeOfCode(code: number, http = 0): MetaOutcome {
  if (THROTTLING_CODES.has(code) || http === 429) return { kind: 'throttled' };
  if (PASSING_CODES.has(code) || http >= 500) return { kind: 'retry' };
  return { kind: 'failed', status: failedStatus(code) };
}

/** The delivery status a failure with this code ends a message with. */
export function failedStatus(code: number): DeliveryStatus {
  if (code === 131026) return DELIVERY.WHATSAPP_NO_ACCOUNT;
  if (code === 131047) return DELIVERY.WHATSAPP_OUTSIDE_WINDOW;
  if (TEMPLATE_CODES.has(code)) return DELIVERY.WHATSAPP_TEMPLATE_REFUSED;
  return DELIVERY.WHATSAPP_FAILED;
}

/** A message status of a webhook (sent, delivered, read, failed) as a delivery status; undefined for another. */
export function statusOfWebhook(status: string, errorCode: number | undefined): DeliveryStatus | undefined {
  switch (status) {
    case 'sent':
      return DELIVERY.WHATSAPP_SENT;
    case 'delivered':
      return DELIVERY.WHATSAPP_DELIVERED;
    case 'read':
      return DELIVERY.WHATSAPP_READ;
    case 'failed':
      return errorCode === undefined ? DELIVERY.WHATSAPP_FAILED : failedStatus(errorCode);
    default:
      return undefined;
  }
}
