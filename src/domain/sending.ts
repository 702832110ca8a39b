// Settings and fixed texts of the send path: international price, unsubscribe lines, sender verification.
// The settings come from the configuration (YONA_INTL_PRICE_AGOROT, YONA_VERIFY_CALL_NUMBER, YONA_VERIFY_SOURCE).

export interface SendingSettings {
  /** Price of one SMS part to a non-Israeli number, in agorot (default 25, i.e. 0.25 shekel). */
  intlPriceAgorot: number;
  /** Number a landline owner calls to have it verified as a sender (default 03-0000000). */
  verifyCallNumber: string;
  /** Sender of the verification SMS (default "Yona"). */
  verifySource: string;
  /** How long a verification link works (48 hours). */
  verifyTtlMs: number;
}

/** add_unsubscribe modes: none, a reply-to-remove line (2), or a removal link (3). */
export type UnsubscribeMode = 'none' | 'reply' | 'link';

/** The line appended for add_unsubscribe 2 ("to be removed, reply REMOVE"). */
export const UNSUBSCRIBE_REPLY_LINE = '\nלהסרה השב הסר';

/** The line appended for add_unsubscribe 3, before the link. */
export const UNSUBSCRIBE_LINK_PREFIX = '\nלהסרה: ';

/** Parses add_unsubscribe: 2 reply line, 3 link, other integers none; null for non-integer garbage (986). */
export function parseUnsubscribe(value: string | undefined): UnsubscribeMode | null {
  if (value === undefined || value === '') return 'none';
  if (!/^-?\d+$/.test(value)) return null;
  const n = Number(value);
  return n === 2 ? 'reply' : n === 3 ? 'link' : 'none';
}

/** The removal link of one recipient. */
export function unsubscribeUrl(publicUrl: string, code: string): string {
  return `${publicUrl}/u/${code}`;
}

/** The short link of one campaign link. */
export function shortLinkUrl(publicUrl: string, code: string): string {
  return `${publicUrl}/l/${code}`;
}

/** The verification link of a mobile sender. */
export function verifyUrl(publicUrl: string, code: string): string {
  return `${publicUrl}/v/${code}`;
}
