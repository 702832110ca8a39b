// PDU helpers shared by the connector and the simulator: raw payload access, status classes, addresses.
import smpp from 'smpp';

const RAW = Symbol.for('yona.smpp.rawPayload');

// The package decodes short_message into {udh, message: string} and drops the bytes. We decode with our own
// GSM 03.38 / UCS-2 module, so we wrap its filter once to keep the original bytes next to its result.
// The wrap is additive: other users of the package still see exactly what they saw before.
const filter = smpp.filters.message as smpp.MessageFilter & { [RAW]?: boolean };
if (!filter[RAW]) {
  const decode = filter.decode;
  filter.decode = function (this: smpp.PduFields, value: unknown, skipUdh?: boolean): unknown {
    const result = decode.call(this, value, skipUdh);
    if (Buffer.isBuffer(value) && result && typeof result === 'object' && !Buffer.isBuffer(result)) {
      Object.defineProperty(result, RAW, { value, enumerable: false });
    }
    return result;
  };
  filter[RAW] = true;
}

// A command_length below the 16 bytes of a header cannot be framed: the package would wait for it for ever, so it
// is refused as an unreadable stream (the session's 'error').
const PDU_WITH_LENGTH = smpp.PDU as unknown as { commandLength(stream: unknown): number | false };
const commandLength = PDU_WITH_LENGTH.commandLength;
if (!(commandLength as { checksHeader?: boolean }).checksHeader) {
  const checked = (stream: unknown): number | false => {
    const length = commandLength(stream);
    if (length !== false && length < 16) throw new Error(`command_length ${length} is shorter than a PDU header`);
    return length;
  };
  PDU_WITH_LENGTH.commandLength = Object.assign(checked, { checksHeader: true });
}

/** The undecoded bytes of a received PDU's message (message_payload when present, else short_message). */
export function rawPayload(pdu: smpp.PduFields): Buffer {
  for (const field of [pdu.message_payload, pdu.short_message]) {
    const bytes = fieldBytes(field);
    if (bytes && bytes.length > 0) return bytes;
  }
  return Buffer.alloc(0);
}

function fieldBytes(field: unknown): Buffer | undefined {
  if (field === undefined || field === null) return undefined;
  if (Buffer.isBuffer(field)) return field;
  if (typeof field === 'string') return Buffer.from(field, 'latin1');
  const raw = (field as Record<symbol, unknown>)[RAW];
  return Buffer.isBuffer(raw) ? raw : undefined;
}

/**
 * Sends a PDU, coalescing everything sent in the same tick into one socket write: the package writes each
 * PDU separately and, with TCP_NODELAY on, one write per PDU cost more than the PDUs themselves.
 */
export function sendPdu(session: smpp.Session, pdu: smpp.PDU, sent?: () => void): boolean {
  const socket = session.socket;
  if (!socket.writableCorked && socket.writable) {
    socket.cork();
    process.nextTick(() => socket.uncork());
  }
  return sent ? session.send(pdu, undefined, sent) : session.send(pdu);
}

/** SMPP command_status values Yona acts on by name. */
export const STATUS = {
  OK: 0x00,
  INVMSGLEN: 0x01,
  INVBNDSTS: 0x04,
  ALYBND: 0x05,
  SYSERR: 0x08,
  INVSRCADR: 0x0a,
  INVDSTADR: 0x0b,
  BINDFAIL: 0x0d,
  INVPASWD: 0x0e,
  INVSYSID: 0x0f,
  MSGQFUL: 0x14,
  SUBMITFAIL: 0x45,
  THROTTLED: 0x58,
  X_T_APPN: 0x64,
  DELIVERYFAILURE: 0xfe,
  UNKNOWNERR: 0xff,
} as const;

// Statuses where the same PDU may succeed later; everything else (bad address, bad data coding, prohibited,
// ...) is permanent for that message.
const TRANSIENT = new Set<number>([
  STATUS.INVBNDSTS,
  STATUS.SYSERR,
  STATUS.MSGQFUL,
  STATUS.SUBMITFAIL,
  STATUS.THROTTLED,
  STATUS.X_T_APPN,
  STATUS.DELIVERYFAILURE,
  STATUS.UNKNOWNERR,
]);

/** Whether a non-zero command_status is worth retrying. */
export function isTransientStatus(status: number): boolean {
  return TRANSIENT.has(status);
}

/** Whether the SMSC asks us to slow down (retry the same PDU after a pause). */
export function isBackpressureStatus(status: number): boolean {
  return status === STATUS.THROTTLED || status === STATUS.MSGQFUL;
}

const NAMES = new Map<number, string>(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

/** ESME_R* name of a status for logs and error texts, e.g. 'ESME_RTHROTTLED (0x58)'. */
export function statusName(status: number): string {
  const hex = `0x${status.toString(16).padStart(2, '0')}`;
  return `${NAMES.get(status) ?? 'UNKNOWN'} (${hex})`;
}

/** source_addr_ton/npi for a sender: alphanumeric (5/0) unless it is all digits (international 1/1). */
export function sourceAddress(source: string): {
  source_addr_ton: number;
  source_addr_npi: number;
  source_addr: string;
} {
  const digits = source.replace(/^\+/, '');
  if (/^\d+$/.test(digits)) return { source_addr_ton: 1, source_addr_npi: 1, source_addr: digits };
  return { source_addr_ton: 5, source_addr_npi: 0, source_addr: source };
}

/** A received address in international form without '+' or a leading 00. */
export function normalizeAddress(address: string | undefined): string {
  return (address ?? '')
    .trim()
    .replace(/^\+/, '')
    .replace(/^00(?=[1-9])/, '');
}
