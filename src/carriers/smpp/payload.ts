// What the submit_sm of one message carry: one short_message per UDH-concatenated part, or, for a carrier
// that asks for it, a single submit_sm with an empty short_message and the whole text in message_payload.
import type smpp from 'smpp';
import { encodeForSmpp } from './encoding.ts';

/** How a carrier takes a message longer than one SMS: concatenated parts (udh) or one message_payload. */
export type LongMessageMode = 'udh' | 'payload';

/** The long-message modes, for validating settings. */
export const LONG_MESSAGE_MODES: readonly LongMessageMode[] = ['udh', 'payload'];

/** data_coding and esm_class shared by a message's submit_sm, and the message fields of each one. */
export interface SubmitBodies {
  dataCoding: 0 | 8;
  esmClass: number;
  bodies: Array<Pick<smpp.PduFields, 'short_message' | 'message_payload'>>;
}

/**
 * Encodes a text for submit_sm (GSM 03.38 unpacked or UCS-2, as for UDH parts). A one-part text is always a
 * plain short_message. Throws RangeError when the text needs more than 255 parts, in either mode.
 */
export function submitBodies(text: string, mode: LongMessageMode, refNumber: number): SubmitBodies {
  const encoded = encodeForSmpp(text, refNumber);
  if (encoded.parts.length === 1 || mode === 'udh') {
    return {
      dataCoding: encoded.dataCoding,
      esmClass: encoded.esmClass,
      bodies: encoded.parts.map((part) => ({ short_message: part })),
    };
  }
  // Each part starts with its UDH (length byte first); what follows it, part after part, is the whole text.
  const whole = Buffer.concat(encoded.parts.map((part) => part.subarray(1 + part[0])));
  return {
    dataCoding: encoded.dataCoding,
    esmClass: 0,
    bodies: [{ short_message: Buffer.alloc(0), message_payload: whole }],
  };
}
