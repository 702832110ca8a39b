// Phone numbers as the 019 API takes them: Israeli mobiles and landlines in local or international form,
// foreign numbers only when the caller allows international sends. Stored as E.164 digits without '+'.
import { parsePhoneNumberFromString, validatePhoneNumberLength, type PhoneNumber } from 'libphonenumber-js/max';

export type PhoneType = 'mobile' | 'landline' | 'other';
export type PhoneRejection = 'too_short' | 'too_long' | 'invalid' | 'international_not_allowed';

export type NormalizedPhone =
  | { ok: true; e164: string; international: boolean; type: PhoneType }
  | { ok: false; reason: PhoneRejection };

const ISRAEL = '972';
// Separators people type or paste: spaces, dashes, brackets, dots, and the bidi marks Hebrew UIs insert.
const SEPARATORS = /[\s\-().\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const MAX_DIGITS = 17; // E.164 allows 15; a little slack so "too_long" is reported rather than "invalid"

// Validates a destination and brings it to E.164 digits; rejections map to status 9 (length) or 933 (invalid).
export function normalizePhone(input: string, opts: { allowInternational: boolean }): NormalizedPhone {
  const cleaned = input.replace(SEPARATORS, '');
  let digits = cleaned;
  let marked = false; // written with an international prefix
  if (cleaned.startsWith('+')) {
    digits = cleaned.slice(1);
    marked = true;
  } else if (cleaned.startsWith('00')) {
    digits = cleaned.slice(2);
    marked = true;
  }
  if (digits === '') return reject('too_short');
  if (!/^\d+$/.test(digits)) return reject('invalid');
  if (digits.length > MAX_DIGITS) return reject('too_long');

  if (digits.startsWith(ISRAEL)) {
    // A trunk 0 after the country code (+972 050...) is a common slip; drop it.
    return israeli(digits.slice(ISRAEL.length).replace(/^0/, ''));
  }
  if (marked) return foreign(digits, opts.allowInternational);
  if (digits.startsWith('0')) return israeli(digits.slice(1));
  // Without a 0, local numbers are the mobile form 5xxxxxxxx and the 1-800/1-700 style numbers (at most
  // 10 digits, where a North American number needs 11); other bare digits start with a country code.
  if (/^[15]/.test(digits) && digits.length <= 10) return israeli(digits);
  return foreign(digits, opts.allowInternational);
}

// Tells whether an E.164 number (digits, optional '+') is an Israeli mobile, 9725xxxxxxxx.
export function isIsraeliMobile(e164: string): boolean {
  return /^9725\d{8}$/.test(e164.replace(/^\+/, ''));
}

// Gives the local form of an Israeli E.164 number (972501234567 -> 0501234567); other input is returned as digits.
export function toNational(e164: string): string {
  const digits = e164.replace(/\D/g, '');
  return isIsraeliE164(digits) ? `0${digits.slice(ISRAEL.length)}` : digits;
}

// Masks a number for blocklist listings: national form without the 0, first digit kept (972501234567 -> 5********).
export function maskPhone(e164OrNational: string): string {
  const digits = e164OrNational.replace(/\D/g, '');
  const national = isIsraeliE164(digits) ? digits.slice(ISRAEL.length) : digits.replace(/^0/, '');
  return national.length === 0 ? '' : national[0] + '*'.repeat(national.length - 1);
}

function isIsraeliE164(digits: string): boolean {
  // 972 plus an 8-digit landline or 9-digit mobile; a shorter "972..." is a local number (09-72...).
  return digits.startsWith(ISRAEL) && digits.length >= 11;
}

// nsn: the Israeli national significant number (no 0, no 972).
function israeli(nsn: string): NormalizedPhone {
  if (nsn === '') return reject('too_short');
  const e164 = ISRAEL + nsn;
  const first = nsn[0];
  // Mobiles: any 5 + 8 digits, the format the 019 API documents. libphonenumber's allocation ranges reject
  // common numbers (050-1xxxxxx, 054-1xxxxxx) and lag new allocations, so they do not decide here.
  if (first === '5') {
    const length = checkLength(nsn, 9);
    return length ?? { ok: true, e164, international: false, type: 'mobile' };
  }
  // Landlines 0[2-489] + 7 digits and 07x + 7 digits (VoIP lines, landlines to the caller).
  const expected = /[2-489]/.test(first) ? 8 : first === '7' ? 9 : undefined;
  if (expected !== undefined) {
    const length = checkLength(nsn, expected);
    if (length) return length;
  } else {
    const length = lengthReason(`+${e164}`);
    if (length) return reject(length);
  }
  const parsed = parsePhoneNumberFromString(`+${e164}`);
  if (!parsed?.isValid()) return reject('invalid');
  return { ok: true, e164, international: false, type: typeOf(parsed, true) };
}

// digits: a full international number whose country code is not 972.
function foreign(digits: string, allowInternational: boolean): NormalizedPhone {
  const parsed = parsePhoneNumberFromString(`+${digits}`);
  if (parsed && !allowInternational) return reject('international_not_allowed');
  const length = lengthReason(`+${digits}`);
  if (length) return reject(length);
  if (!parsed?.isValid()) return reject('invalid');
  return { ok: true, e164: parsed.number.slice(1), international: true, type: typeOf(parsed, false) };
}

function checkLength(nsn: string, expected: number): NormalizedPhone | undefined {
  if (nsn.length < expected) return reject('too_short');
  if (nsn.length > expected) return reject('too_long');
  return undefined;
}

function lengthReason(number: string): PhoneRejection | undefined {
  switch (validatePhoneNumberLength(number)) {
    case 'TOO_SHORT':
      return 'too_short';
    case 'TOO_LONG':
      return 'too_long';
    case undefined:
      return undefined;
    default: // NOT_A_NUMBER, INVALID_COUNTRY, INVALID_LENGTH
      return 'invalid';
  }
}

function typeOf(parsed: PhoneNumber, israeli: boolean): PhoneType {
  const type = parsed.getType();
  if (type === 'MOBILE') return 'mobile';
  if (type === 'FIXED_LINE' || (israeli && type === 'VOIP')) return 'landline';
  return 'other'; // includes FIXED_LINE_OR_MOBILE (e.g. US numbers), toll-free, premium
}

function reject(reason: PhoneRejection): NormalizedPhone {
  return { ok: false, reason };
}
