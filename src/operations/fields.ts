// Lenient field readers for the document model: a repeatable element may be a bare value or an array,
// numbers may be JSON numbers or numeric strings, text may sit in `_` next to `$` attributes.
import { z } from 'zod';

/** A repeatable element as an array (absent -> []). */
export function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The text of an element: a string, a number, `{ _: text }`, or the first of an array. */
export function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.length ? textOf(value[0]) : undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object') {
    const inner = (value as Record<string, unknown>)._;
    if (inner !== undefined) return textOf(inner);
    // `<phone id="x"/>` has attributes and no text: that is empty text.
    if ('$' in (value as object)) return '';
  }
  return undefined;
}

/** Attributes of an element (`$`), or {}. */
export function attrsOf(value: unknown): Record<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const a = (value as Record<string, unknown>).$;
    if (a && typeof a === 'object') return a as Record<string, string>;
  }
  return {};
}

/** Required text (trimmed); missing or blank -> status 2 naming the field. */
export const text = () => z.preprocess((v) => textOf(v)?.trim(), z.string().min(1));

/** Optional text (trimmed); blank counts as absent. */
export const optText = () =>
  z.preprocess((v) => {
    const t = textOf(v)?.trim();
    return t === '' ? undefined : t;
  }, z.string().optional());

/**
 * Text kept exactly as sent (message bodies keep their spaces); blank counts as missing, and an element
 * holding other elements (XML markup inside a message) is refused rather than silently cut to its text.
 */
export const rawText = () =>
  z.preprocess((v) => {
    if (hasChildElements(v)) return v;
    const t = textOf(v);
    return t === undefined || t.trim() === '' ? undefined : t;
  }, z.string());

// True for an XML element with child elements (xml2js: keys besides `_` text and `$` attributes).
function hasChildElements(value: unknown): boolean {
  const v = Array.isArray(value) ? value[0] : value;
  return v !== null && typeof v === 'object' && Object.keys(v).some((k) => k !== '_' && k !== '$');
}

/** An integer given as a number or numeric string. */
export const int = () =>
  z.preprocess((v) => {
    const t = textOf(v)?.trim();
    if (t === undefined || t === '') return undefined;
    return /^-?\d+$/.test(t) ? Number(t) : t;
  }, z.number().int());

/** Optional integer. */
export const optInt = () => int().optional();

/** The `user` element with its `username`. */
export const userField = z.preprocess((v) => (Array.isArray(v) ? v[0] : v), z.object({ username: text() }));

/** A field the handler reads itself (its shapes are too lenient for a schema), described for the API document. */
export const readByHandler = (description: string) => z.unknown().optional().describe(description);
