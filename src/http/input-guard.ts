// Input refused at the door, before any operation or store sees it (a body that is not valid UTF-8 is refused by
// the codec, status 1): any key or text holding a C0 control character other than tab,
// CR and LF, or half of a UTF-16 surrogate pair (status 2, naming the field). PostgreSQL cannot store NUL in text,
// and no handset or report wants the others.

export type Refusal = { status: 2; reason: string };

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** The first character no field may hold (C0 controls but tab, LF and CR; half a surrogate pair), or -1. */
function unsafeCode(text: string): number {
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
  // Most requests hold nothing unsafe: a first pass looks without building the paths the refusal names.
  if (!holdsUnsafe(doc)) return undefined;
  const found = firstUnsafe(doc, root);
  if (!found) return undefined;
  return { status: 2, reason: `Invalid value for field ${found.path}: ${describe(found.code)}` };
}

function holdsUnsafe(value: unknown): boolean {
  if (typeof value === 'string') return unsafeCode(value) >= 0;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsUnsafe(item)) return true;
    return false;
  }
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    if (unsafeCode(key) >= 0 || holdsUnsafe(record[key])) return true;
  }
  return false;
}

function firstUnsafe(value: unknown, path: string): { path: string; code: number } | undefined {
  if (typeof value === 'string') {
    const code = unsafeCode(value);
    return code < 0 ? undefined : { path, code };
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstUnsafe(item, path);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const code = unsafeCode(key);
    if (code >= 0) return { path: `${path} (a field name)`, code };
    const found = firstUnsafe(inner, key === '$' || key === '_' ? path : `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}
