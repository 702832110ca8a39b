// Settings of the delivery workers (dispatcher, receipts, inbound): `Config.delivery`, read once by config.ts
// (YONA_DISPATCH_*, YONA_RECEIPT_WINDOW_MS, YONA_REMOVAL_KEYWORDS, YONA_SIM_RECEIPT_DELAY_MS); and what an
// inbound removal request is.
export type { DeliverySettings } from '../config.ts';

/** Whether an inbound text is a removal request: the whole text, trimmed, is a keyword (case-insensitive;
 *  surrounding quotes and trailing punctuation ignored). */
export function isRemovalRequest(text: string, keywords: string[]): boolean {
  const t = text
    .normalize('NFC')
    .trim()
    .replace(/^["'״׳]+|["'״׳.!?,;:]+$/gu, '')
    .trim()
    .toLowerCase();
  return t !== '' && keywords.includes(t);
}
