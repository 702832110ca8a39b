// Accepting a send: price every recipient's text (parts computed once per distinct text), debit credits
// and international money through the ledger, and write the campaign, its short links and its message rows,
// all in the handler's transaction (not enough credit -> 4, not enough money -> 12, nothing created).
import { PUBLIC_CODE_LENGTH, newPublicCodes } from '../../domain/codes.ts';
import { countParts, detectEncoding, type Encoding } from '../../domain/encoding.ts';
import type { SpokenLengths } from '../../domain/voice.ts';
import { callPrice as priceCall, smsAgorot, smsCredits } from '../../domain/pricing.ts';
import {
  destinationCountry,
  domesticPartCredits,
  intlPartAgorot,
  NO_ACCOUNT_PRICES,
  NO_RATE_CARD,
} from '../../domain/rate-card.ts';
import { sendPrices } from '../../store/prices.ts';
import { ApiError } from '../../domain/errors.ts';
import { UNSUBSCRIBE_LINK_PREFIX, unsubscribeUrl, type UnsubscribeMode } from '../../domain/sending.ts';
import { insertCampaign, setCampaignCharges, type NewCampaign } from '../../store/campaigns.ts';
import { applyLedgerChange, changeBalance, recordLedgerEntry } from '../../store/ledger.ts';
import { writeWithoutSavepoint } from '../../store/engine/db.ts';
import { insertShortLinks } from '../../store/links.ts';
import { filteredAmong } from '../../store/filtered-phones.ts';
import {
  CAMPAIGN_WITH_MESSAGES_MAX,
  insertCampaignWithMessages,
  insertMessages,
  type NewMessage,
} from '../../store/messages.ts';
import type { OperationContext, SendChannel } from '../types.ts';
import type { Recipient } from './destinations.ts';
import type { Rejections } from './rejections.ts';
import { newTally, nothingToSendError, suppressBatch } from './suppress.ts';
import { requireCarriers } from './coverage.ts';

/** Recipients as they come: an array for small sends, pages streamed from contact lists for large ones. */
export type RecipientBatches = Iterable<Recipient[]> | AsyncIterable<Recipient[]>;

/** Pages of at most `size` recipients of an array (a send's own phones), as an array: their number is known. */
export function inBatches(recipients: Recipient[], size = 5000): Recipient[][] {
  if (recipients.length <= size) return recipients.length === 0 ? [] : [recipients];
  const batches: Recipient[][] = [];
  for (let i = 0; i < recipients.length; i += size) batches.push(recipients.slice(i, i + size));
  return batches;
}

/** The batches of several sources, one source after the other. */
export async function* concatBatches(...sources: RecipientBatches[]): AsyncIterable<Recipient[]> {
  for (const source of sources) yield* source;
}

/** A campaign ready to be written. */
export interface CampaignDraft {
  kind: 'sms' | 'bulk' | 'tts' | 'otp' | 'verify' | 'birthday' | 'whatsapp' | 'whatsapp-otp';
  /** A send on one channel of its own (WhatsApp), whose recipients say what each is sent; absent: texts and calls. */
  channel?: SendChannel;
  name: string | null;
  source: string;
  scheduledAt: number | null;
  options: Record<string, unknown>;
  recipients: RecipientBatches;
  /** Blocklist (and temp_bl) suppression per batch; absent for operator messages (sender verification). */
  suppress?: { tempBlDays: number | null };
  /** Destinations left out so far; suppression adds to them, and the reply reports them. */
  rejected: Rejections;
  /** 'link' appends a per-recipient removal link (the reply line is already in the texts). */
  unsubscribe: UnsubscribeMode;
  /** Short links placed in the texts, with their codes. */
  links: Array<{ key: string; target: string; code: string }>;
  /** Verification messages cost nothing. */
  free?: boolean;
  /** The dispatcher takes these messages ahead of campaign traffic (one-time codes). */
  priority?: boolean;
  /**
   * The operation refuses nothing once this campaign is written (its reply follows): on the embedded store the
   * send may then debit first and write without a savepoint (debitsFirst).
   */
  finalWrite?: boolean;
  /** A voice send: who gets a call (tts type 2: filtered phones; 3: everyone, besides the text; 4: everyone, no text). */
  calls?: CallPlan;
}

