// The short_message payloads of an SMPP submit_sm / deliver_sm: a text's parts (GSM 03.38 septets or UCS-2, from
// domain/encoding.ts) with a concatenation UDH when it takes more than one, and back.
import { encodeBodies, fromSeptets, fromUtf16be } from '../../domain/encoding.ts';

export interface SmppPayload {
  dataCoding: 0 | 8;
  esmClass: number;
  parts: Buffer[];
}

export interface ConcatUdh {
  ref: number;
  total: number;
  seq: number;
}

export interface DecodedPayload {
  text: string;
  udh?: ConcatUdh;
}

const CONCAT_ESM_CLASS = 0x40; // UDHI: short_message starts with a user data header

// Builds the submit_sm short_message payloads (and data_coding, esm_class) for a text; refNumber ties the parts.
export function encodeForSmpp(text: string, refNumber: number): SmppPayload {
  if (!Number.isInteger(refNumber) || refNumber < 0 || refNumber > 255) {
    throw new RangeError(`refNumber must be an integer 0..255, got ${refNumber}`);
  }
  const { dataCoding, bodies } = encodeBodies(text);
  if (bodies.length === 1) return { dataCoding, esmClass: 0, parts: bodies };
  if (bodies.length > 255)
    throw new RangeError(`text needs ${bodies.length} parts; a concatenated SMS holds at most 255`);
  const total = bodies.length;
  const parts = bodies.map((body, i) =>
    Buffer.concat([Buffer.from([0x05, 0x00, 0x03, refNumber, total, i + 1]), body]),
  );
  return { dataCoding, esmClass: CONCAT_ESM_CLASS, parts };
}

// Decodes one short_message payload (data_coding 0/1 GSM unpacked, 3 latin1, 8 UCS-2), reading its UDH if flagged.
export function decodeFromSmpp(payload: Buffer, dataCoding: number, hasUdh: boolean): DecodedPayload {
  let body = payload;
  let udh: ConcatUdh | undefined;
  if (hasUdh) {
    const parsed = parseUdh(payload);
    body = payload.subarray(parsed.length);
    udh = parsed.concat;
  }
  let text: string;
  switch (dataCoding) {
    case 0:
    case 1: // treated as the GSM default alphabet too, as our carriers and simulator do
      text = fromSeptets(body);
      break;
    case 3:
      text = body.toString('latin1');
      break;
    case 8:
      text = fromUtf16be(body);
      break;
    default:
      throw new RangeError(`unsupported data_coding ${dataCoding}`);
  }
  return udh ? { text, udh } : { text };
}

// Reads the UDH at the start of a payload: its total length (UDHL byte included) and any concatenation IE.
function parseUdh(payload: Buffer): { length: number; concat?: ConcatUdh } {
  if (payload.length < 1) throw new RangeError('payload flagged with a UDH is empty');
  const length = 1 + payload[0];
  if (length > payload.length)
    throw new RangeError(`UDH length ${payload[0]} exceeds payload of ${payload.length} bytes`);
  let concat: ConcatUdh | undefined;
  let i = 1;
  while (i < length) {
    if (i + 1 >= length) throw new RangeError('truncated UDH information element');
    const iei = payload[i];
    const iel = payload[i + 1];
    const data = i + 2;
    if (data + iel > length) throw new RangeError(`UDH information element 0x${iei.toString(16)} overruns the header`);
    if (iei === 0x00 && iel === 3) {
      concat = { ref: payload[data], total: payload[data + 1], seq: payload[data + 2] };
    } else if (iei === 0x08 && iel === 4) {
      concat = { ref: payload.readUInt16BE(data), total: payload[data + 2], seq: payload[data + 3] };
    }
    i = data + iel;
  }
  return concat ? { length, concat } : { length };
}
