// Text to speech for voice calls: one interface (SpeechEngine), and the engine that ships with Yona, espeak-ng
// (Debian's `espeak-ng`, Hebrew and English) piped through sox into 8 kHz 16-bit linear PCM. Speech is rendered
// once per text, voice and rate (CachedSpeech) whatever law the callee picks: the call encodes it to PCMA or PCMU
// when it is answered (g711.ts), and its length prices the call before it is accepted.
// An operator plugs in a better engine by implementing SpeechEngine: text and voice in, linear PCM out.
import { spawn } from 'node:child_process';
import { speakableText } from '../domain/speakable.ts';
import { G711_RATE } from './g711.ts';

/** The two voices of the API's `tts.voice`. */
export type VoiceName = 'ymMale' | 'ymFemale';

export type { G711Law } from './g711.ts';

export interface SpeechRequest {
  text: string;
  voice: VoiceName;
  /** -10 (slowest) to 10 (fastest); 0 is normal speed. */
  rate: number;
}

/** Renders text to 8 kHz mono 16-bit little-endian linear PCM (two bytes a sample, 8,000 samples a second). */
export interface SpeechEngine {
  render(request: SpeechRequest): Promise<Buffer>;
}

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

/** espeak-ng renders a WAV; sox resamples it to 8 kHz mono 16-bit linear PCM. */
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
    return run(
      'sox',
      [
        '-t',
        'wav',
        '-',
        '-t',
        'raw',
        '-r',
        String(G711_RATE),
        '-c',
        '1',
        '-e',
        'signed-integer',
        '-b',
        '16',
        '-L',
        '-',
      ],
      wav,
    );
  }
}

/** How long renderings took (for metrics): each one that ran, and the requests the cache answered. */
export interface RenderStats {
  rendered: number;
  renderSeconds: number;
  cached: number;
}

/** Renders each distinct request once (a campaign's text is spoken to every recipient from one rendering). */
export class CachedSpeech implements SpeechEngine {
  private readonly cache = new Map<string, Promise<Buffer>>();
  readonly stats: RenderStats = { rendered: 0, renderSeconds: 0, cached: 0 };

  constructor(
    private readonly engine: SpeechEngine,
    private readonly max = 256,
  ) {}

  render(request: SpeechRequest): Promise<Buffer> {
    const key = JSON.stringify([request.text, request.voice, request.rate]);
    let found = this.cache.get(key);
    if (found) {
      this.stats.cached++;
      // Most recently used last, so the oldest unused rendering is the one dropped.
      this.cache.delete(key);
      this.cache.set(key, found);
      return found;
    }
    const started = performance.now();
    found = this.engine.render(request).then((pcm) => {
      this.stats.rendered++;
      this.stats.renderSeconds += (performance.now() - started) / 1000;
      return pcm;
    });
    found.catch(() => this.cache.delete(key));
    if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, found);
    return found;
  }
}

let shared: CachedSpeech | undefined;

/** The process's speech (espeak-ng, cached): what prices a call at acceptance is what its trunk plays. */
export function sharedSpeech(): CachedSpeech {
  shared ??= new CachedSpeech(new EspeakEngine());
  return shared;
}
