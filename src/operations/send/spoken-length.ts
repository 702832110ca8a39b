// A voice send's speech, rendered before its transaction opens (an operation's prepare step): the call is priced
// on the length of the speech it will play, and the rendering (cached, so a campaign of one text renders once)
// never holds the store. A send without a tts block costs nothing here; one whose speech cannot be rendered now
// is priced on the estimate, and its calls fail (refunded) if it still cannot be spoken when they are placed.
import { pcmSeconds } from '../../speech/g711.ts';
import { sharedSpeech } from '../../speech/speech.ts';
import type { SpokenLengths } from '../../domain/voice.ts';
import { checkMessage, parseTts, type TtsFields } from './options.ts';

/** The seconds of the message as spoken, keyed by its text; undefined for a send without calls. */
export async function spokenLengths(message: string, tts: TtsFields | undefined): Promise<SpokenLengths | undefined> {
  let text: string;
  let options: ReturnType<typeof parseTts>;
  try {
    options = parseTts(tts);
    if (!options) return undefined;
    text = checkMessage(message);
  } catch {
    return undefined; // the handler refuses the send with the reason
  }
  try {
    const pcm = await sharedSpeech().render({ text, voice: options.voice, rate: options.rate });
    return new Map([[text, pcmSeconds(pcm)]]);
  } catch {
    return undefined;
  }
}
