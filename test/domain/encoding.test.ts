import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SegmentedMessage } from 'sms-segments-calculator';
import oracleTableModule from 'sms-segments-calculator/dist/libs/UnicodeToGSM.js';
import { decodeFromSmpp, encodeForSmpp } from '../../src/carriers/smpp/encoding.ts';
import { countParts, detectEncoding } from '../../src/domain/encoding.ts';
import { mulberry32 } from '../helpers/random.ts';

// The oracle's own char -> GSM code units table (a CommonJS default export), used as an independent reference.
const oracleTable = ((oracleTableModule as unknown as { default?: Record<string, number[]> }).default ??
  oracleTableModule) as Record<string, number[]>;
const ORACLE_GSM_CHARS = Object.keys(oracleTable).map((code) => String.fromCharCode(Number(code)));

const EXTENSION_CHARS = '^{}\\[~]|€\f';
const ENGLISH = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,!?-:;\'"()@#%&*+/=<>\n';
const HEBREW = `${Array.from({ length: 0x05ea - 0x05d0 + 1 }, (_, i) => String.fromCharCode(0x05d0 + i)).join('')} .,!?0123`;
const EMOJI = Array.from({ length: 0x50 }, (_, i) => String.fromCodePoint(0x1f600 + i)); // single code points, no ZWJ
const NON_GSM_LATIN = '`çáíóúêôÁ';

const rand = mulberry32(0x5eed019);
const pick = <T>(items: ArrayLike<T>): T => items[Math.floor(rand() * items.length)];

type Pool = { name: string; chars: string[] };
const pools: Pool[] = [
  { name: 'english', chars: [...ENGLISH] },
  { name: 'english+extension', chars: [...ENGLISH, ...ENGLISH, ...EXTENSION_CHARS] },
  { name: 'full gsm', chars: ORACLE_GSM_CHARS },
  { name: 'extension only', chars: [...EXTENSION_CHARS] },
  { name: 'hebrew', chars: [...HEBREW] },
  { name: 'hebrew+emoji+english', chars: [...HEBREW, ...EMOJI.slice(0, 8), ...ENGLISH] },
  { name: 'emoji', chars: EMOJI },
  { name: 'english+rare non-gsm', chars: [...ENGLISH, ...ENGLISH, ...ENGLISH, ...NON_GSM_LATIN] },
  { name: 'gsm+extension+hebrew', chars: [...ORACLE_GSM_CHARS, ...EXTENSION_CHARS, 'ש'] },
];

const BOUNDARIES = [
  0, 1, 69, 70, 71, 133, 134, 135, 152, 153, 154, 159, 160, 161, 201, 202, 305, 306, 307, 459, 460, 461,
];

// Builds a string from a pool whose size in its own units (septets for gsm7, code units for ucs2) is near target.
function generate(pool: Pool, target: number): string {
  let s = '';
  let size = 0;
  while (size < target) {
    const ch = pick(pool.chars);
    s += ch;
    size = countUnitsIndependently(s);
  }
  return s;
}

// Unit count computed from the oracle's table, not from the module under test.
function countUnitsIndependently(s: string): number {
  const chars = [...s];
  if (chars.every((c) => c.length === 1 && oracleTable[c.charCodeAt(0)])) {
    return chars.reduce((n, c) => n + oracleTable[c.charCodeAt(0)].length, 0);
  }
  return s.length;
}

function samples(): Array<{ pool: string; text: string }> {
  const out: Array<{ pool: string; text: string }> = [];
  for (const pool of pools) {
    for (const target of BOUNDARIES) out.push({ pool: pool.name, text: generate(pool, target) });
    for (let i = 0; i < 150; i++) out.push({ pool: pool.name, text: generate(pool, Math.floor(rand() * 700)) });
  }
  return out;
}

// Expected unpacked GSM bytes per the oracle's table, or UTF-16BE for UCS-2.
function expectedBody(text: string, encoding: 'gsm7' | 'ucs2'): Buffer {
  if (encoding === 'gsm7') return Buffer.from([...text].flatMap((c) => oracleTable[c.charCodeAt(0)]));
  return Buffer.from(text, 'utf16le').swap16();
}

