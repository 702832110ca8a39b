// Accepting a send: price every recipient's text (parts computed once per distinct text), debit credits
// and international money through the ledger, and write the campaign, its short links and its message rows,
// all in the handler's transaction (not enough credit -> 4, not enough money -> 12, nothing created).
import { PUBLIC_CODE_LENGTH, newPublicCodes } from '../../domain/codes.ts';
import { countParts, detectEncoding, type Encoding } from '../../domain/encoding.ts';
import { ApiError } from '../../domain/errors.ts';
import { sendingSettings, UNSUBSCRIBE_LINK_PREFIX, unsubscribeUrl, type UnsubscribeMode } from '../../domain/sending.ts';
import { insertCampaign } from '../../store/campaigns.ts';
import { applyLedgerChange } from '../../store/ledger.ts';
import { insertShortLinks } from '../../store/links.ts';
import { insertMessages, type NewMessage } from '../../store/messages.ts';
import type { OperationContext } from '../types.ts';
import type { Recipient } from './destinations.ts';

/** A campaign ready to be written. */
export interface CampaignDraft {
  kind: 'sms' | 'bulk' | 'tts' | 'verify' | 'birthday';
  name: string | null;
  source: string;
  scheduledAt: number | null;
  options: Record<string, unknown>;
  recipients: Recipient[];
  /** 'link' appends a per-recipient removal link (the reply line is already in the texts). */
  unsubscribe: UnsubscribeMode;
  /** Short links placed in the texts, with their codes. */
  links: Array<{ key: string; target: string; code: string }>;
  /** Verification messages cost nothing. */
  free?: boolean;
}

/** What was accepted, for the reply. */
export interface Acceptance {
  campaignId: number;
  recipients: number;
  /** Parts of the longest message. */
  parts: number;
  encoding: Encoding;
  credits: number;
  agorot: number;
}

/** Parts and alphabet of a text. */
export interface Measured {
  parts: number;
  encoding: Encoding;
}

/** Counts parts with a cache: identical texts are measured once. */
export class PartsCache {
  private readonly cache = new Map<string, Measured>();

  count(text: string): Measured {
    let c = this.cache.get(text);
    if (!c) {
      // Up to 70 UTF-16 units is one part in either alphabet (even if every character took two GSM septets).
      c = text.length <= 70 ? { parts: 1, encoding: detectEncoding(text) } : countParts(text);
      if (this.cache.size < 10_000) this.cache.set(text, c);
    }
    return c;
  }
}

function notEnoughCredit(credits: number): ApiError {
  return new ApiError(4, `Not enough credit: this send needs ${credits} credits`);
}

function notEnoughMoney(agorot: number): ApiError {
  return new ApiError(12, `Not enough money for the international destinations: this send needs ${(agorot / 100).toFixed(2)} shekels`);
}

/** Prices, debits and writes a campaign with its messages; throws 4 or 12 when the balance is short. */
export async function acceptCampaign(ctx: OperationContext, draft: CampaignDraft): Promise<Acceptance> {
  const { account, now, config } = ctx;
  const priceAgorot = sendingSettings().intlPriceAgorot;
  const linkSuffix = draft.unsubscribe === 'link' ? UNSUBSCRIBE_LINK_PREFIX + unsubscribeUrl(config.publicUrl, 'x'.repeat(PUBLIC_CODE_LENGTH)) : '';
  const codes = draft.unsubscribe === 'link' ? newPublicCodes(draft.recipients.length) : undefined;
  const parts = new PartsCache();
  const rows: NewMessage[] = new Array(draft.recipients.length);
  let credits = 0;
  let agorot = 0;
  let maxParts = 0;
  let encoding: Encoding = 'gsm7';
  for (let i = 0; i < draft.recipients.length; i++) {
    const r = draft.recipients[i];
    const measured = parts.count(r.text + linkSuffix);
    const code = codes ? codes[i] : null;
    const text = code ? r.text + UNSUBSCRIBE_LINK_PREFIX + unsubscribeUrl(config.publicUrl, code) : r.text;
    const costCredits = draft.free || r.international ? 0 : measured.parts;
    const costAgorot = draft.free || !r.international ? 0 : measured.parts * priceAgorot;
    credits += costCredits;
    agorot += costAgorot;
    if (measured.parts > maxParts) maxParts = measured.parts;
    if (measured.encoding === 'ucs2') encoding = 'ucs2';
    rows[i] = {
      phone: r.phone, externalId: r.externalId, source: r.source, text, parts: measured.parts, costCredits, costAgorot, unsubscribeCode: code,
    };
  }
  // Fail fast on the balance read at authentication; the guarded debit below is what decides.
  if (credits > Number(account.credits)) throw notEnoughCredit(credits);
  if (agorot > Number(account.intl_agorot)) throw notEnoughMoney(agorot);
  const scheduled = draft.scheduledAt !== null;
  const campaignId = await insertCampaign(ctx.db, {
    accountId: account.id, name: draft.name, kind: draft.kind, source: draft.source, state: scheduled ? 'scheduled' : 'queued',
    scheduledAt: draft.scheduledAt, recipients: rows.length, creditsCharged: credits, agorotCharged: agorot, options: draft.options, now,
  });
  await insertShortLinks(ctx.db, draft.links.map((l) => ({ code: l.code, accountId: account.id, campaignId, linkKey: l.key, target: l.target, now })));
  await insertMessages(ctx.db, ctx.dialect, {
    campaignId, accountId: account.id, state: scheduled ? 'scheduled' : 'queued', nextAttemptAt: draft.scheduledAt ?? now, now,
  }, rows);
  // The debit comes last: on PostgreSQL it locks the account row until commit, so sends of one account
  // wait for each other only for the debit and the commit, not for each other's message inserts.
  const debit = { accountId: account.id, reason: `send: campaign ${campaignId}`, refType: 'campaign', refId: campaignId, now };
  if (!(await applyLedgerChange(ctx.db, { ...debit, currency: 'credits', amount: -credits }))) throw notEnoughCredit(credits);
  if (!(await applyLedgerChange(ctx.db, { ...debit, currency: 'international', amount: -agorot }))) throw notEnoughMoney(agorot);
  ctx.signals.notify(scheduled ? 'schedule' : 'dispatch');
  return { campaignId, recipients: rows.length, parts: maxParts, encoding, credits, agorot };
}
