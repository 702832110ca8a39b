// Reading a customer's submit_sm / submit_multi: sender, destinations (international numbers by their TON),
// text by data_coding (GSM 03.38, IA5 as GSM, Latin-1, UCS-2), a part of a long message (UDH or SAR options) or
// the whole of one in message_payload, registered_delivery, schedule_delivery_time and validity_period. What it
// reads goes to the smppSubmit operation as the fields of an `sms`.
import type smpp from 'smpp';
import { decodeFromSmpp } from '../carriers/smpp/encoding.ts';
import { rawPayload } from '../carriers/smpp/pdu.ts';
import { SMPP_STATUS } from './command-status.ts';
import { smppTime } from './smpp-time.ts';

/** SMPP v3.4 allows at most 254 destinations in one submit_multi. */
export const MAX_MULTI_DESTINATIONS = 254;

const UDHI = 0x40;
const DATA_CODINGS = new Set([0, 1, 3, 8]);

/** One submit as read: a whole text, or one part of a long one. */
export interface ReadSubmit {
  source: string;
  /** The destinations as the send takes them ('+' and digits for an international TON). */
  destinations: string[];
  /** As the customer wrote them, in the same order (for submit_multi_resp's unsuccess_sme). */
  given: Array<{ ton: number; npi: number; address: string }>;
  text: string;
  registeredDelivery: number;
  scheduleAt?: number;
  validityUntil?: number;
  /** A part of a long message: the key of its group (with the sender and destinations), total and sequence. */
  part?: { ref: number; total: number; seq: number };
}

export type SubmitReading = { ok: true; submit: ReadSubmit } | { ok: false; status: number; why: string };

const refuse = (status: number, why: string): SubmitReading => ({ ok: false, status, why });
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

function destination(ton: number, address: string): string {
  const digits = address.trim();
  return ton === 1 && /^\+?\d+$/.test(digits) ? `+${digits.replace(/^\+/, '')}` : digits;
}

/** Reads a submit_sm or submit_multi; a refusal names its command_status. */
export function readSubmit(pdu: smpp.PDU): SubmitReading {
  const source = typeof pdu.source_addr === 'string' ? pdu.source_addr.trim() : '';
  if (source === '') return refuse(SMPP_STATUS.ESME_RINVSRCADR, 'empty source_addr');
  const given: ReadSubmit['given'] = [];
  if (pdu.command === 'submit_multi') {
    const list = Array.isArray(pdu.dest_address) ? (pdu.dest_address as Array<Record<string, unknown>>) : [];
    if (list.length === 0 || list.length > MAX_MULTI_DESTINATIONS)
      return refuse(SMPP_STATUS.ESME_RINVNUMDESTS, `${list.length} destinations`);
    for (const d of list) {
      if (typeof d.destination_addr !== 'string')
        return refuse(SMPP_STATUS.ESME_RINVDESTFLAG, 'distribution lists are not served');
      given.push({ ton: int(d.dest_addr_ton) ?? 0, npi: int(d.dest_addr_npi) ?? 0, address: d.destination_addr });
    }
  } else {
    const address = typeof pdu.destination_addr === 'string' ? pdu.destination_addr : '';
    given.push({ ton: int(pdu.dest_addr_ton) ?? 0, npi: int(pdu.dest_addr_npi) ?? 0, address });
  }
  if (given.some((g) => g.address.trim() === '')) return refuse(SMPP_STATUS.ESME_RINVDSTADR, 'empty destination_addr');
  const dataCoding = int(pdu.data_coding) ?? 0;
  if (!DATA_CODINGS.has(dataCoding)) return refuse(SMPP_STATUS.ESME_RINVDCS, `data_coding ${dataCoding}`);
  const esmClass = int(pdu.esm_class) ?? 0;
  const viaPayload = rawPayload({ message_payload: pdu.message_payload }).length > 0;
  if (viaPayload && rawPayload({ short_message: pdu.short_message }).length > 0)
    return refuse(SMPP_STATUS.ESME_RINVTLVVAL, 'both short_message and message_payload');
  let decoded: ReturnType<typeof decodeFromSmpp>;
  try {
    decoded = decodeFromSmpp(rawPayload(pdu), dataCoding, (esmClass & UDHI) !== 0);
  } catch {
    return refuse(SMPP_STATUS.ESME_RINVMSGLEN, 'unreadable message or user data header');
  }
  if (dataCoding === 8 && rawPayload(pdu).length % 2 !== 0 && !(esmClass & UDHI))
    return refuse(SMPP_STATUS.ESME_RINVMSGLEN, 'UCS-2 text of an odd length');
  if (decoded.text.trim() === '') return refuse(SMPP_STATUS.ESME_RINVMSGLEN, 'empty message');
  const scheduleAt = smppTime(pdu.schedule_delivery_time);
  if (scheduleAt === null) return refuse(SMPP_STATUS.ESME_RINVSCHED, 'unreadable schedule_delivery_time');
  const validityUntil = smppTime(pdu.validity_period);
  if (validityUntil === null) return refuse(SMPP_STATUS.ESME_RINVEXPIRY, 'unreadable validity_period');
  let part: ReadSubmit['part'];
  if (decoded.udh && decoded.udh.total > 1) part = decoded.udh;
  else {
    const total = int(pdu.sar_total_segments);
    const seq = int(pdu.sar_segment_seqnum);
    const ref = int(pdu.sar_msg_ref_num);
    if (total !== undefined && total > 1) {
      if (seq === undefined || ref === undefined) return refuse(SMPP_STATUS.ESME_RINVTLVVAL, 'incomplete SAR options');
      part = { ref, total, seq };
    }
  }
  if (part && (part.seq < 1 || part.seq > part.total))
    return refuse(SMPP_STATUS.ESME_RINVMSGLEN, `part ${part.seq} of ${part.total}`);
  return {
    ok: true,
    submit: {
      source,
      destinations: given.map((g) => destination(g.ton, g.address)),
      given,
      text: decoded.text,
      registeredDelivery: int(pdu.registered_delivery) ?? 0,
      ...(scheduleAt !== undefined ? { scheduleAt } : {}),
      ...(validityUntil !== undefined ? { validityUntil } : {}),
      ...(part ? { part } : {}),
    },
  };
}
