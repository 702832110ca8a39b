// The console's input guard, the API's rules applied to forms: every form body, query string and path parameter
// is read here before any page handler, store or operation sees it. A field whose bytes are not text in the body's
// charset (UTF-8 unless the Content-Type names another), sent raw or percent-encoded, is refused (never replaced
// with U+FFFD and sent on), and so is any name or value holding a character the API refuses (C0 controls but tab,
// CR and LF; half a surrogate pair). The refusal names the first such field.
import { bodyText } from '../codec.ts';
import { unsafeCode } from '../input-guard.ts';

/** Where a refused field came from. */
export type FieldSource = 'form' | 'query' | 'path';

export interface FieldProblem {
  source: FieldSource;
  /** The field's name; undefined when the name itself is what is refused (or cannot be read). */
  field: string | undefined;
  /** The refused character (U+0000-U+001F, or half a surrogate pair); undefined: the bytes are not text. */
  code: number | undefined;
}

export type Fields = { ok: true; fields: URLSearchParams } | { ok: false; problem: FieldProblem };

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** The bytes of one urlencoded name or value: `+` a space, `%HH` its byte (a malformed `%` kept as it is). */
function unescapeBytes(raw: Buffer, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(end - start);
  let n = 0;
  for (let i = start; i < end; i++) {
    const b = raw[i];
    if (b === PLUS) out[n++] = SPACE;
    else if (b === PERCENT && i + 2 < end && hexValue(raw[i + 1]) >= 0 && hexValue(raw[i + 2]) >= 0) {
      out[n++] = hexValue(raw[i + 1]) * 16 + hexValue(raw[i + 2]);
      i += 2;
    } else out[n++] = b;
  }
  return out.subarray(0, n);
}

/** Text of one name or value, read as the API's codec reads a body (never replaced with U+FFFD). */
function textOf(bytes: Buffer, contentType: string | undefined): string | undefined {
  const decoded = bodyText(bytes, contentType);
  return decoded.ok ? decoded.text : undefined;
}

/**
 * The fields of an application/x-www-form-urlencoded text (a body, or a query string), in order, repeats kept
 * (URLSearchParams' `get` answers the first), or the first field that is not text or holds a refused character.
 */
export function readFields(raw: Buffer, source: FieldSource, contentType?: string): Fields {
  const fields = new URLSearchParams();
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf(AMPERSAND, start);
    if (end < 0) end = raw.length;
    if (end > start) {
      let eq = raw.indexOf(EQUALS, start);
      if (eq < 0 || eq > end) eq = end;
      const name = textOf(unescapeBytes(raw, start, eq), contentType);
      if (name === undefined) return { ok: false, problem: { source, field: undefined, code: undefined } };
      if (unsafeCode(name) >= 0) return { ok: false, problem: { source, field: undefined, code: unsafeCode(name) } };
      const value = textOf(unescapeBytes(raw, Math.min(eq + 1, end), end), contentType);
      if (value === undefined) return { ok: false, problem: { source, field: name, code: undefined } };
      const code = unsafeCode(value);
      if (code >= 0) return { ok: false, problem: { source, field: name, code } };
      fields.append(name, value);
    }
    start = end + 1;
  }
  return { ok: true, fields };
}

/** Path parameters as the router decoded them: the first holding a refused character, or undefined. */
export function refusedParam(params: Record<string, string>): FieldProblem | undefined {
  for (const [name, value] of Object.entries(params)) {
    const code = unsafeCode(value);
    if (code >= 0) return { source: 'path', field: name, code };
  }
  return undefined;
}
