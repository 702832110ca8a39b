// Input refused at the door, before any operation or store sees it (a body that is not valid UTF-8 is refused by
// the codec, status 1): any key or text holding a C0 control character other than tab,
// CR and LF, or half of a UTF-16 surrogate pair (status 2, naming the field). PostgreSQL cannot store NUL in text,
// and no handset or report wants the others.

export type Refusal = { status: 2; reason: string };

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** The first character no field may hold (C0 controls but tab, LF and CR; half a surrogate pair), or -1. */
export function unsafeCode(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) {
      if (c !== TAB && c !== LF && c !== CR) return c;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (c >= 0xdc00 || !(next >= 0xdc00 && next <= 0xdfff)) return c;
      i++;
    }
  }
  return -1;
}

function describe(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code < 0x20 ? `control character ${hex} is not accepted` : `lone surrogate ${hex} is not text`;
}

/** Status 2 naming the first field whose name or text holds a character no field may hold. */
export function refuseUnsafeText(root: string, doc: unknown): Refusal | undefined {
  const found = firstUnsafe(doc);
  if (!found) return undefined;
  const path = [root, ...found.keys].join('.') + (found.inName ? ' (a field name)' : '');
  return { status: 2, reason: `Invalid value for field ${path}: ${describe(found.code)}` };
}

interface Unsafe {
  /** The keys down to the field, outermost first (xml2js's `$` and `_` left out). */
  keys: string[];
  code: number;
  /** The character is in the field's name, not its text. */
  inName: boolean;
}

// The path is gathered on the way back from a finding only: most requests hold nothing unsafe, and building a
// path for every key they hold cost more than the check itself.
function firstUnsafe(value: unknown): Unsafe | undefined {
  if (typeof value === 'string') {
    const code = unsafeCode(value);
    return code < 0 ? undefined : { keys: [], code, inName: false };
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstUnsafe(item);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const code = unsafeCode(key);
    if (code >= 0) return { keys: [], code, inName: true };
    const found = firstUnsafe(record[key]);
    if (!found) continue;
    if (key !== '$' && key !== '_') found.keys.unshift(key);
    return found;
  }
  return undefined;
}
