// Text to speech for voice calls: one interface (SpeechEngine), and the engine that ships with Yona, espeak-ng
// (Debian's `espeak-ng`, Hebrew and English) piped through sox into 8 kHz G.711, the audio of a SIP call.
// An operator plugs in a better engine by implementing SpeechEngine: text and voice in, G.711 frames out.
import { spawn } from 'node:child_process';
import { speakableText } from '../../domain/speakable.ts';

/** The two voices of the API's `tts.voice`. */
export type VoiceName = 'ymMale' | 'ymFemale';

/** G.711 in its two laws: PCMU (mu-law, RTP payload type 0) and PCMA (A-law, 8). */
export type G711Law = 'pcmu' | 'pcma';

export interface SpeechRequest {
  text: string;
  voice: VoiceName;
  /** -10 (slowest) to 10 (fastest); 0 is normal speed. */
  rate: number;
  law: G711Law;
}

/** Renders text to 8 kHz mono G.711 samples (one byte per sample, 8,000 a second). */
export interface SpeechEngine {
  render(request: SpeechRequest): Promise<Buffer>;
}

/** Samples per second of G.711. */
export const G711_RATE = 8000;

/** espeak-ng words a minute for a `tts.rate` of -10..10 (175 is its normal speed; each step 5%). */
export function espeakSpeed(rate: number): number {
  const r = Math.max(-10, Math.min(10, Math.round(rate)));
  return Math.round(175 * (1 + r * 0.05));
}

/** espeak-ng's voice: Hebrew when the text has Hebrew letters, else English; the female voice is variant f3. */
export function espeakVoice(text: string, voice: VoiceName): string {
  const language = /[\u0590-\u05ff]/.test(text) ? 'he' : 'en';
  return voice === 'ymFemale' ? `${language}+f3` : language;
}

export { speakableText };

function run(command: string, args: string[], input: Buffer | null): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) =>
      reject(
        new Error(
          `${command} could not run: ${e.message} (install Debian's ${command === 'sox' ? 'sox' : 'espeak-ng'})`,
        ),
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${command} exited ${code}: ${Buffer.concat(err).toString().trim().slice(0, 300)}`));
    });
    child.stdin.on('error', () => {}); // a failing child closes its input early; its exit code says why
    child.stdin.end(input ?? undefined);
  });
}

/** espeak-ng renders a WAV; sox resamples it to 8 kHz mono G.711 of the asked law. */
export class EspeakEngine implements SpeechEngine {
  async render(request: SpeechRequest): Promise<Buffer> {
    const wav = await run(
      'espeak-ng',
      [
        '-v',
        espeakVoice(request.text, request.voice),
        '-s',
        String(espeakSpeed(request.rate)),
        '--stdout',
        speakableText(request.text),
      ],
      null,
    );
    const encoding = request.law === 'pcmu' ? 'u-law' : 'a-law';
    return run(
      'sox',
      ['-t', 'wav', '-', '-t', 'raw', '-r', String(G711_RATE), '-c', '1', '-e', encoding, '-b', '8', '-'],
      wav,
    );
  }
}

/** Renders each distinct request once (a campaign's text is spoken to every recipient from one rendering). */
export class CachedSpeech implements SpeechEngine {
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly engine: SpeechEngine,
    private readonly max = 256,
  ) {}

  render(request: SpeechRequest): Promise<Buffer> {
    const key = JSON.stringify([request.text, request.voice, request.rate, request.law]);
    let found = this.cache.get(key);
    if (!found) {
      found = this.engine.render(request);
      found.catch(() => this.cache.delete(key));
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, found);
    }
    return found;
  }
}
