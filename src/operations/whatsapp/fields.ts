// The fields of WhatsApp sends read by hand: `fallback` ({"channel":"sms","source":SENDER,"after_seconds":N}) and
// the main API's `template` ({"id":NAME,"language":CODE,"variables":{"1":"..."}}).
import { asList, textOf } from '../fields.ts';
import type { Shape } from '../types.ts';

/** An SMS fallback as asked: the verified SMS sender it goes from and how long WhatsApp has to deliver. */
export interface FallbackSpec {
  channel: 'sms';
  source: string;
  afterSeconds: number;
}

/** The wait a fallback takes when the send names none, and the bounds of `after_seconds`. */
export const DEFAULT_FALLBACK_SECONDS = 60;
export const MIN_FALLBACK_SECONDS = 0;
export const MAX_FALLBACK_SECONDS = 86_400;

/** A fallback as given, before its checks: its fields as text (undefined when the send asks for none). */
export interface GivenFallback {
  channel?: string;
  source?: string;
  afterSeconds?: string;
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** Reads `fallback`; undefined when absent. */
export function fallbackOf(value: unknown): GivenFallback | undefined {
  const v = first(value);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'object') return { channel: textOf(v) };
  const o = v as Record<string, unknown>;
  return {
    channel: textOf(first(o.channel))?.trim(),
    source: textOf(first(o.source))?.trim(),
    afterSeconds: textOf(first(o.after_seconds ?? o.afterSeconds))?.trim(),
  };
}

/** The variables of a template as given: an object keyed by position, or a list (`variable` elements in XML). */
export function variablesOf(value: unknown): Record<string, string> | string[] {
  const v = first(value);
  if (v === undefined || v === null || v === '') return {};
  if (Array.isArray(value) && value.length > 1) return value.map((x) => textOf(x) ?? '');
  if (typeof v !== 'object') return [textOf(v) ?? ''];
  const o = v as Record<string, unknown>;
  if ('variable' in o) return asList(o.variable).map((x) => textOf(x) ?? '');
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(o)) out[k] = textOf(first(x)) ?? '';
  return out;
}

/** A template as the main API names it. */
export interface GivenTemplate {
  id?: string;
  language?: string;
  variables: Record<string, string> | string[];
}

/** Reads `template`; undefined when absent. */
export function templateOf(value: unknown): GivenTemplate | undefined {
  const v = first(value);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'object') return { id: textOf(v)?.trim(), variables: {} };
  const o = v as Record<string, unknown>;
  return {
    id: textOf(first(o.id))?.trim(),
    language: textOf(first(o.language))?.trim() || undefined,
    variables: variablesOf(o.variables),
  };
}

export const FALLBACK_SHAPE: Shape = { channel: undefined, source: undefined, after_seconds: undefined };
export const TEMPLATE_SHAPE: Shape = { id: undefined, language: undefined, variables: undefined };

/** How the API document shows a template's variables. */
export const VARIABLES_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description:
    'By position, `{"1": "...", "2": "..."}`: exactly as many as the template takes, none empty, no line breaks.',
};

/** How the API document shows `fallback` (an object in JSON; the same elements in XML). */
export const FALLBACK_SCHEMA = {
  type: 'object',
  properties: {
    channel: { type: 'string', enum: ['sms'], description: '`sms` (the default).' },
    source: { type: 'string', description: 'A verified SMS sender of the account (else reason 12).' },
    after_seconds: {
      type: 'integer',
      minimum: MIN_FALLBACK_SECONDS,
      maximum: MAX_FALLBACK_SECONDS,
      default: DEFAULT_FALLBACK_SECONDS,
      description: 'How long WhatsApp has to deliver (or read) before the SMS goes.',
    },
  },
  required: ['source'],
};

/** How the API document shows the main API's `template`. */
export const TEMPLATE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', description: "The template's name (an APPROVED template of the business number)." },
    language: { type: 'string', description: "The template's language, when the name exists in several." },
    variables: VARIABLES_SCHEMA,
  },
  required: ['id'],
};
