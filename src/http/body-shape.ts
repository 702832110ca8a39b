// The shape limits of a request body, checked by one linear pass over its text before any parser or walk sees it
// (docs/security.md): nesting at most 64 levels deep; in XML at most 50,000 elements, attributes and entity
// references, and 1 MiB of tags, comments and processing instructions; in JSON at most 1,000,000 values. A body
// over a limit answers status 1, so nothing later (the parser, the input guard, the idempotency hash, the field-name
// check) ever walks a document deeper or larger than these.
//
// The pass only counts: it stops at the first limit passed, and leaves every other fault to the parser. XML text
// is skipped with indexOf (a `<` opens all markup), JSON strings likewise (a `"` opens every string).

/** Levels of nesting a document may have: XML elements, or JSON objects and arrays (the root counts one). */
export const MAX_DEPTH = 64;
/** XML elements, attributes and entity references in a body (xml2js builds an object or property for each). */
export const MAX_XML_NODES = 50_000;
/** Characters of XML tags, comments and processing instructions in a body (sax reads them one at a time). */
export const MAX_XML_MARKUP = 1024 * 1024;
/** JSON values in a body (objects, arrays and the members and items in them). */
export const MAX_JSON_VALUES = 1_000_000;

export interface JsonScan {
  /** What makes the body too deep or too large, when it is. */
  problem?: string;
  /** The members of the top-level object, repeats counted (JSON.parse keeps only the last of two). */
  rootMembers: number;
}

const code = (c: string) => c.charCodeAt(0);
const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA] = [...'"\\{}[],'].map(code);
const [LT, GT, SLASH, BANG, QUESTION, EQUALS, APOSTROPHE] = [..."<>/!?='"].map(code);

const tooDeep = () => `nested deeper than ${MAX_DEPTH} levels`;

/** Counts a JSON text's nesting and values; its top-level object's members too. */
export function scanJson(text: string): JsonScan {
  let depth = 0;
  let values = 0;
  let rootMembers = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      if (depth === 1 && expectKey) rootMembers++;
      expectKey = false;
      i = closingQuote(text, i);
      if (i < 0) break;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_DEPTH) return { problem: tooDeep(), rootMembers };
      if (++values > MAX_JSON_VALUES) return { problem: `more than ${MAX_JSON_VALUES} values`, rootMembers };
      expectKey = depth === 1 && c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA) {
      if (++values > MAX_JSON_VALUES) return { problem: `more than ${MAX_JSON_VALUES} values`, rootMembers };
      expectKey = depth === 1;
    }
  }
  return { rootMembers };
}

/** The index of the quote closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end >= 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
  return end;
}

/** Whether the character at `at` follows an odd run of backslashes. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === BACKSLASH) n++;
  return n % 2 === 1;
}

/** What makes an XML text too deep or too large, or undefined. */
export function scanXml(text: string): string | undefined {
  let depth = 0;
  let nodes = 0;
  let markup = 0;
  let amp = text.indexOf('&');
  let at = text.indexOf('<');
  for (;;) {
    // Entity references (`&amp;`) cost the parser about what an element does: they count with the elements.
    const textEnd = at < 0 ? text.length : at;
    while (amp >= 0 && amp < textEnd) {
      if (++nodes > MAX_XML_NODES) return tooManyNodes();
      amp = text.indexOf('&', amp + 1);
    }
    if (at < 0) return undefined;
    const next = text.charCodeAt(at + 1);
    let end: number;
    let isMarkup = true;
    if (next === SLASH) {
      depth--;
      end = text.indexOf('>', at + 2);
    } else if (next === QUESTION) {
      end = text.indexOf('?>', at + 2);
    } else if (next === BANG) {
      isMarkup = !text.startsWith('<![CDATA[', at);
      end = text.startsWith('<!--', at)
        ? text.indexOf('-->', at + 4)
        : isMarkup
          ? text.indexOf('>', at + 2)
          : text.indexOf(']]>', at + 9);
    } else {
      const tag = openTag(text, at);
      nodes += 1 + tag.attributes;
      if (nodes > MAX_XML_NODES) return tooManyNodes();
      if (!tag.selfClosing && ++depth > MAX_DEPTH) return tooDeep();
      // Not well-formed, and left to the parser it reads the rest a character at a time.
      if (tag.end < 0) return 'invalid XML: an unterminated tag or a `<` in an attribute value';
      end = tag.end;
    }
    if (end < 0) return undefined;
    // The parser reads names, attributes, comments and instructions a character at a time (text and CDATA in runs).
    if (isMarkup && (markup += end - at + 1) > MAX_XML_MARKUP)
      return `more than ${MAX_XML_MARKUP} characters of tags, comments and processing instructions`;
    at = text.indexOf('<', end + 1);
  }
}

const tooManyNodes = () => `more than ${MAX_XML_NODES} elements, attributes and entity references`;

/** An opening tag from its `<`: where its `>` is (-1: none, or a `<` in an attribute value), its attributes, whether it ends in `/>`. */
function openTag(text: string, at: number): { end: number; attributes: number; selfClosing: boolean } {
  let attributes = 0;
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === GT) return { end: i, attributes, selfClosing: text.charCodeAt(i - 1) === SLASH };
    if (c === LT) return { end: i - 1, attributes, selfClosing: false };
    if (c !== EQUALS) continue;
    attributes++;
    let q = i + 1;
    while (q < text.length && text.charCodeAt(q) <= 0x20) q++;
    const quote = text.charCodeAt(q);
    if (quote === QUOTE || quote === APOSTROPHE) {
      const close = text.indexOf(String.fromCharCode(quote), q + 1);
      if (close < 0 || text.slice(q + 1, close).includes('<')) return { end: -1, attributes, selfClosing: false };
      i = close;
    }
  }
  return { end: -1, attributes, selfClosing: false };
}