describe('detectEncoding', () => {
  it('treats every default-alphabet and extension character as gsm7', () => {
    assert.equal(ORACLE_GSM_CHARS.length, 137); // 128 septets minus ESC, plus 10 extension characters
    for (const ch of ORACLE_GSM_CHARS)
      assert.equal(detectEncoding(ch), 'gsm7', `char U+${ch.charCodeAt(0).toString(16)}`);
    assert.equal(detectEncoding(ORACLE_GSM_CHARS.join('')), 'gsm7');
  });

  it('needs ucs2 for Hebrew, emoji and Latin letters outside GSM 03.38', () => {
    assert.equal(detectEncoding('שלום'), 'ucs2');
    assert.equal(detectEncoding('Hello 😀'), 'ucs2');
    assert.equal(detectEncoding('price `5`'), 'ucs2');
    assert.equal(detectEncoding('ça va'), 'ucs2'); // only capital Ç is in the table
    assert.equal(detectEncoding('Ça va'), 'gsm7');
    assert.equal(detectEncoding('a\x1bb'), 'ucs2'); // a raw ESC is not a character
    assert.equal(detectEncoding('tab\there'), 'ucs2');
  });

  it('is gsm7 for the empty text and plain English', () => {
    assert.equal(detectEncoding(''), 'gsm7');
    assert.equal(detectEncoding('Your code is 1234. {Valid} for 5 min €'), 'gsm7');
  });
});

describe('countParts', () => {
  const cases: Array<[string, string, number, number]> = [
    ['empty', '', 1, 0],
    ['160 septets', 'a'.repeat(160), 1, 160],
    ['161 septets', 'a'.repeat(161), 2, 161],
    ['306 septets', 'a'.repeat(306), 2, 306],
    ['307 septets', 'a'.repeat(307), 3, 307],
    ['80 euro signs = 160 septets', '€'.repeat(80), 1, 160],
    ['81 euro signs = 162 septets, 76 pairs per part', '€'.repeat(81), 2, 162],
    ['153 pairs = 306 septets but 76 pairs per part', '€'.repeat(153), 3, 306],
    ['70 Hebrew', 'א'.repeat(70), 1, 70],
    ['71 Hebrew', 'א'.repeat(71), 2, 71],
    ['134 Hebrew', 'א'.repeat(134), 2, 134],
    ['135 Hebrew', 'א'.repeat(135), 3, 135],
    ['35 emoji = 70 units', '😀'.repeat(35), 1, 70],
    ['36 emoji = 72 units, 33 per part', '😀'.repeat(36), 2, 72],
    ['67 emoji = 134 units but 33 per part', '😀'.repeat(67), 3, 134],
  ];
  for (const [name, text, parts, units] of cases) {
    it(`${name}: ${parts} part(s), ${units} units`, () => {
      const result = countParts(text);
      assert.equal(result.parts, parts);
      assert.equal(result.units, units);
      assert.equal(result.dataCoding, result.encoding === 'gsm7' ? 0 : 8);
    });
  }

  it('does not split an escape pair: 152 letters then a euro sign start the second part with the euro', () => {
    const text = `${'a'.repeat(152)}€${'b'.repeat(10)}`;
    assert.deepEqual(countParts(text), { encoding: 'gsm7', parts: 2, units: 164, dataCoding: 0 });
    const { parts } = encodeForSmpp(text, 9);
    assert.equal(parts[0].length, 6 + 152);
    assert.deepEqual([...parts[1].subarray(6, 8)], [0x1b, 0x65]);
  });

  it('does not split a surrogate pair: 66 Hebrew then an emoji start the second part with the emoji', () => {
    const text = `${'א'.repeat(66)}😀${'ב'.repeat(5)}`;
    assert.deepEqual(countParts(text), { encoding: 'ucs2', parts: 2, units: 73, dataCoding: 8 });
    const { parts } = encodeForSmpp(text, 9);
    assert.equal(parts[0].length, 6 + 66 * 2);
    assert.deepEqual([...parts[1].subarray(6, 10)], [0xd8, 0x3d, 0xde, 0x00]);
  });
});

