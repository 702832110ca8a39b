// Pricing a voice call before it is placed: the spoken length of its text, estimated from the characters at
// the voice's speed, times the plays and the pauses between them, in started minutes.
import { speakableText } from './speakable.ts';

/** Characters a second the speech engine says at normal speed (espeak-ng at 175 words a minute, Hebrew). */
const CHARS_PER_SECOND = 11;
/** Silence between two plays of the message. */
export const PAUSE_BETWEEN_PLAYS_MS = 1000;

/** The estimated seconds a call plays: the text `repeat` times at `rate` (-10..10), with the pauses between. */
export function estimatedCallSeconds(text: string, rate: number, repeat: number): number {
  const speed = 1 + Math.max(-10, Math.min(10, rate)) * 0.05;
  const once = [...speakableText(text)].length / (CHARS_PER_SECOND * speed);
  return once * repeat + ((repeat - 1) * PAUSE_BETWEEN_PLAYS_MS) / 1000;
}

/** Credits for a call of `seconds`: every started minute at `perMinute`. */
export function callCredits(seconds: number, perMinute: number): number {
  return Math.max(1, Math.ceil(seconds / 60)) * perMinute;
}
