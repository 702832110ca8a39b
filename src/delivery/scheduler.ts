// The scheduler: releases scheduled campaigns whose time has come (campaign scheduled -> queued, messages
// scheduled -> queued). At release it re-checks the blocklist (a number blocked since acceptance: status 201)
// and the campaign's temp_bl (a number messaged in the n days before release: status 715, as at acceptance);
// skipped messages are refunded and reported. State lives in the database, so a restart loses nothing and
// releases everything overdue at once; the guarded UPDATE lets several processes run it against one
// PostgreSQL without releasing a campaign twice.
import { DAY_MS } from '../domain/dates.ts';
import type { Component, ComponentHost } from '../component.ts';
import { blockedAmong } from '../store/blocklist.ts';
import { claimCampaignRelease, dueCampaignIds, markCampaignSent } from '../store/campaigns.ts';
import type { Db, Queryable } from '../store/engine/db.ts';
import { recordStatusEvents } from '../store/status-events.ts';
import {
  campaignMessagesInState,
  moveCampaignMessages,
  recentlyMessagedPhones,
  refundAmounts,
  skipMessages,
  type ChargedMessage,
} from '../store/messages.ts';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';

const PAGE = 1000;
const DUE_BATCH = 50;

/** What skipping at release refunds, per reason. */
type Skipped = { count: number; credits: number; agorot: number };

// Skips messages with a delivery status, reports each (dlr), and adds what they cost to `into`.
async function skipAtRelease(
  db: Queryable,
  accountId: number,
  messages: ChargedMessage[],
  status: DeliveryStatus,
  reason: string,
  now: number,
  into: Skipped,
): Promise<void> {
  if (messages.length === 0) return;
  for (const m of messages) {
    into.credits += Number(m.cost_credits);
    into.agorot += Number(m.cost_agorot);
  }
  into.count += messages.length;
  await skipMessages(
    db,
    messages.map((m) => m.id),
    status,
    reason,
    now,
  );
  await recordStatusEvents(
    db,
    messages.map((m) => ({
      messageId: m.id,
      accountId,
      campaignId: m.campaign_id,
      externalId: m.external_id,
      phone: m.phone,
      carrier: null,
      status,
      at: now,
    })),
    now,
  );
}

/** Releases one due campaign inside a transaction; returns how many messages were queued and skipped. */
export async function releaseCampaign(
  db: Queryable,
  campaignId: number,
  now: number,
): Promise<{ released: boolean; queued: number; skipped: number }> {
  const claimed = await claimCampaignRelease(db, campaignId, now);
  if (claimed === undefined) return { released: false, queued: 0, skipped: 0 };
  const { accountId, tempBlDays } = claimed;
  const blocked: Skipped = { count: 0, credits: 0, agorot: 0 };
  const recent: Skipped = { count: 0, credits: 0, agorot: 0 };
  for (let after = 0; ; ) {
    const page = await campaignMessagesInState(db, campaignId, 'scheduled', after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1].id;
    const listed = await blockedAmong(db, accountId, [...new Set(page.map((m) => m.phone))]);
    const rest = listed.size === 0 ? page : page.filter((m) => !listed.has(m.phone));
    await skipAtRelease(
      db,
      accountId,
      page.filter((m) => listed.has(m.phone)),
      DELIVERY.BLOCKED,
      'blocked',
      now,
      blocked,
    );
    if (tempBlDays === null || rest.length === 0) continue;
    // The campaign's own messages are still scheduled, so they never count as recent for each other.
    const messaged = await recentlyMessagedPhones(
      db,
      accountId,
      [...new Set(rest.map((m) => m.phone))],
      now - tempBlDays * DAY_MS,
    );
    await skipAtRelease(
      db,
      accountId,
      rest.filter((m) => messaged.has(m.phone)),
      DELIVERY.TEMP_BLOCKED,
      'temp_bl',
      now,
      recent,
    );
  }
  const ref = { type: 'campaign', id: campaignId };
  await refundAmounts(
    db,
    accountId,
    blocked.credits,
    blocked.agorot,
    `blocked at release: campaign ${campaignId}`,
    ref,
    now,
  );
  await refundAmounts(
    db,
    accountId,
    recent.credits,
    recent.agorot,
    `temp_bl at release: campaign ${campaignId}`,
    ref,
    now,
  );
  const queued = await moveCampaignMessages(db, campaignId, 'scheduled', 'queued', { nextAttemptAt: now });
  if (queued === 0) await markCampaignSent(db, campaignId, now);
  return { released: true, queued, skipped: blocked.count + recent.count };
}

/** Releases every campaign due at `now` (each in its own transaction); returns how many messages were queued. */
export async function releaseDueCampaigns(db: Db, now: number): Promise<number> {
  let queued = 0;
  for (;;) {
    const due = await dueCampaignIds(db, now, DUE_BATCH);
    for (const id of due) {
      const r = await db.transaction().execute((trx) => releaseCampaign(trx, id, now));
      queued += r.queued;
    }
    if (due.length < DUE_BATCH) return queued;
  }
}

/** The scheduler as a service component: runs at start, every `intervalMs` and on the 'schedule' signal. */
export function schedulerComponent(options: { intervalMs?: number } = {}): Component {
  const intervalMs = options.intervalMs ?? 1000;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let service: ComponentHost | undefined;

  const run = (): void => {
    if (!service) return;
    if (running) {
      again = true;
      return;
    }
    const s = service;
    running = (async () => {
      do {
        again = false;
        try {
          if ((await releaseDueCampaigns(s.store.db, s.clock())) > 0) s.signals.notify('dispatch');
        } catch (err) {
          s.logger.error({ err }, 'scheduler: releasing due campaigns failed');
        }
      } while (again && service);
    })().finally(() => (running = undefined));
  };

  return {
    name: 'scheduler',
    async start(s) {
      service = s;
      unsubscribe = s.signals.subscribe('schedule', run);
      timer = setInterval(run, intervalMs);
      timer.unref();
      run();
      await running;
    },
    async stop() {
      service = undefined;
      if (timer) clearInterval(timer);
      unsubscribe?.();
      await running;
    },
  };
}
