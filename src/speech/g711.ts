// G.711 (ITU-T G.711) encoders: 16-bit linear PCM to A-law (PCMA, RTP payload type 8) or mu-law (PCMU, 0), the
// two laws a SIP trunk's SDP answer may choose. Speech is rendered once to linear PCM and encoded in the law the
// answer chose when the call is answered.

/** G.711 in its two laws: PCMU (mu-law, RTP payload type 0) and PCMA (A-law, 8). */
export type G711Law = 'pcmu' | 'pcma';

/** Samples per second of G.711 (and of the linear PCM speech is rendered to). */
export const G711_RATE = 8000;

const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;

/** One 16-bit sample in mu-law. */
export function linearToMulaw(sample: number): number {
  let s = sample;
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  if (s > MULAW_CLIP) s = MULAW_CLIP;
  s += MULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** One 16-bit sample in A-law. */
export function linearToAlaw(sample: number): number {
  let s = sample >> 3; // A-law works on 13 bits
  let sign = 0x80;
  if (s < 0) {
    sign = 0;
    s = -s - 1;
  }
  if (s > 0x0fff) s = 0x0fff;
  let encoded: number;
  if (s < 32) encoded = s >> 1;
  else {
    let exponent = 1;
    for (let v = s >> 5; v > 1; v >>= 1) exponent++;
    encoded = (exponent << 4) | ((s >> exponent) & 0x0f);
  }
  return (encoded | sign) ^ 0x55;
}

const TABLES: Record<G711Law, Uint8Array> = { pcma: new Uint8Array(65536), pcmu: new Uint8Array(65536) };
for (let i = 0; i < 65536; i++) {
  const sample = i < 32768 ? i : i - 65536;
  TABLES.pcma[i] = linearToAlaw(sample);
  TABLES.pcmu[i] = linearToMulaw(sample);
}

/** Encodes 16-bit little-endian linear PCM into one byte a sample of `law`. */
export function encodeG711(pcm: Buffer, law: G711Law): Buffer {
  const table = TABLES[law];
  const samples = pcm.length >> 1;
  const out = Buffer.allocUnsafe(samples);
  for (let i = 0; i < samples; i++) out[i] = table[pcm.readUInt16LE(i * 2)];
  return out;
}

/** Seconds of 8 kHz 16-bit linear PCM. */
export function pcmSeconds(pcm: Buffer): number {
  return pcm.length / 2 / G711_RATE;
}
