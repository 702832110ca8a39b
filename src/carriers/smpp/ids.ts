// Carrier message ids in one canonical form, for SMSCs that give an id in one base in submit_sm_resp and in
// another in the delivery receipt (Kannel's msg-id-type): both sides become decimal without leading zeros.

/** How a carrier writes its ids: as-is (no change), or which side is hex (the other side is decimal). */
export const RECEIPT_ID_MODES = ['as-is', 'submit-hex', 'receipt-hex', 'both-hex'] as const;

/** One of RECEIPT_ID_MODES. */
export type ReceiptIdMode = (typeof RECEIPT_ID_MODES)[number];

/** True when `value` names a receipt id mode. */
export function isReceiptIdMode(value: unknown): value is ReceiptIdMode {
  return (RECEIPT_ID_MODES as readonly unknown[]).includes(value);
}

/**
 * The canonical form of a carrier message id from `side` (submit_sm_resp or receipt) under `mode`: as-is keeps it
 * untouched; otherwise a hex (or decimal) id becomes decimal without leading zeros. An id that is not a number in
 * the expected base is kept as given (it can then only match an identical id).
 */
export function canonicalMessageId(id: string, side: 'submit' | 'receipt', mode: ReceiptIdMode | undefined): string {
  if (!mode || mode === 'as-is') return id;
  const hex = mode === 'both-hex' || mode === `${side}-hex`;
  const digits = id.trim();
  if (!(hex ? /^[0-9a-f]{1,64}$/i : /^\d{1,80}$/).test(digits)) return id;
  return BigInt(hex ? `0x${digits}` : digits).toString(10);
}
