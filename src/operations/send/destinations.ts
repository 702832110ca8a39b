// Destinations of a send: `phone` elements (with the caller's `id` attribute) and `cl_id` lists, validated
// and normalised to international form; the rejected ones are kept with a reason instead of failing the send.
import { missingField } from '../../domain/errors.ts';
import { normalizePhone } from '../../domain/phone.ts';
import { asList, attrsOf, textOf } from '../fields.ts';
import type { Rejections } from './rejections.ts';
import type { Shape } from '../types.ts';

/** One accepted recipient of a send. */
export interface Recipient {
  /** International form without '+'. */
  phone: string;
  international: boolean;
  externalId: string | null;
  source: string;
  text: string;
  /** What the store keeps instead of `text` when the text holds a secret (a one-time code). */
  stored?: SealedText;
  /**
   * 'call': this recipient gets the text spoken in a voice call; 'whatsapp': a WhatsApp message, priced and carried
   * as `whatsapp` says (absent: a text message).
   */
  channel?: 'call' | 'whatsapp';
  whatsapp?: WhatsappContent;
}

/** What a WhatsApp recipient is sent: its price, and its template payload (JSON) when it is a template. */
export interface WhatsappContent {
  credits: number;
  /** The template payload as the message row keeps it (carriers/types.ts TemplatePayload, JSON); null: free text. */
  template: string | null;
}

/** A text kept with `[code]` in place of its secret, and the secret sealed beside it. */
export interface SealedText {
  text: string;
  sealed: string;
}

/** A `phone` element as given: its text and `id` attribute. */
export interface GivenPhone {
  phone: string;
  externalId: string | null;
}

/** The phone elements and cl_id values a send names. */
export interface GivenDestinations {
  phones: GivenPhone[];
  listIds: string[];
}

/** Reads `destinations` (object or list of objects): the phone elements and the cl_id values (none: empty lists). */
export function destinationsOf(value: unknown): GivenDestinations {
  const phones: GivenPhone[] = [];
  const listIds: string[] = [];
  for (const block of asList(value)) {
    if (block === null || typeof block !== 'object' || Array.isArray(block)) continue;
    const b = block as Record<string, unknown>;
    for (const p of asList(b.phone)) {
      const id =
        attrsOf(p).id ?? (p !== null && typeof p === 'object' ? textOf((p as { id?: unknown }).id) : undefined);
      phones.push({ phone: (textOf(p) ?? '').trim(), externalId: id === undefined || id === '' ? null : String(id) });
    }
    for (const c of asList(b.cl_id)) {
      const id = textOf(c)?.trim();
      if (id) listIds.push(id);
    }
  }
  return { phones, listIds };
}

/** The destinations of a send: status 2 naming `field` when they hold neither a phone nor a list. */
export function requireDestinations(given: GivenDestinations, field = 'destinations'): GivenDestinations {
  if (given.phones.length === 0 && given.listIds.length === 0) throw missingField(`${field}.phone (or ${field}.cl_id)`);
  return given;
}

/** Outcome of normalising a batch of destinations. */
export interface NormalisedDestinations {
  accepted: Recipient[];
  rejected: Rejections;
}

/**
 * Validates and normalises phone elements; drops repeats of a number already accepted (`seen`, shared
 * across calls so phones and list contacts dedupe together).
 */
export function normaliseGivenPhones(
  given: GivenPhone[],
  opts: { allowInternational: boolean; source: string; text: string; seen: Set<string> },
  out: NormalisedDestinations,
): void {
  for (const g of given) {
    const n = normalizePhone(g.phone, { allowInternational: opts.allowInternational });
    if (!n.ok) {
      out.rejected.add(g.phone, g.externalId, n.reason);
      continue;
    }
    if (!n.international && n.type !== 'mobile') {
      out.rejected.add(g.phone, g.externalId, 'not_mobile');
      continue;
    }
    if (opts.seen.has(n.e164)) continue;
    opts.seen.add(n.e164);
    out.accepted.push({
      phone: n.e164,
      international: n.international,
      externalId: g.externalId,
      source: opts.source,
      text: opts.text,
    });
  }
}

/** True for a phone in international form that is Israeli. */
export function isIsraeliE164(phone: string): boolean {
  return phone.startsWith('972');
}

/** The shape of a send's `destinations` (read by hand, `destinationsOf`), for the field-name check. */
export const DESTINATIONS_SHAPE: Shape = { phone: { id: undefined }, cl_id: undefined };
