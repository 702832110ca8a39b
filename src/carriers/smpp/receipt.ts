// Delivery receipts: parse deliver_sm receipts (TLVs and the conventional text), map states to statuses.
import type smpp from 'smpp';
import { DELIVERY, type DeliveryStatus } from '../../domain/status.ts';
import { rawPayload } from './pdu.ts';

// message_state TLV values (SMPP 3.4 5.2.28) and the receipt-text names carriers use for them.
const STATE_BY_NUMBER: Record<number, string> = {
  0: 'SCHEDULED',
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
  9: 'SKIPPED',
};
const NUMBER_BY_STATE: Record<string, number> = Object.fromEntries(
  Object.entries(STATE_BY_NUMBER).map(([n, s]) => [s, Number(n)]),
);

/** The receipt-text state name for a message_state TLV value. */
export function stateName(messageState: number): string {
  return STATE_BY_NUMBER[messageState] ?? 'UNKNOWN';
}

/** The message_state TLV value for a receipt-text state name. */
export function messageStateNumber(state: string): number {
  return NUMBER_BY_STATE[state.toUpperCase()] ?? 7;
}

/** A receipt as SMPP states it: the state name (DELIVRD, EXPIRED, DELETED, UNDELIV, ACCEPTD, UNKNOWN, REJECTD,
 *  ENROUTE) and the network error code from `err:` or the network_error_code TLV (text, e.g. '015'), if given. */
export interface SmppReceipt {
  carrierMessageId: string;
  state: string;
  error?: string;
}

/** Fields of the conventional receipt text `id:.. sub:.. dlvrd:.. submit date:.. done date:.. stat:.. err:.. text:..`. */
export interface ReceiptText {
  id?: string;
  sub?: string;
  dlvrd?: string;
  submitDate?: string;
  doneDate?: string;
  stat?: string;
  err?: string;
  text?: string;
}

/** Parses the receipt text; keys are case-insensitive and any field may be missing. */
export function parseReceiptText(body: string): ReceiptText {
  const out: ReceiptText = {};
  const textAt = body.search(/\btext:/i);
  const head = textAt >= 0 ? body.slice(0, textAt) : body;
  if (textAt >= 0) out.text = body.slice(textAt + 5);
  const re = /(id|sub|dlvrd|submit date|done date|stat|err):\s*(\S*)/gi;
  for (let m = re.exec(head); m; m = re.exec(head)) {
    const key = m[1].toLowerCase();
    const value = m[2];
    if (key === 'id') out.id = value;
    else if (key === 'sub') out.sub = value;
    else if (key === 'dlvrd') out.dlvrd = value;
    else if (key === 'submit date') out.submitDate = value;
    else if (key === 'done date') out.doneDate = value;
    else if (key === 'stat') out.stat = value.toUpperCase();
    else out.err = value;
  }
  return out;
}

/** Formats a time as the receipt text's YYMMDDhhmm (UTC). */
export function formatReceiptDate(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

/** Builds the conventional receipt text (what the simulator sends). */
export function formatReceiptText(r: {
  id: string;
  stat: string;
  err: string;
  submitAt: number;
  doneAt: number;
  text: string;
}): string {
  const dlvrd = r.stat === 'DELIVRD' ? '001' : '000';
  return (
    `id:${r.id} sub:001 dlvrd:${dlvrd} submit date:${formatReceiptDate(r.submitAt)} ` +
    `done date:${formatReceiptDate(r.doneAt)} stat:${r.stat} err:${r.err} text:${r.text.slice(0, 20)}`
  );
}

/**
 * Reads a receipt from a deliver_sm: the receipted_message_id / message_state TLVs win for id and state, the
 * text fills what they lack; `err` comes from the text, else from the network_error_code TLV (its last two
 * bytes). The carrier's `done date` is not kept: the receipts worker times a receipt by its arrival, so one that
 * comes late never lands in a dlrByDate window a client has already polled (and carrier clocks are often local).
 */
export function receiptFromPdu(pdu: smpp.PduFields): SmppReceipt | undefined {
  const text = parseReceiptText(rawPayload(pdu).toString('latin1'));
  const id = (typeof pdu.receipted_message_id === 'string' && pdu.receipted_message_id) || text.id;
  const state = typeof pdu.message_state === 'number' ? stateName(pdu.message_state) : text.stat;
  if (!id || !state) return undefined;
  const error = text.err ?? networkErrorCode(pdu.network_error_code);
  return { carrierMessageId: id, state, ...(error !== undefined ? { error } : {}) };
}

// network_error_code TLV: one byte of network type, then the two-byte error code; as the text's 3 digits.
function networkErrorCode(tlv: unknown): string | undefined {
  if (!Buffer.isBuffer(tlv) || tlv.length !== 3) return undefined;
  return String(tlv.readUInt16BE(1)).padStart(3, '0');
}

// Failure codes from the delivery-status catalogue that say more than the state's generic code.
const SPECIFIC_ERR_STATUSES = new Set<number>([
  DELIVERY.NETWORK_FAILED,
  DELIVERY.STORE_AND_FORWARD_FAILED,
  DELIVERY.FILTERED_HANDSET,
  DELIVERY.HOUR_NOT_PERMITTED,
  DELIVERY.ADVERTISING_BLOCKED,
  DELIVERY.ILLEGAL_MESSAGE,
  DELIVERY.OUT_OF_COVERAGE,
]);

/**
 * Maps a receipt to a delivery status of compatibility.md. Rule: for a failure state (anything but
 * DELIVRD/ACCEPTD/ENROUTE), a non-zero `err` that is one of the catalogue's specific failure codes
 * (4, 14, 15, 16, 17, 18, 747: e.g. err:015 -> 15 filtered handset, err:747 -> 747 out of coverage) wins;
 * this is how the bundled simulator reports them. Otherwise the state decides: DELIVRD 102, EXPIRED 103,
 * DELETED 104, REJECTD 108, UNDELIV 101, UNKNOWN (and any unknown name) 999, ACCEPTD/ENROUTE/SCHEDULED -1
 * (intermediate, never overwrites a final status). Other carrier err codes are network specific and ignored.
 */
export function mapReceiptToStatus(state: string, err?: string): DeliveryStatus {
  const name = state.toUpperCase();
  if (name === 'DELIVRD') return DELIVERY.DELIVERED;
  if (name === 'ACCEPTD' || name === 'ENROUTE' || name === 'SCHEDULED') return DELIVERY.SUBMITTED;
  const code = err !== undefined && /^\d+$/.test(err.trim()) ? Number(err.trim()) : 0;
  if (code !== 0 && SPECIFIC_ERR_STATUSES.has(code)) return code as DeliveryStatus;
  switch (name) {
    case 'EXPIRED':
      return DELIVERY.EXPIRED;
    case 'DELETED':
      return DELIVERY.DELETED;
    case 'REJECTD':
      return DELIVERY.REJECTED;
    case 'UNDELIV':
      return DELIVERY.NOT_DELIVERED;
    case 'SKIPPED':
      return DELIVERY.NOT_DELIVERED;
    default:
      return DELIVERY.UNKNOWN;
  }
}
