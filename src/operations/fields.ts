// Lenient field readers for the document model: a repeatable element may be a bare value or an array,
// numbers may be JSON numbers or numeric strings, text may sit in `_` next to `$` attributes.
import { z } from 'zod';
import { parseShort } from '../domain/dates.ts';
import { missingFieldMessage } from '../domain/errors.ts';
import type { RequestStatus } from '../domain/status.ts';

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

/**
 * A field of lenient shapes read into a typed value by `read`, which may raise the field's own checks (`late`,
 * `lateMissing`). The API document shows it as any value with its description.
 */
export const lenient = <T>(read: (value: unknown, ctx: IssueSink) => T, description: string) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => read(value, ctx))
    .describe(description);

/** A repeatable element's texts, trimmed, blanks left out. */
export const texts = (description: string) => lenient(textsOf, description);

/**
 * The texts of a repeatable `child` inside a repeatable container (`{"phones": {"phone": [...]}}`), trimmed,
 * blanks left out; with `bareItems`, a container given as a bare value counts as one text.
 */
export const childTexts = (child: string, description: string, bareItems = false) =>
  lenient(
    (value) =>
      textsOf(
        asList(value).flatMap((c) =>
          c !== null && typeof c === 'object' ? asList((c as Record<string, unknown>)[child]) : bareItems ? [c] : [],
        ),
      ),
    description,
  );

function textsOf(value: unknown): string[] {
  return asList(value)
    .map((v) => textOf(v)?.trim() ?? '')
    .filter((v) => v !== '');
}

/** An element's text, or '' for an element without one; undefined only when absent (or null). */
export const elementText = (description: string) =>
  lenient((v) => (v === undefined || v === null ? undefined : (textOf(v) ?? '')), description);

/**
 * A date `dd/mm/yy hh:mm` (required), checked for its form here (status 2 naming the field) and placed in the
 * account's time zone by the operation (`parseShort`, which cannot fail on it then). Its check comes after the
 * missing and malformed fields of the schema: the order the operations raised it in.
 */
export const shortDate = (field: string) =>
  text().superRefine((value, ctx) => {
    if (parseShort(value, 'UTC') === null)
      late(ctx, 2, `Invalid value for field ${field}: expected dd/mm/yy hh:mm, got "${value}"`);
  });

/**
 * Raises `status` from a field's own check. Such an issue ranks after every missing or malformed field (see
 * `firstIssue`): an operation checks the content of its fields once they are all there.
 */
export function late(ctx: IssueSink, status: RequestStatus, message: string): void {
  ctx.addIssue({ code: 'custom', message, input: undefined, params: { status, late: true } });
}

/** Raises status 2 naming a missing field from a field's own check (as `late`). */
export function lateMissing(ctx: IssueSink, field: string): void {
  late(ctx, 2, missingFieldMessage(field));
}

/** Where a field helper or an input's own check records an issue. */
export interface IssueSink {
  addIssue(issue: z.core.$ZodRawIssue): void;
}

/** The issue a failed input answers with: the first missing or malformed field, else the first field's own check. */
export function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const isLate = (issue: z.core.$ZodIssue) => (issue as { params?: { late?: boolean } }).params?.late === true;
  return issues.find((issue) => !isLate(issue)) ?? issues[0];
}
