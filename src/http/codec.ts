// The wire codec: JSON and XML bodies decode into one document model (xml2js shape); replies encode back
// in the request's encoding. No DTDs or entities: a body declaring them is refused. Nothing parses a body before
// its shape limits are checked (body-shape.ts).
import { isUtf8 } from 'node:buffer';
import xml2js from 'xml2js';
import { statusMessage } from '../domain/status.ts';
import { scanJson, scanXml } from './body-shape.ts';
import type { Reply } from '../operations/types.ts';

export type Encoding = 'json' | 'xml';

export type Decoded =
  | { ok: true; root: string; doc: Record<string, unknown> }
  | { ok: false; status: 1 | 997; reason: string };

export type BodyText = { ok: true; text: string } | { ok: false; status: 1; reason: string };

/** A status-1 message: the catalogue text, then what was wrong. */
export function parseProblem(detail: string): string {
  return `${statusMessage(1)}: ${detail}`;
}

/** The media type of a Content-Type header, lower case ('' when missing or empty). */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Picks the encoding from the content type; a missing, empty or unknown one is sniffed (`<` XML, else JSON). */
export function detectEncoding(contentType: string | undefined, body: string): Encoding {
  const type = mediaType(contentType);
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  const first = /[^\s\uFEFF]/.exec(body)?.[0];
  return first === '<' ? 'xml' : 'json';
}

/** The `charset` parameter of a Content-Type header, lower case, or undefined. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return m ? m[1].toLowerCase() : undefined;
}

/** The body as text in its declared charset (UTF-8 when none); a leading byte order mark is dropped. */
export function bodyText(raw: Buffer, contentType: string | undefined): BodyText {
  const charset = charsetOf(contentType);
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') {
    // Never replaced with U+FFFD and sent on: a body that is not UTF-8 is refused.
    if (!isUtf8(raw)) return { ok: false, status: 1, reason: parseProblem('the body is not valid UTF-8') };
    const text = raw.toString('utf8');
    return { ok: true, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return { ok: false, status: 1, reason: parseProblem(`unknown charset "${charset}" in the Content-Type header`) };
  }
  try {
    return { ok: true, text: decoder.decode(raw) };
  } catch {
    return { ok: false, status: 1, reason: parseProblem(`the body is not valid ${charset}`) };
  }
}

// A parser per request: an xml2js parser is left in a bad state by a parse error.
const XML_OPTIONS: xml2js.ParserOptions = {
  explicitArray: false,
  explicitRoot: true,
  attrkey: '$',
  charkey: '_',
  emptyTag: '',
  strict: true,
  async: false,
};

/** Decodes a request body into its root element name and document. */
export async function decodeBody(body: string, encoding: Encoding): Promise<Decoded> {
  if (body.trim() === '') return { ok: false, status: 1, reason: parseProblem('empty body') };
  let parsed: unknown;
  let rootCount: number | undefined;
  if (encoding === 'json') {
    // Counted before parsing: JSON.parse and every walk after it see only a body within the shape limits.
    const scan = scanJson(body);
    if (scan.problem) return { ok: false, status: 1, reason: parseProblem(scan.problem) };
    rootCount = scan.rootMembers;
    try {
      parsed = JSON.parse(body);
    } catch (e) {
      return { ok: false, status: 1, reason: parseProblem(`invalid JSON: ${(e as Error).message}`) };
    }
  } else {
    const problem = scanXml(body);
    if (problem) return { ok: false, status: 1, reason: parseProblem(problem) };
    if (/<!DOCTYPE|<!ENTITY/i.test(body))
      return { ok: false, status: 1, reason: parseProblem('DOCTYPE and entity declarations are not accepted') };
    try {
      // Wrapped so that several root elements are seen (xml2js alone stops after the first).
      const wrapped = await new xml2js.Parser(XML_OPTIONS).parseStringPromise(
        `<yona-body>${stripXmlDeclaration(body)}</yona-body>`,
      );
      const children: unknown = wrapped['yona-body'];
      // No element at all (`hello world`, a lone `<?xml ...?>`) is not an XML document: 1, not 997.
      if (children === null || typeof children !== 'object') {
        const problem =
          typeof children === 'string' && children.trim() ? 'text outside the root element' : 'no root element';
        return { ok: false, status: 1, reason: parseProblem(`invalid XML: ${problem}`) };
      }
      if ('_' in children)
        return { ok: false, status: 1, reason: parseProblem('invalid XML: text outside the root element') };
      parsed = spreadRepeatedRoots(children as Record<string, unknown>);
    } catch (e) {
      const message = (e as Error).message ?? String(e);
      return { ok: false, status: 1, reason: parseProblem(`invalid XML: ${message.split('\n')[0]}`) };
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, status: 997, reason: 'Not a valid command sent: the body must hold one root element' };
  }
  const keys = Object.keys(parsed);
  // JSON.parse keeps only the last `"balance"` of two, where XML counts two roots: the scan counted repeats.
  const roots = rootCount ?? keys.length;
  if (roots !== 1 || keys.length !== 1) {
    return { ok: false, status: 997, reason: `Not a valid command sent: expected one root element, got ${roots}` };
  }
  const root = keys[0];
  const inner = (parsed as Record<string, unknown>)[root];
  const doc =
    inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
  return { ok: true, root, doc };
}

function stripXmlDeclaration(body: string): string {
  return body.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '');
}

// `<a/><a/>` parses as { a: [..] }: that is two roots, so make it count as two keys.
function spreadRepeatedRoots(children: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(children)) {
    if (k === '$') continue;
    if (Array.isArray(v)) v.forEach((item, i) => (out[i === 0 ? k : `${k}#${i}`] = item));
    else out[k] = v;
  }
  return out;
}

export type { Reply };

/** Item element names for list fields in XML replies (`<transactions><transaction>…`). */
const ITEM_NAMES: Record<string, string> = {
  transactions: 'transaction',
  errors: 'error',
  rejected: 'recipient',
  lists: 'list',
  contacts: 'contact',
  phones: 'phone',
  campaigns: 'campaign',
  ids: 'id',
  tokens: 'token',
  subs: 'sub',
  registrations: 'registration',
};

/** List fields written as sibling elements straight under their parent, one per item (`verify_message`). */
const REPEATED_FIELDS = new Set(['verify_message']);

function xmlShape(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    if (key && REPEATED_FIELDS.has(key)) return value.map((v) => xmlShape(v));
    const item = (key && ITEM_NAMES[key]) ?? 'item';
    return { [item]: value.map((v) => xmlShape(v)) };
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = xmlShape(v, k);
    return out;
  }
  if (value === null || value === undefined) return '';
  return String(value);
}

const xmlBuilders = new Map<string, xml2js.Builder>();

/** Encodes a reply: flat JSON object, or XML with a root element named as the operation. */
export function encodeReply(root: string, reply: Reply, encoding: Encoding): string {
  const { status, message, ...rest } = reply;
  const ordered = { status, message: message ?? '', ...rest };
  if (encoding === 'json') return JSON.stringify(ordered);
  const safeRoot = /^[A-Za-z_][\w.-]*$/.test(root) ? root : 'response';
  let builder = xmlBuilders.get(safeRoot);
  if (!builder) {
    builder = new xml2js.Builder({
      rootName: safeRoot,
      xmldec: { version: '1.0', encoding: 'UTF-8' },
      renderOpts: { pretty: false },
    });
    xmlBuilders.set(safeRoot, builder);
  }
  return builder.buildObject(xmlShape(ordered));
}

/** Content type of a reply in the given encoding. */
export function replyContentType(encoding: Encoding): string {
  return encoding === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8';
}
