// Destinations of a send: `phone` elements (with the caller's `id` attribute) and `cl_id` lists, validated
// and normalised to international form; the rejected ones are kept with a reason instead of failing the send.
import { ApiError } from '../../domain/errors.ts';
import { normalizePhone, type PhoneRejection } from '../../domain/phone.ts';
import { asList, attrsOf, textOf } from '../fields.ts';

/** One accepted recipient of a send. */
export interface Recipient {
  /** International form without '+'. */
  phone: string;
  international: boolean;
  externalId: string | null;
  source: string;
  text: string;
}

/** Why a destination was not sent to. */
export type RejectionReason = PhoneRejection | 'not_mobile' | 'blocked' | 'temp_bl';

/** A destination left out, as the reply lists it. */
export interface Rejected {
  phone: string;
  id?: string;
  reason: RejectionReason;
  status: number;
}

/** Status a rejection reason corresponds to (the status of the whole send when every destination has it). */
export const REJECTION_STATUS: Record<RejectionReason, number> = {
  too_short: 9,
  too_long: 9,
  invalid: 933,
  international_not_allowed: 933,
  not_mobile: 933,
  blocked: 8,
  temp_bl: 715,
};

/** A `phone` element as given: its text and `id` attribute. */
export interface GivenPhone {
  phone: string;
  externalId: string | null;
}

/** Reads `destinations` (object or list of objects): the phone elements and the cl_id values. */
export function readDestinations(value: unknown, field = 'destinations'): { phones: GivenPhone[]; listIds: string[] } {
  const phones: GivenPhone[] = [];
  const listIds: string[] = [];
  for (const block of asList(value)) {
    if (block === null || typeof block !== 'object' || Array.isArray(block)) continue;
    const b = block as Record<string, unknown>;
    for (const p of asList(b.phone)) {
      const id = attrsOf(p).id ?? (p !== null && typeof p === 'object' ? textOf((p as { id?: unknown }).id) : undefined);
      phones.push({ phone: (textOf(p) ?? '').trim(), externalId: id === undefined || id === '' ? null : String(id) });
    }
    for (const c of asList(b.cl_id)) {
      const id = textOf(c)?.trim();
      if (id) listIds.push(id);
    }
  }
  if (phones.length === 0 && listIds.length === 0) throw new ApiError(2, `Missing required field: ${field}.phone (or ${field}.cl_id)`);
  return { phones, listIds };
}

/** Outcome of normalising a batch of destinations. */
export interface NormalisedDestinations {
  accepted: Recipient[];
  rejected: Rejected[];
}

/**
 * Validates and normalises phone elements; drops repeats of a number already accepted (`seen`, shared
 * across calls so phones and list contacts dedupe together).
 */
export function normaliseGivenPhones(
  given: GivenPhone[], opts: { allowInternational: boolean; source: string; text: string; seen: Set<string> }, out: NormalisedDestinations,
): void {
  for (const g of given) {
    const n = normalizePhone(g.phone, { allowInternational: opts.allowInternational });
    if (!n.ok) {
      out.rejected.push(rejection(g.phone, g.externalId, n.reason));
      continue;
    }
    if (!n.international && n.type !== 'mobile') {
      out.rejected.push(rejection(g.phone, g.externalId, 'not_mobile'));
      continue;
    }
    if (opts.seen.has(n.e164)) continue;
    opts.seen.add(n.e164);
    out.accepted.push({ phone: n.e164, international: n.international, externalId: g.externalId, source: opts.source, text: opts.text });
  }
}

/** A rejected destination as the reply lists it: phone, the caller's id (when given), reason, status. */
export function rejection(phone: string, externalId: string | null, reason: RejectionReason): Rejected {
  return externalId === null
    ? { phone, reason, status: REJECTION_STATUS[reason] }
    : { phone, id: externalId, reason, status: REJECTION_STATUS[reason] };
}

/** The status for a send none of whose destinations could be used (9 when any was a length problem, else 933). */
export function noValidDestinationStatus(rejected: Rejected[]): number {
  return rejected.some((r) => r.status === 9) ? 9 : 933;
}

/** True for a phone in international form that is Israeli. */
export function isIsraeliE164(phone: string): boolean {
  return phone.startsWith('972');
}
