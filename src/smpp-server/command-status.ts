// The SMPP command_status a customer's submit gets for each refusal of the send path (the API's statuses of
// docs/compatibility.md), and the server's own refusals. docs/smpp-server.md shows this table.
import type { RequestStatus } from '../domain/status.ts';

/** The command_status values the SMPP server answers, by name (SMPP v3.4 section 5.1.3; 0x400-0x4FF are ours). */
export const SMPP_STATUS = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDLEN: 0x02,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RALYBND: 0x05,
  ESME_RSYSERR: 0x08,
  ESME_RINVSRCADR: 0x0a,
  ESME_RINVDSTADR: 0x0b,
  ESME_RINVMSGID: 0x0c,
  ESME_RBINDFAIL: 0x0d,
  ESME_RINVPASWD: 0x0e,
  ESME_RINVSYSID: 0x0f,
  ESME_RCANCELFAIL: 0x11,
  ESME_RMSGQFUL: 0x14,
  ESME_RINVNUMDESTS: 0x33,
  ESME_RINVDESTFLAG: 0x40,
  ESME_RSUBMITFAIL: 0x45,
  ESME_RINVSCHED: 0x61,
  ESME_RINVEXPIRY: 0x62,
  ESME_RTHROTTLED: 0x58,
  ESME_RQUERYFAIL: 0x67,
  ESME_RINVTLVVAL: 0xc4,
  ESME_RINVDCS: 0x104,
  /** Ours: the account has not enough credit (API status 4). */
  YONA_RNOCREDIT: 0x401,
  /** Ours: not enough money for international destinations (API status 12). */
  YONA_RNOMONEY: 0x402,
  /** Ours: the destination is on the account's blocklist (API status 8). */
  YONA_RBLOCKED: 0x403,
  /** Ours: the destination was sent to within temp_bl days (API status 715). */
  YONA_RTEMPBLOCKED: 0x404,
  /** Ours: the account may not send now (suspended, closed, no carrier for it: API statuses 3, 5, 511). */
  YONA_RNOTPERMITTED: 0x405,
} as const;

export type SmppStatusName = keyof typeof SMPP_STATUS;

/**
 * The refusals of the send path and their command_status: the documented table (docs/smpp-server.md). A status
 * not listed answers ESME_RSUBMITFAIL.
 */
export const SUBMIT_REFUSALS: ReadonlyArray<{ api: RequestStatus; smpp: SmppStatusName; meaning: string }> = [
  { api: 515, smpp: 'ESME_RINVSRCADR', meaning: 'unverified sender (source_addr)' },
  { api: 992, smpp: 'ESME_RINVSRCADR', meaning: 'source_addr of an invalid length' },
  { api: 4, smpp: 'YONA_RNOCREDIT', meaning: 'not enough credit' },
  { api: 12, smpp: 'YONA_RNOMONEY', meaning: 'not enough money for an international destination' },
  { api: 8, smpp: 'YONA_RBLOCKED', meaning: 'the destination is on the blocklist' },
  { api: 715, smpp: 'YONA_RTEMPBLOCKED', meaning: 'the destination was texted within temp_bl' },
  { api: 9, smpp: 'ESME_RINVDSTADR', meaning: 'destination too short or too long' },
  { api: 933, smpp: 'ESME_RINVDSTADR', meaning: 'invalid destination number' },
  { api: 989, smpp: 'ESME_RINVMSGLEN', meaning: 'empty or too long a message' },
  { api: 5, smpp: 'YONA_RNOTPERMITTED', meaning: 'no carrier can take the message now' },
  { api: 511, smpp: 'YONA_RNOTPERMITTED', meaning: 'the account is suspended or closed' },
  { api: 3, smpp: 'YONA_RNOTPERMITTED', meaning: 'the account no longer exists' },
  { api: 998, smpp: 'ESME_RSYSERR', meaning: 'a fault of the server' },
];

const BY_API = new Map<number, number>(SUBMIT_REFUSALS.map((r) => [r.api, SMPP_STATUS[r.smpp]]));

/** The command_status for a send refused with an API status. */
export function submitStatusFor(apiStatus: number): number {
  if (apiStatus === 0) return SMPP_STATUS.ESME_ROK;
  return BY_API.get(apiStatus) ?? SMPP_STATUS.ESME_RSUBMITFAIL;
}
