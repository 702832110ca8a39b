// Settings of the delivery workers (dispatcher, receipts, inbound), part of the configuration (config.ts):
// YONA_DISPATCH_BATCH, YONA_DISPATCH_LANES, YONA_DISPATCH_LEASE_MS, YONA_DISPATCH_POLL_MS,
// YONA_DISPATCH_MAX_ATTEMPTS, YONA_RECEIPT_WINDOW_MS, YONA_REMOVAL_KEYWORDS, YONA_SIM_RECEIPT_DELAY_MS.
import { loadConfig, type Env } from '../config.ts';

/** The delivery workers' settings (see the file comment for the variables). */
export interface DeliverySettings {
  /** Messages claimed per dispatcher batch (1000). */
  batchSize: number;
  /** Batches in flight at once (2): while one finishes (its last answers, its campaigns), the next submits. */
  lanes: number;
  /** How long a claim holds its messages (120 s); an expired claim is taken again. */
  leaseMs: number;
  /** Idle poll interval of the dispatcher (200 ms); a 'dispatch' signal wakes it at once. */
  pollMs: number;
  /** Submit attempts before a transiently failing message is given up (20). */
  maxAttempts: number;
  /** First retry delay (1 s), doubled per attempt up to retryMaxMs (5 min). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A submitted message with no final receipt within this window gets status 2 (48 h). */
  receiptWindowMs: number;
  /** A call with no outcome within this window (its process died mid-call) gets status 2 (15 min). */
  callWindowMs: number;
  /** How often the receipt-window sweeper runs (min(60 s, window / 4)). */
  sweepMs: number;
  /** Reply keywords that block the sender (lower-cased): הסר, stop, remove. */
  removalKeywords: string[];
  /** Receipt delay of the bundled simulator started by `yona serve` (200 ms). */
  simulatorReceiptDelayMs: number;
}

/** The delivery settings `env` gives (the defaults for an empty one); throws ConfigError on a malformed value. */
export function deliverySettings(env: Env): DeliverySettings {
  return loadConfig(env).delivery;
}

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
