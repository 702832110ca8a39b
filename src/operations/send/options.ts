// Field rules shared by sms and bulk: source (992), message and campaign name lengths (989), timing (2),
// add_unsubscribe (986), temp_bl (714), includes_international, links (980/981) and the tts block.
import { sourceProblem } from '../../domain/accounts.ts';
import { parseShort } from '../../domain/dates.ts';
import { ApiError, missingField } from '../../domain/errors.ts';
import { isOwnShortLink, linkKeyProblem, linkTargetProblem } from '../../domain/links.ts';
import { parseUnsubscribe, type UnsubscribeMode } from '../../domain/sending.ts';
import { asList, attrsOf, textOf } from '../fields.ts';

export const MAX_MESSAGE_CHARS = 1005;
export const MAX_CAMPAIGN_NAME = 50;
export const MAX_TEMP_BL_DAYS = 14;

/** Checks a sender: at most 11 digits and English letters, no '+' (992). */
export function checkSource(source: string, field = 'source'): string {
  const problem = sourceProblem(source);
  if (problem) throw new ApiError(992, `Invalid ${field} "${source}": ${problem}`);
  return source;
}

/** Checks a message body's length in characters (989). */
export function checkMessage(message: string, field = 'message'): string {
  const length = [...message].length;
  if (length > MAX_MESSAGE_CHARS)
    throw new ApiError(989, `${field} is too long: ${length} characters, at most ${MAX_MESSAGE_CHARS}`);
  return message;
}

/** Checks campaign_name (989); blank means none. */
export function checkCampaignName(name: string | undefined): string | null {
  if (name === undefined || name === '') return null;
  const length = [...name].length;
  if (length > MAX_CAMPAIGN_NAME)
    throw new ApiError(989, `campaign_name is too long: ${length} characters, at most ${MAX_CAMPAIGN_NAME}`);
  return name;
}

/** Parses timing `dd/mm/yy hh:mm` in the account's zone: null sends now (also for a past time); malformed is 2. */
export function parseTiming(timing: string | undefined, timeZone: string, now: number): number | null {
  if (timing === undefined || timing === '') return null;
  const at = parseShort(timing, timeZone);
  if (at === null) throw new ApiError(2, `Invalid value for field timing: expected dd/mm/yy hh:mm, got "${timing}"`);
  return at > now ? at : null;
}

/** Parses add_unsubscribe: 2 reply line, 3 link, other integers none, anything else 986. */
export function parseUnsubscribeField(value: string | undefined): UnsubscribeMode {
  const mode = parseUnsubscribe(value);
  if (mode === null)
    throw new ApiError(986, `Invalid unsubscribe value "${value}": use 2 (reply to remove) or 3 (removal link)`);
  return mode;
}

/** Parses temp_bl: absent is none, else a whole number of days 1..14 (714). */
export function parseTempBl(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const days = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(days >= 1 && days <= MAX_TEMP_BL_DAYS)) {
    throw new ApiError(
      714,
      `Non valid content in parameter temp_bl: "${value}" (a number of days from 1 to ${MAX_TEMP_BL_DAYS})`,
    );
  }
  return days;
}

/** includes_international: only `1` allows non-Israeli destinations. */
export function parseIncludesInternational(value: string | undefined): boolean {
  return value === '1';
}

export interface LinkSpec {
  key: string;
  target: string;
}

/** Reads `links.link` (repeatable, each a URL with attribute id), unchecked. */
export function linksOf(value: unknown): LinkSpec[] {
  return asList(value).flatMap((container) =>
    (container !== null && typeof container === 'object' && 'link' in container
      ? asList((container as { link: unknown }).link)
      : []
    ).map((item) => ({
      key: (attrsOf(item).id ?? (item as { id?: unknown })?.id ?? '').toString().trim(),
      target: (textOf(item) ?? '').trim(),
    })),
  );
}

/** Checks the links of a send: 980 when invalid, 981 when it cannot be shortened here. */
export function checkLinks(links: LinkSpec[], publicUrl: string): LinkSpec[] {
  const seen = new Set<string>();
  for (const { key, target } of links) {
    const problem = linkKeyProblem(key) ?? linkTargetProblem(target);
    if (problem) throw new ApiError(980, `Invalid link: ${problem}`);
    if (seen.has(key)) throw new ApiError(980, `Invalid link: id "${key}" is used twice`);
    if (isOwnShortLink(target, publicUrl))
      throw new ApiError(981, `Error creating short link: "${target}" is already a link of this service`);
    seen.add(key);
  }
  return links;
}

export interface TtsOptions {
  type: 2 | 3 | 4;
  rate: number;
  repeat: number;
  voice: 'ymMale' | 'ymFemale';
}

/** The texts of a `tts` block as given (trimmed), or 'invalid' for a `tts` that is no element. */
export type TtsFields = { type?: string; rate?: string; repeat?: string; voice?: string } | 'invalid';

/** Reads the `tts` block: undefined when absent (or blank). */
export function ttsOf(value: unknown): TtsFields | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const block = (Array.isArray(value) ? value[0] : value) as Record<string, unknown>;
  if (typeof block !== 'object' || block === null) return 'invalid';
  const field = (name: string) => textOf(block[name])?.trim();
  return { type: field('type'), rate: field('rate'), repeat: field('repeat'), voice: field('voice') };
}

function intIn(t: string | undefined, field: string, min: number, max: number, fallback?: number): number {
  if (t === undefined || t === '') {
    if (fallback === undefined) throw missingField(`${field}`);
    return fallback;
  }
  const n = /^-?\d+$/.test(t) ? Number(t) : NaN;
  if (!(n >= min && n <= max))
    throw new ApiError(2, `Invalid value for field ${field}: "${t}" (a whole number from ${min} to ${max})`);
  return n;
}

/** Validates the voice block of an sms: `type` 2, 3 or 4, `rate` -10..10 (0), `repeat` 1..10 (2), `voice`. */
export function parseTts(block: TtsFields | undefined): TtsOptions | undefined {
  if (block === undefined) return undefined;
  if (block === 'invalid') throw new ApiError(2, 'Invalid value for field tts: expected an element with type');
  const type = intIn(block.type, 'tts.type', 2, 4) as 2 | 3 | 4;
  const rate = intIn(block.rate, 'tts.rate', -10, 10, 0);
  const repeat = intIn(block.repeat, 'tts.repeat', 1, 10, 2);
  const voice = (block.voice || 'ymMale') as TtsOptions['voice'];
  if (voice !== 'ymMale' && voice !== 'ymFemale')
    throw new ApiError(2, `Invalid value for field tts.voice: "${voice}" (ymMale or ymFemale)`);
  return { type, rate, repeat, voice };
}
