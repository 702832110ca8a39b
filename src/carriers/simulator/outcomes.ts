// What the simulator reports for a destination: chosen by the national number's last digits.

/** One outcome rule: destinations ending in `suffix` get receipt `state` with `err`, or no receipt. */
export interface OutcomeRule {
  suffix: string;
  state: string;
  /** Receipt `err:` field (3 digits). The simulator puts special delivery statuses here (see receipt.ts). */
  err: string;
  /** false: the SMSC accepts the message but never sends a receipt. */
  receipt?: boolean;
  /** A second receipt for the same message `afterMs` after the first, as carriers that report late or twice do. */
  late?: { state: string; err: string; afterMs: number };
}

/** The built-in rules, checked after any rules passed in the simulator's options. */
export const DEFAULT_RULES: readonly OutcomeRule[] = [
  { suffix: '0015', state: 'UNDELIV', err: '015' }, // status 15: filtered (Kosher) handset
  { suffix: '0101', state: 'UNDELIV', err: '000' }, // 101 not delivered
  { suffix: '0103', state: 'EXPIRED', err: '000' }, // 103 expired
  { suffix: '0108', state: 'REJECTD', err: '000' }, // 108 rejected
  { suffix: '0747', state: 'UNDELIV', err: '747' }, // 747 out of local network coverage
  { suffix: '0002', state: 'ACCEPTD', err: '000', receipt: false }, // accepted, never confirmed
];

const DELIVERED: OutcomeRule = { suffix: '', state: 'DELIVRD', err: '000' };

/** The first rule whose suffix ends the destination, else DELIVRD err 000. */
export function outcomeFor(destination: string, rules: readonly OutcomeRule[] = DEFAULT_RULES): OutcomeRule {
  for (const rule of rules) {
    if (rule.suffix && destination.endsWith(rule.suffix)) return rule;
  }
  return DELIVERED;
}
