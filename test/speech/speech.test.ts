// Text to speech for calls (src/speech/): codes read digit by digit, the API's rate mapped to espeak-ng speeds, and
// Hebrew rendered in two distinct voices to 8 kHz linear PCM that both G.711 laws carry, once per text and voice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeG711, type G711Law } from '../../src/speech/g711.ts';
import { CachedSpeech, EspeakEngine, espeakSpeed, speakableText } from '../../src/speech/speech.ts';
import { voiceToolsAvailable } from '../helpers/sipp.ts';

const available = voiceToolsAvailable();
const speech = new CachedSpeech(new EspeakEngine());
const TEXT = 'שלום, הקוד שלך הוא 482913';
/** The message as the callee hears it in `law`. */
const heard = async (law: G711Law, voice: 'ymMale' | 'ymFemale' = 'ymMale', rate = 0) =>
  encodeG711(await speech.render({ text: TEXT, voice, rate }), law);

describe('speech for calls', { skip: !available }, () => {
  it('reads codes digit by digit and maps the rate to espeak-ng speeds', () => {
    assert.equal(speakableText('your code is 482913, call 03'), 'your code is 4, 8, 2, 9, 1, 3, call 03');
    assert.deepEqual([espeakSpeed(-10), espeakSpeed(0), espeakSpeed(10)], [88, 175, 263]);
  });

  it('renders Hebrew in two audibly distinct voices, 8 kHz G.711, faster at a higher rate', async () => {
    const male = await heard('pcma');
    const female = await heard('pcma', 'ymFemale');
    const fast = await heard('pcma', 'ymMale', 10);
    const mulaw = await heard('pcmu');
    assert.ok(male.length > 8000 * 1.5, `${male.length / 8000} s of speech`);
    assert.ok(!male.equals(female), 'the voices differ');
    assert.ok(fast.length < male.length * 0.8, `rate 10 is faster: ${fast.length} against ${male.length} samples`);
    assert.equal(mulaw.length, male.length, 'both laws carry the same samples');
    assert.ok(!mulaw.equals(male));
    assert.equal(
      await speech.render({ text: TEXT, voice: 'ymMale', rate: 0 }),
      await speech.render({ text: TEXT, voice: 'ymMale', rate: 0 }),
      'rendered once, then cached',
    );
  });
});
