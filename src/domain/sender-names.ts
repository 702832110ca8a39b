// Sender names a customer may ask for: the reserved names (banks, government and public services, the operator's
// own) are refused before any request is recorded. A pattern is compared without case, spaces or punctuation;
// `*` at its end stands for every name that starts so (`bank*`: BankLeumi, Bank-Yahav).

/** A name as the reserved list compares it: lower case, letters and digits only. */
export function senderKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9\u0590-\u05ff]/g, '');
}

/** A pattern as the reserved list keeps it (its key, with a trailing `*` kept), or undefined when empty. */
export function reservedPattern(text: string): string | undefined {
  const prefix = text.trim().endsWith('*');
  const key = senderKey(text);
  if (key === '') return undefined;
  return prefix ? `${key}*` : key;
}

/** The pattern of `patterns` that reserves `name`, if any. */
export function reservedBy(name: string, patterns: Iterable<string>): string | undefined {
  const key = senderKey(name);
  for (const p of patterns) {
    if (p.endsWith('*') ? key.startsWith(p.slice(0, -1)) : key === p) return p;
  }
  return undefined;
}

/** The states of a sender request. */
export type SenderRequestState = 'pending' | 'approved' | 'rejected';

/** The longest reason a customer or the operator may give. */
export const MAX_SENDER_REASON = 500;
