// The deliver_sm of the outbox: a delivery receipt (esm_class 0x04, the conventional receipt text, the
// receipted_message_id and message_state options) or an inbound text (GSM 03.38 or UCS-2, in UDH parts when long).
import type smpp from 'smpp';
import { encodeForSmpp } from '../carriers/smpp/encoding.ts';
import { sourceAddress } from '../carriers/smpp/pdu.ts';
import { formatReceiptText, messageStateNumber } from '../carriers/smpp/receipt.ts';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';
import type { SmppOutboxPayload } from '../store/smpp-outbox.ts';

const RECEIPT_ESM_CLASS = 0x04;

/** The receipt text's `stat:` for a delivery status. */
export function receiptState(status: DeliveryStatus): string {
  switch (status) {
    case DELIVERY.DELIVERED:
    case DELIVERY.DELIVERED_LEGACY:
      return 'DELIVRD';
    case DELIVERY.EXPIRED:
    case DELIVERY.TIMEOUT:
      return 'EXPIRED';
    case DELIVERY.DELETED:
      return 'DELETED';
    case DELIVERY.REJECTED:
    case DELIVERY.BLOCKED:
      return 'REJECTD';
    case DELIVERY.UNKNOWN:
      return 'UNKNOWN';
    default:
      return 'UNDELIV';
  }
}

// The receipt's text: the first characters of the message, printable ASCII only (other characters as '.').
function asciiHead(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '.').slice(0, 20);
}

/** The fields of each deliver_sm one outbox row takes (one, or one per part of a long inbound text). */
export function deliverFields(payload: SmppOutboxPayload, ref: number): smpp.PduFields[] {
  if (payload.kind === 'receipt') {
    const stat = receiptState(payload.status);
    const err = stat === 'DELIVRD' ? '000' : String(Math.max(0, payload.status)).padStart(3, '0').slice(-3);
    const text = formatReceiptText({
      id: payload.messageId,
      stat,
      err,
      submitAt: payload.submittedAt,
      doneAt: payload.doneAt,
      text: asciiHead(payload.textHead),
    });
    const to = sourceAddress(payload.source);
    return [
      {
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: payload.handset,
        dest_addr_ton: to.source_addr_ton,
        dest_addr_npi: to.source_addr_npi,
        destination_addr: to.source_addr,
        esm_class: RECEIPT_ESM_CLASS,
        data_coding: 0,
        short_message: Buffer.from(text, 'latin1'),
        receipted_message_id: payload.messageId,
        message_state: messageStateNumber(stat),
      },
    ];
  }
  const encoded = encodeForSmpp(payload.text === '' ? ' ' : payload.text, ref & 0xff);
  const from = sourceAddress(payload.from);
  return encoded.parts.map((part) => ({
    source_addr_ton: from.source_addr_ton,
    source_addr_npi: from.source_addr_npi,
    source_addr: from.source_addr,
    dest_addr_ton: 0,
    dest_addr_npi: 1,
    destination_addr: payload.to,
    esm_class: encoded.esmClass,
    data_coding: encoded.dataCoding,
    short_message: part,
  }));
}