describe('encodeForSmpp', () => {
  it('sends a short English text as unpacked septets without UDH', () => {
    assert.deepEqual(encodeForSmpp('Hi @£$_', 0), {
      dataCoding: 0,
      esmClass: 0,
      parts: [Buffer.from([0x48, 0x69, 0x20, 0x00, 0x01, 0x02, 0x11])],
    });
  });

  it('escapes extension characters with 0x1B', () => {
    const { parts } = encodeForSmpp('[€]^{}\\~|\f', 0);
    assert.deepEqual(
      [...parts[0]],
      [
        0x1b, 0x3c, 0x1b, 0x65, 0x1b, 0x3e, 0x1b, 0x14, 0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x2f, 0x1b, 0x3d, 0x1b, 0x40,
        0x1b, 0x0a,
      ],
    );
  });

  it('sends Hebrew as UTF-16BE with data_coding 8', () => {
    assert.deepEqual(encodeForSmpp('שלום', 0), {
      dataCoding: 8,
      esmClass: 0,
      parts: [Buffer.from([0x05, 0xe9, 0x05, 0xdc, 0x05, 0xd5, 0x05, 0xdd])],
    });
  });

  it('prefixes each part of a long text with a 6-byte concatenation UDH and sets esm_class 0x40', () => {
    const text = 'x'.repeat(400);
    const { dataCoding, esmClass, parts } = encodeForSmpp(text, 200);
    assert.equal(dataCoding, 0);
    assert.equal(esmClass, 0x40);
    assert.equal(parts.length, 3);
    parts.forEach((part, i) => assert.deepEqual([...part.subarray(0, 6)], [0x05, 0x00, 0x03, 200, 3, i + 1]));
    assert.deepEqual(
      parts.map((p) => p.length - 6),
      [153, 153, 94],
    );
  });

  it('splits long UCS-2 text into 67-unit parts of 134 bytes', () => {
    const { dataCoding, esmClass, parts } = encodeForSmpp('ש'.repeat(140), 255);
    assert.equal(dataCoding, 8);
    assert.equal(esmClass, 0x40);
    assert.deepEqual(
      parts.map((p) => p.length - 6),
      [134, 134, 12],
    );
    assert.equal(parts[2][3], 255);
  });

  it('sends the empty text as one empty part', () => {
    assert.deepEqual(encodeForSmpp('', 1), { dataCoding: 0, esmClass: 0, parts: [Buffer.alloc(0)] });
  });

  it('rejects a reference number outside 0..255', () => {
    for (const bad of [-1, 256, 1.5, Number.NaN]) assert.throws(() => encodeForSmpp('hi', bad), RangeError);
  });
});

describe('decodeFromSmpp', () => {
  it('reads data_coding 0 and 1 as the GSM default alphabet, including escapes', () => {
    const payload = Buffer.from([0x00, 0x48, 0x1b, 0x65, 0x11, 0x7d]);
    assert.deepEqual(decodeFromSmpp(payload, 0, false), { text: '@H€_ñ' });
    assert.deepEqual(decodeFromSmpp(payload, 1, false), { text: '@H€_ñ' });
  });

  it('reads data_coding 3 as latin1 and 8 as UTF-16BE', () => {
    assert.equal(decodeFromSmpp(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 3, false).text, 'café');
    assert.equal(decodeFromSmpp(Buffer.from([0x05, 0xe9, 0xd8, 0x3d, 0xde, 0x00]), 8, false).text, 'ש😀');
  });

  it('returns the concatenation header of a part (8-bit and 16-bit reference forms)', () => {
    const eight = Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x04, 0x02, 0x48, 0x69]);
    assert.deepEqual(decodeFromSmpp(eight, 0, true), { text: 'Hi', udh: { ref: 0x2a, total: 4, seq: 2 } });
    const sixteen = Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 0x03, 0x01, 0x05, 0xd0]);
    assert.deepEqual(decodeFromSmpp(sixteen, 8, true), { text: 'א', udh: { ref: 0x1234, total: 3, seq: 1 } });
  });

  it('skips a UDH that carries no concatenation element', () => {
    const ports = Buffer.from([0x06, 0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0, 0x48]);
    assert.deepEqual(decodeFromSmpp(ports, 0, true), { text: 'H' });
  });

  it('rejects a malformed UDH and an unsupported data_coding', () => {
    assert.throws(() => decodeFromSmpp(Buffer.from([0x05, 0x00, 0x03]), 0, true), RangeError);
    assert.throws(() => decodeFromSmpp(Buffer.from([0x03, 0x00, 0x03, 0x01]), 0, true), RangeError);
    assert.throws(() => decodeFromSmpp(Buffer.alloc(0), 0, true), RangeError);
    assert.throws(() => decodeFromSmpp(Buffer.from('hi'), 4, false), RangeError);
  });

  it('decodes broken GSM input leniently, per 23.038 display rules', () => {
    assert.equal(decodeFromSmpp(Buffer.from([0x1b, 0x41]), 0, false).text, 'A'); // unknown extension code
    assert.equal(decodeFromSmpp(Buffer.from([0x1b, 0x1b, 0x41]), 0, false).text, ' A');
    assert.equal(decodeFromSmpp(Buffer.from([0x48, 0x1b]), 0, false).text, 'H'); // dangling escape
    assert.equal(decodeFromSmpp(Buffer.from([0x48, 0xc8]), 0, false).text, 'H\uFFFD');
    assert.equal(decodeFromSmpp(Buffer.from([0x05, 0xd0, 0x05]), 8, false).text, 'א\uFFFD');
  });

  it('decodes all 137 GSM characters back from their encoding', () => {
    const text = ORACLE_GSM_CHARS.join('');
    const { parts } = encodeForSmpp(text, 7);
    assert.equal(parts.map((p) => decodeFromSmpp(p, 0, false).text).join(''), text);
  });
});