/** The calls of a voice send and how they are spoken. */
export interface CallPlan {
  type: 2 | 3 | 4;
  spoken: { voice: 'ymMale' | 'ymFemale'; rate: number; repeat: number };
  /** The rendered speech's seconds by text (the send's message), measured before the transaction. */
  lengths?: SpokenLengths;
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
  /** Voice calls among the messages. */
  calls: number;
  /** Seconds the longest call plays (its speech times repeat, with the pauses). */
  callSeconds: number;
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

// `atLeast`: the send was stopped part way, so it needs at least this much.
function notEnoughCredit(credits: number, atLeast = false): ApiError {
  return new ApiError(4, `Not enough credit: this send needs ${atLeast ? 'at least ' : ''}${credits} credits`);
}

function notEnoughMoney(agorot: number, atLeast = false): ApiError {
  return new ApiError(
    12,
    `Not enough money for the international destinations: this send needs ${atLeast ? 'at least ' : ''}${(agorot / 100).toFixed(2)} shekels`,
  );
}

/** Running figures of a send. */
interface Totals {
  recipients: number;
  credits: number;
  agorot: number;
  maxParts: number;
  encoding: Encoding;
  calls: number;
  callSeconds: number;
}

/** Prices, debits and writes a campaign with its messages, a batch at a time; throws 4 or 12 when the balance is short. */
export async function acceptCampaign(ctx: OperationContext, draft: CampaignDraft): Promise<Acceptance> {
  const { account, now } = ctx;
  requireCarriers(ctx, draft);
  const scheduled = draft.scheduledAt !== null;
  const pricing = await newPricing(ctx, draft);
  const tally = newTally();
  const total: Totals = {
    recipients: 0,
    credits: 0,
    agorot: 0,
    maxParts: 0,
    encoding: 'gsm7',
    calls: 0,
    callSeconds: 0,
  };
  // The campaign row is written with the first batch that keeps anyone, so a send that keeps no one writes nothing.
  let campaignId: number | undefined;
  let batchesWritten = 0;
  const mayDebitFirst = debitsFirst(ctx, draft);
  let debitedFirst = false;
  const take = async (batch: Recipient[]) => {
    const kept = draft.suppress
      ? await suppressBatch(ctx, batch, draft.suppress.tempBlDays, tally, draft.rejected)
      : batch;
    if (!draft.suppress) tally.offered += batch.length;
    if (kept.length === 0) return;
    const rows = priceRows(draft.calls ? await withCalls(ctx, kept, draft.calls) : kept, pricing, total);
    total.recipients += kept.length;
    // Fail fast on the balance read at authentication; the guarded debit below is what decides.
    if (total.credits > Number(account.credits)) throw notEnoughCredit(total.credits, true);
    if (total.agorot > Number(account.intl_agorot)) throw notEnoughMoney(total.agorot, true);
    if (mayDebitFirst && total.agorot === 0 && writeWithoutSavepoint(ctx.db)) {
      if (!(await changeBalance(ctx.db, account.id, 'credits', -total.credits))) throw notEnoughCredit(total.credits);
      debitedFirst = true;
    }
    batchesWritten++;
    const common = {
      accountId: account.id,
      state: scheduled ? ('scheduled' as const) : ('queued' as const),
      nextAttemptAt: draft.scheduledAt ?? now,
      now,
      priority: draft.priority ? 1 : 0,
    };
    // A send without short links writes its campaign and first messages together (one statement on PostgreSQL).
    if (campaignId === undefined && draft.links.length === 0 && rows.length <= CAMPAIGN_WITH_MESSAGES_MAX) {
      campaignId = await insertCampaignWithMessages(
        ctx.db,
        newCampaign(ctx, draft, kept.length, total.credits, total.agorot),
        common,
        rows,
      );
      return;
    }
    campaignId ??= await writeCampaign(ctx, draft, kept.length, total.credits, total.agorot);
    await insertMessages(ctx.db, { campaignId, ...common }, rows);
  };
  // Arrays and generators of a send's own phones are walked without the promise per step of `for await`.
  if (Symbol.asyncIterator in draft.recipients) for await (const batch of draft.recipients) await take(batch);
  else for (const batch of draft.recipients) await take(batch);
  if (campaignId === undefined) throw nothingToSendError(tally, draft.rejected, draft.suppress?.tempBlDays ?? null);
  // A send of one batch wrote its figures with the campaign row; a longer one records its totals now.
  if (batchesWritten > 1) await setCampaignCharges(ctx.db, campaignId, total.recipients, total.credits, total.agorot);
  // The debit comes last: on PostgreSQL it locks the account row until commit, so sends of one account
  // wait for each other only for the debit and the commit, not for each other's message inserts.
  const debit = {
    accountId: account.id,
    reason: `send: campaign ${campaignId}`,
    refType: 'campaign',
    refId: campaignId,
    now,
  };
  if (debitedFirst) {
    await recordLedgerEntry(ctx.db, { ...debit, currency: 'credits', amount: -total.credits });
  } else {
    if (!(await applyLedgerChange(ctx.db, { ...debit, currency: 'credits', amount: -total.credits })))
      throw notEnoughCredit(total.credits);
    if (!(await applyLedgerChange(ctx.db, { ...debit, currency: 'international', amount: -total.agorot })))
      throw notEnoughMoney(total.agorot);
  }
  ctx.signals.notify(scheduled ? 'schedule' : 'dispatch');
  return {
    campaignId,
    recipients: total.recipients,
    parts: total.maxParts,
    encoding: total.encoding,
    credits: total.credits,
    agorot: total.agorot,
    calls: total.calls,
    callSeconds: total.callSeconds,
  };
}

/**
 * Whether a send may take its debit before writing anything and then write without a savepoint
 * (writeWithoutSavepoint, on the embedded store): the operation refuses nothing after it, its recipients are one
 * batch known in full, and nothing it writes after the debit can be refused (no short links or removal links,
 * whose random codes are unique keys; international money, a second guarded debit, keeps the usual order). A dry
 * run rolls back on purpose, so it keeps its savepoint. The savepoint's page copies were a tenth of a send's
 * instructions (bench accept-instructions).
 */
function debitsFirst(ctx: OperationContext, draft: CampaignDraft): boolean {
  return (
    draft.finalWrite === true &&
    !ctx.dryRun &&
    Array.isArray(draft.recipients) &&
    draft.recipients.length === 1 &&
    draft.links.length === 0 &&
    draft.unsubscribe !== 'link'
  );
}

/**
 * A voice send's rows for a batch: type 4 calls everyone, type 3 texts and calls everyone, type 2 texts regular
 * phones and calls the filtered ones (the registry of phones that refuse texts).
 */
async function withCalls(ctx: OperationContext, kept: Recipient[], plan: CallPlan): Promise<Recipient[]> {
  const call = (r: Recipient): Recipient => ({ ...r, channel: 'call' });
  if (plan.type === 4) return kept.map(call);
  if (plan.type === 3) return kept.flatMap((r) => [r, call(r)]);
  const filtered = await filteredAmong(
    ctx.db,
    kept.map((r) => r.phone),
  );
  return kept.map((r) => (filtered.has(r.phone) ? call(r) : r));
}

/** What pricing a send's messages needs, worked out once per send. */
interface Pricing {
  parts: PartsCache;
  /** Credits a domestic part costs this account. */
  domesticCredits: number;
  /** Agorot a part to this international number costs this account (the rate card's country, or its default). */
  intlAgorot: (phone: string) => number;
  free: boolean;
  /** A removal link of the right length, to measure texts before each recipient's code exists. */
  linkSuffix: string;
  publicUrl: string;
  withLinks: boolean;
  /** A call speaking a text (memoised per text): its seconds, credits, and how it is spoken (JSON, with the
   * seconds paid for, which the trunk plays at most). */
  callPrice: (text: string) => CallPrice;
}

interface CallPrice {
  seconds: number;
  credits: number;
  spoken: string;
}

async function newPricing(ctx: OperationContext, draft: CampaignDraft): Promise<Pricing> {
  const free = draft.free === true;
  const { card, own } = free
    ? { card: NO_RATE_CARD, own: NO_ACCOUNT_PRICES }
    : await (ctx.prices?.read(ctx.db, ctx.account.id) ?? sendPrices(ctx.db, ctx.account.id));
  const configured = ctx.config.sending.intlPriceAgorot;
  const intlAgorot = (phone: string) =>
    intlPartAgorot(card, own, card.countries.size === 0 ? undefined : destinationCountry(phone), configured);
  const withLinks = draft.unsubscribe === 'link';
  const publicUrl = ctx.config.publicUrl;
  const prices = new Map<string, CallPrice>();
  const spoken = draft.calls?.spoken ?? { voice: 'ymMale', rate: 0, repeat: 1 };
  const rendered = draft.calls?.lengths;
  const callPrice = (text: string) => {
    let price = prices.get(text);
    if (price === undefined) {
      const { seconds, credits, paidSeconds } = priceCall(
        text,
        spoken,
        ctx.config.callCreditsPerMinute,
        rendered?.get(text),
      );
      price = { seconds, credits, spoken: JSON.stringify({ ...spoken, paidSeconds }) };
      if (prices.size < 10_000) prices.set(text, price);
    }
    return price;
  };
  return {
    callPrice,
    parts: new PartsCache(),
    domesticCredits: domesticPartCredits(own),
    intlAgorot,
    free,
    publicUrl,
    withLinks,
    linkSuffix: withLinks ? UNSUBSCRIBE_LINK_PREFIX + unsubscribeUrl(publicUrl, 'x'.repeat(PUBLIC_CODE_LENGTH)) : '',
  };
}

// The message rows of a batch: text (with its removal link), parts and cost; adds them to the totals.
function priceRows(kept: Recipient[], p: Pricing, total: Totals): NewMessage[] {
  const codes = p.withLinks ? newPublicCodes(kept.length) : undefined;
  const rows: NewMessage[] = new Array(kept.length);
  for (let i = 0; i < kept.length; i++) {
    const r = kept[i];
    if (r.channel === 'whatsapp') {
      const costCredits = p.free || !r.whatsapp ? 0 : r.whatsapp.credits;
      total.credits += costCredits;
      if (total.maxParts === 0) total.maxParts = 1;
      if (total.encoding !== 'ucs2' && detectEncoding(r.text) === 'ucs2') total.encoding = 'ucs2';
      rows[i] = {
        phone: r.phone,
        externalId: r.externalId,
        source: r.source,
        text: r.stored?.text ?? r.text,
        parts: 1,
        costCredits,
        costAgorot: 0,
        unsubscribeCode: null,
        sealed: r.stored?.sealed ?? null,
        channel: 'whatsapp',
        template: r.whatsapp?.template ?? null,
      };
      continue;
    }
    if (r.channel === 'call') {
      const price = p.callPrice(r.text);
      const costCredits = p.free ? 0 : price.credits;
      total.credits += costCredits;
      total.calls++;
      total.callSeconds = Math.max(total.callSeconds, price.seconds);
      // The text of a call is reported in the encoding it would have as an SMS (Hebrew: ucs2), like a text's.
      if (total.encoding !== 'ucs2' && detectEncoding(r.text) === 'ucs2') total.encoding = 'ucs2';
      rows[i] = {
        phone: r.phone,
        externalId: r.externalId,
        source: r.source,
        text: r.text,
        parts: 1,
        costCredits,
        costAgorot: 0,
        unsubscribeCode: null,
        channel: 'call',
        spoken: price.spoken,
      };
      continue;
    }
    const measured = p.parts.count(r.text + p.linkSuffix);
    const code = codes ? codes[i] : null;
    const shown = r.stored?.text ?? r.text;
    const text = code ? shown + UNSUBSCRIBE_LINK_PREFIX + unsubscribeUrl(p.publicUrl, code) : shown;
    const costCredits = smsCredits(measured.parts, r.international, p.free, p.domesticCredits);
    const costAgorot = r.international ? smsAgorot(measured.parts, true, p.free, p.intlAgorot(r.phone)) : 0;
    total.credits += costCredits;
    total.agorot += costAgorot;
    if (measured.parts > total.maxParts) total.maxParts = measured.parts;
    if (measured.encoding === 'ucs2') total.encoding = 'ucs2';
    rows[i] = {
      phone: r.phone,
      externalId: r.externalId,
      source: r.source,
      text,
      parts: measured.parts,
      costCredits,
      costAgorot,
      unsubscribeCode: code,
      sealed: r.stored?.sealed ?? null,
    };
  }
  return rows;
}

// The campaign row of a send, with the figures of its first batch.
function newCampaign(
  ctx: OperationContext,
  draft: CampaignDraft,
  recipients: number,
  credits: number,
  agorot: number,
): NewCampaign {
  return {
    accountId: ctx.account.id,
    name: draft.name,
    kind: draft.kind,
    source: draft.source,
    state: draft.scheduledAt !== null ? 'scheduled' : 'queued',
    scheduledAt: draft.scheduledAt,
    recipients,
    creditsCharged: credits,
    agorotCharged: agorot,
    options: draft.options,
    now: ctx.now,
  };
}

// Writes the campaign row (with the figures of its first batch) and its short links; returns its id.
async function writeCampaign(
  ctx: OperationContext,
  draft: CampaignDraft,
  recipients: number,
  credits: number,
  agorot: number,
): Promise<number> {
  const { account, now } = ctx;
  const campaignId = await insertCampaign(ctx.db, newCampaign(ctx, draft, recipients, credits, agorot));
  await insertShortLinks(
    ctx.db,
    draft.links.map((l) => ({
      code: l.code,
      accountId: account.id,
      campaignId,
      linkKey: l.key,
      target: l.target,
      now,
    })),
  );
  return campaignId;
}
