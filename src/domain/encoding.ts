// GSM 03.38 (3GPP TS 23.038) text handling: which alphabet a message needs, how many parts it takes,
// and the bodies of its parts (unpacked septets or UTF-16BE) that a carrier protocol wraps in its own PDUs.

export type Encoding = 'gsm7' | 'ucs2';

export interface PartCount {
  encoding: Encoding;
  parts: number;
  /** GSM-7 septets (extension characters count 2) or UTF-16 code units. */
  units: number;
  dataCoding: 0 | 8;
}

// The default alphabet, indexed by septet value. 0x1B is the escape to the extension table, never a character.
const BASIC_TABLE =
  '@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5' + // 0x00 @£$¥èéùìòÇ LF Øø CR Åå
  '\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e\x1b\u00c6\u00e6\u00df\u00c9' + // 0x10 Δ_ΦΓΛΩΠΨΣΘΞ ESC ÆæßÉ
  ' !"#\u00a4%&\'()*+,-./' + // 0x20, ¤ where ASCII has $
  '0123456789:;<=>?' + // 0x30
  '\u00a1ABCDEFGHIJKLMNO' + // 0x40 ¡ where ASCII has @
  'PQRSTUVWXYZ\u00c4\u00d6\u00d1\u00dc\u00a7' + // 0x50 Ä Ö Ñ Ü §
  '\u00bfabcdefghijklmno' + // 0x60 ¿
  'pqrstuvwxyz\u00e4\u00f6\u00f1\u00fc\u00e0'; // 0x70 äöñüà

const ESC = 0x1b;

// Extension table: septet after ESC -> character.
const EXTENSION_TABLE: ReadonlyArray<readonly [number, string]> = [
  [0x0a, '\f'],
  [0x14, '^'],
  [0x28, '{'],
  [0x29, '}'],
  [0x2f, '\\'],
  [0x3c, '['],
  [0x3d, '~'],
  [0x3e, ']'],
  [0x40, '|'],
  [0x65, '\u20ac'], // €
];

const BASIC_SEPTET = new Map<string, number>();
for (let septet = 0; septet < BASIC_TABLE.length; septet++) {
  if (septet !== ESC) BASIC_SEPTET.set(BASIC_TABLE[septet], septet);
}
const EXTENSION_SEPTET = new Map<string, number>(EXTENSION_TABLE.map(([septet, ch]) => [ch, septet]));
const EXTENSION_CHAR = new Map<number, string>(EXTENSION_TABLE);

const GSM_SINGLE = 160;
const GSM_CONCAT = 153;
const UCS2_SINGLE = 70;
const UCS2_CONCAT = 67;

// Picks the alphabet a text must be sent in: gsm7 when every character is in GSM 03.38, else ucs2.
export function detectEncoding(text: string): Encoding {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (!BASIC_SEPTET.has(ch) && !EXTENSION_SEPTET.has(ch)) return 'ucs2';
  }
  return 'gsm7';
}

// Counts the SMS parts (and septets or code units) a text takes, as a carrier will bill it.
export function countParts(text: string): PartCount {
  const encoding = detectEncoding(text);
  if (encoding === 'gsm7') {
    const chars = toSeptets(text);
    const units = chars.reduce((sum, c) => sum + c.length, 0);
    return { encoding, parts: splitGsm(chars).length, units, dataCoding: 0 };
  }
  return { encoding, parts: splitUcs2(text).length, units: text.length, dataCoding: 8 };
}

// The bodies of a text's parts in its alphabet (unpacked GSM septets, or UTF-16BE), before any header.
export function encodeBodies(text: string): { dataCoding: 0 | 8; bodies: Buffer[] } {
  return detectEncoding(text) === 'gsm7'
    ? { dataCoding: 0, bodies: splitGsm(toSeptets(text)).map((septets) => Buffer.from(septets)) }
    : { dataCoding: 8, bodies: splitUcs2(text).map(utf16be) };
}

// Per character: its septet, or ESC and its septet for extension characters. Caller has checked it is gsm7.
function toSeptets(text: string): number[][] {
  const chars: number[][] = [];
  for (let i = 0; i < text.length; i++) {
    const basic = BASIC_SEPTET.get(text[i]);
    if (basic !== undefined) chars.push([basic]);
    else chars.push([ESC, EXTENSION_SEPTET.get(text[i]) as number]);
  }
  return chars;
}

// Splits per-character septets into parts, keeping each escape pair within one part.
function splitGsm(chars: number[][]): number[][] {
  const all = chars.flat();
  if (all.length <= GSM_SINGLE) return [all];
  const parts: number[][] = [];
  let current: number[] = [];
  for (const c of chars) {
    if (current.length + c.length > GSM_CONCAT) {
      parts.push(current);
      current = [];
    }
    current.push(...c);
  }
  parts.push(current);
  return parts;
}

// Splits a text into UCS-2 parts by code units, keeping each surrogate pair within one part.
function splitUcs2(text: string): string[] {
  if (text.length <= UCS2_SINGLE) return [text];
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + UCS2_CONCAT, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end--;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function utf16be(text: string): Buffer {
  const buf = Buffer.alloc(text.length * 2);
  for (let i = 0; i < text.length; i++) buf.writeUInt16BE(text.charCodeAt(i), i * 2);
  return buf;
}

/** UTF-16BE (UCS-2) bytes as text; an odd trailing byte shows as U+FFFD. */
export function fromUtf16be(body: Buffer): string {
  let text = '';
  for (let i = 0; i + 1 < body.length; i += 2) text += String.fromCharCode(body.readUInt16BE(i));
  // An odd trailing byte is a broken payload; mark it rather than drop it silently.
  if (body.length % 2 === 1) text += '\uFFFD';
  return text;
}

/** Unpacked GSM 03.38 septets as text (extension table included). */
export function fromSeptets(body: Buffer): string {
  let text = '';
  for (let i = 0; i < body.length; i++) {
    const septet = body[i];
    if (septet > 0x7f) {
      text += '\uFFFD';
    } else if (septet === ESC) {
      const next = body[i + 1];
      i++;
      if (next === undefined) break; // a dangling escape at the end carries no character
      // 23.038: an unknown extension code shows the default-table character; ESC ESC shows a space.
      text += EXTENSION_CHAR.get(next) ?? (next === ESC || next > 0x7f ? ' ' : BASIC_TABLE[next]);
    } else {
      text += BASIC_TABLE[septet];
    }
  }
  return text;
}