describe('against the sms-segments-calculator oracle, over generated texts', () => {
  const all = samples();

  it(`agrees on encoding, parts, units and per-part sizes (${all.length} texts)`, () => {
    let multiPart = 0;
    for (const { pool, text } of all) {
      const label = `${pool}: ${JSON.stringify(text)}`;
      const ours = countParts(text);
      const oracle = new SegmentedMessage(text);
      assert.equal(ours.encoding, oracle.encodingName === 'GSM-7' ? 'gsm7' : 'ucs2', label);
      assert.equal(ours.parts, oracle.segmentsCount, label);
      const units = ours.encoding === 'gsm7' ? oracle.numberOfCharacters : oracle.messageSize / 16;
      assert.equal(ours.units, units, label);

      const { parts } = encodeForSmpp(text, 0);
      const bitsPerByte = ours.encoding === 'gsm7' ? 7 : 8;
      const headerBytes = parts.length > 1 ? 6 : 0;
      assert.deepEqual(
        parts.map((p) => p.length - headerBytes),
        oracle.segments.map((segment) => segment.messageSizeInBits() / bitsPerByte),
        label,
      );
      if (parts.length > 1) multiPart++;
    }
    assert.ok(multiPart > 300, `only ${multiPart} multi-part samples; the generator lost its spread`);
  });

  it('encodes the bytes the oracle table predicts, within part limits', () => {
    for (const { pool, text } of all) {
      const label = `${pool}: ${JSON.stringify(text)}`;
      const { dataCoding, esmClass, parts } = encodeForSmpp(text, 77);
      const encoding = dataCoding === 0 ? 'gsm7' : 'ucs2';
      const multi = parts.length > 1;
      assert.equal(esmClass, multi ? 0x40 : 0, label);
      const bodies = parts.map((p) => (multi ? p.subarray(6) : p));
      assert.deepEqual(Buffer.concat(bodies), expectedBody(text, encoding), label);
      for (const body of bodies) {
        const limit = encoding === 'gsm7' ? (multi ? 153 : 160) : multi ? 134 : 140;
        assert.ok(body.length <= limit, `${label}: part of ${body.length} bytes`);
        if (encoding === 'gsm7') {
          // An escape byte is never the last byte of a part (its pair stays together).
          assert.notEqual(body[body.length - 1], 0x1b, label);
        } else if (body.length > 0) {
          const last = body.readUInt16BE(body.length - 2);
          assert.ok(last < 0xd800 || last > 0xdbff, `${label}: part ends with a high surrogate`);
        }
      }
    }
  });

  it('round-trips every text through encode and decode, with consistent UDH', () => {
    for (const { pool, text } of all) {
      const label = `${pool}: ${JSON.stringify(text)}`;
      const ref = Math.floor(rand() * 256);
      const { dataCoding, esmClass, parts } = encodeForSmpp(text, ref);
      const hasUdh = (esmClass & 0x40) !== 0;
      const decoded = parts.map((p) => decodeFromSmpp(p, dataCoding, hasUdh));
      assert.equal(decoded.map((d) => d.text).join(''), text, label);
      decoded.forEach((d, i) => {
        if (hasUdh) assert.deepEqual(d.udh, { ref, total: parts.length, seq: i + 1 }, label);
        else assert.equal(d.udh, undefined, label);
      });
    }
  });
});
