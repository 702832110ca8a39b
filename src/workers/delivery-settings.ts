// Settings of the delivery workers (dispatcher, receipts, inbound), read from the environment:
// YONA_DISPATCH_BATCH, YONA_DISPATCH_LANES, YONA_DISPATCH_LEASE_MS, YONA_DISPATCH_POLL_MS,
// YONA_DISPATCH_MAX_ATTEMPTS, YONA_RECEIPT_WINDOW_MS, YONA_REMOVAL_KEYWORDS, YONA_SIM_RECEIPT_DELAY_MS.
import { ConfigError } from '../config.ts';

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

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** Reads the delivery settings from `env`; throws ConfigError on a malformed value. */
export function deliverySettings(env: NodeJS.ProcessEnv = process.env): DeliverySettings {
  const receiptWindowMs = int(env, 'YONA_RECEIPT_WINDOW_MS', 48 * 3600_000, 1);
  const keywords = (env.YONA_REMOVAL_KEYWORDS ?? 'הסר,STOP,remove').split(',').map((k) => k.trim().toLowerCase()).filter(Boolean);
  return {
    batchSize: int(env, 'YONA_DISPATCH_BATCH', 1000, 1),
    lanes: int(env, 'YONA_DISPATCH_LANES', 2, 1),
    leaseMs: int(env, 'YONA_DISPATCH_LEASE_MS', 120_000, 100),
    pollMs: int(env, 'YONA_DISPATCH_POLL_MS', 200, 1),
    maxAttempts: int(env, 'YONA_DISPATCH_MAX_ATTEMPTS', 20, 1),
    retryBaseMs: 1000,
    retryMaxMs: 300_000,
    receiptWindowMs,
    callWindowMs: int(env, 'YONA_CALL_WINDOW_MS', 15 * 60_000, 1),
    sweepMs: Math.max(10, Math.min(60_000, Math.floor(receiptWindowMs / 4))),
    removalKeywords: keywords,
    simulatorReceiptDelayMs: int(env, 'YONA_SIM_RECEIPT_DELAY_MS', 200),
  };
}

/** Whether an inbound text is a removal request: the whole text, trimmed, is a keyword (case-insensitive;
 *  surrounding quotes and trailing punctuation ignored). */
export function isRemovalRequest(text: string, keywords: string[]): boolean {
  const t = text.normalize('NFC').trim().replace(/^["'״׳]+|["'״׳.!?,;:]+$/gu, '').trim().toLowerCase();
  return t !== '' && keywords.includes(t);
}
