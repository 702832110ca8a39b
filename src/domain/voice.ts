// The length of a voice call before it is placed: the spoken length of its text (as rendered when the send is
// accepted, or estimated from its characters at the voice's speed when it was not), times the plays and the
// pauses between them. Its price (started minutes, the playback cap) is domain/pricing.ts's.
import { speakableText } from './speakable.ts';

/** Characters a second the speech engine says at normal speed (espeak-ng at 175 words a minute, Hebrew). */
const CHARS_PER_SECOND = 11;
/** Silence between two plays of the message. */
export const PAUSE_BETWEEN_PLAYS_MS = 1000;

/** Seconds of rendered speech by text, worked out before a voice send's transaction (absent: estimate). */
export type SpokenLengths = ReadonlyMap<string, number>;

/** The seconds a call plays: speech of `onceSeconds` played `repeat` times, with the pauses between. */
export function callSeconds(onceSeconds: number, repeat: number): number {
  return onceSeconds * repeat + ((repeat - 1) * PAUSE_BETWEEN_PLAYS_MS) / 1000;
}

/** The estimated seconds a call plays: the text `repeat` times at `rate` (-10..10), with the pauses between. */
export function estimatedCallSeconds(text: string, rate: number, repeat: number): number {
  const speed = 1 + Math.max(-10, Math.min(10, rate)) * 0.05;
  return callSeconds([...speakableText(text)].length / (CHARS_PER_SECOND * speed), repeat);
}
