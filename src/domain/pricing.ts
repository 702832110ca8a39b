// What a message costs, in one place: a text by its SMS parts (credits at home, money abroad), a call by the
// started minutes of what it plays. The send's acceptance and the follow-up call of a filtered handset both
// price here; a call's paid seconds are also its playback cap (the trunk plays at most what was paid for).
import { callSeconds, estimatedCallSeconds } from './voice.ts';

/** Credits a text of `parts` costs: `creditsPerPart` (one by default) a part at home; international texts and free sends none. */
export function smsCredits(
  parts: number,
  international: boolean | undefined,
  free: boolean,
  creditsPerPart = 1,
): number {
  return free || international ? 0 : parts * creditsPerPart;
}

/** Money (agorot) a text of `parts` costs: `priceAgorot` a part abroad; home texts and free sends none. */
export function smsAgorot(
  parts: number,
  international: boolean | undefined,
  free: boolean,
  priceAgorot: number,
): number {
  return free || !international ? 0 : parts * priceAgorot;
}

/** The seconds a call of `seconds` is paid for, and plays at most: its started minutes (at least one). */
export function paidCallSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / 60)) * 60;
}

/** Credits for a call of `seconds`: every started minute (at least one) at `perMinute`. */
export function callCredits(seconds: number, perMinute: number): number {
  return Math.max(1, Math.ceil(seconds / 60)) * perMinute;
}

/** A call's price: the seconds it plays, its credits, and the seconds paid for (its playback cap). */
export interface CallPrice {
  seconds: number;
  credits: number;
  paidSeconds: number;
}

/** How a call speaks its text: the voice's rate (-10..10) and the plays. */
export interface CallDelivery {
  rate: number;
  repeat: number;
}

/**
 * The price of a call speaking `text`: on the speech's rendered length (`onceSeconds`, one play) when known,
 * else on the estimate from its characters, times the plays with the pauses between.
 */
export function callPrice(
  text: string,
  how: CallDelivery,
  perMinute: number,
  onceSeconds: number | undefined,
): CallPrice {
  const seconds =
    onceSeconds !== undefined ? callSeconds(onceSeconds, how.repeat) : estimatedCallSeconds(text, how.rate, how.repeat);
  return { seconds, credits: callCredits(seconds, perMinute), paidSeconds: paidCallSeconds(seconds) };
}
