// deliver_sm fields the simulator sends: delivery receipts and mobile-originated messages.
import type smpp from 'smpp';
import { encodeForSmpp } from '../smpp/encoding.ts';
import { sourceAddress } from '../smpp/pdu.ts';
import { formatReceiptText, messageStateNumber } from '../smpp/receipt.ts';
import type { OutcomeRule } from './outcomes.ts';

/** A receipt for one accepted submit_sm: the TLVs and the `id:.. stat:.. err:..` text say the same thing. */
export function receiptFields(
  submit: smpp.PduFields,
  id: string,
  outcome: OutcomeRule,
  submitAt: number,
  text: string,
): smpp.PduFields {
  const body = formatReceiptText({ id, stat: outcome.state, err: outcome.err, submitAt, doneAt: Date.now(), text });
  const err = Number(outcome.err) || 0;
  return {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: String(submit.destination_addr ?? ''),
    dest_addr_ton: Number(submit.source_addr_ton ?? 0),
    dest_addr_npi: Number(submit.source_addr_npi ?? 0),
    destination_addr: String(submit.source_addr ?? ''),
    esm_class: 0x04, // SMSC delivery receipt
    data_coding: 0,
    short_message: Buffer.from(body, 'latin1'),
    receipted_message_id: id,
    message_state: messageStateNumber(outcome.state),
    network_error_code: Buffer.from([3, err >> 8, err & 0xff]), // type 3 = GSM, then the 2-byte code
  };
}

/** The deliver_sm parts of one MO message (UCS-2 when needed, concatenated with a UDH when long). */
export function inboundFields(mo: { from: string; to: string; text: string }, ref: number): smpp.PduFields[] {
  const payload = encodeForSmpp(mo.text, ref);
  const from = sourceAddress(mo.from);
  const to = sourceAddress(mo.to);
  return payload.parts.map((part) => ({
    source_addr_ton: from.source_addr_ton,
    source_addr_npi: from.source_addr_npi,
    source_addr: from.source_addr,
    dest_addr_ton: to.source_addr_ton,
    dest_addr_npi: to.source_addr_npi,
    destination_addr: to.source_addr,
    esm_class: payload.esmClass,
    data_coding: payload.dataCoding,
    short_message: part,
  }));
}
