// The scheduler: releases scheduled campaigns whose time has come (campaign scheduled -> queued, messages
// scheduled -> queued, re-checking the blocklist so a number blocked since acceptance is skipped, refunded and reported as 201).
// State lives in the database, so a restart loses nothing and releases everything overdue at once; the
// guarded UPDATE lets several processes run it against one PostgreSQL without releasing a campaign twice.
import type { Component, Service } from '../service.ts';
import { blockedAmong } from '../store/blocklist.ts';
import { claimCampaignRelease, dueCampaignIds, markCampaignSent } from '../store/campaigns.ts';
import type { Db, Queryable } from '../store/db.ts';
import { recordStatusEvents } from '../store/status-events.ts';
import { campaignMessagesInState, moveCampaignMessages, refundAmounts, skipMessages } from '../store/messages.ts';

const PAGE = 1000;
const DUE_BATCH = 50;
/** Delivery status of a message suppressed by the blocklist ("blocked on request"). */
export const BLOCKED_STATUS = 201;

/** Releases one due campaign inside a transaction; returns how many messages were queued and skipped. */
export async function releaseCampaign(db: Queryable, campaignId: number, now: number): Promise<{ released: boolean; queued: number; skipped: number }> {
  const accountId = await claimCampaignRelease(db, campaignId, now);
  if (accountId === undefined) return { released: false, queued: 0, skipped: 0 };
  let skipped = 0;
  let credits = 0;
  let agorot = 0;
  for (let after = 0; ;) {
    const page = await campaignMessagesInState(db, campaignId, 'scheduled', after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1].id;
    const blocked = await blockedAmong(db, accountId, [...new Set(page.map((m) => m.phone))]);
    if (blocked.size === 0) continue;
    const suppressed = page.filter((m) => blocked.has(m.phone));
    for (const m of suppressed) {
      credits += Number(m.cost_credits);
      agorot += Number(m.cost_agorot);
    }
    await skipMessages(db, suppressed.map((m) => m.id), BLOCKED_STATUS, 'blocked', now);
    await recordStatusEvents(db, suppressed.map((m) => ({
      messageId: m.id, accountId, campaignId, externalId: m.external_id, phone: m.phone, carrier: null, status: BLOCKED_STATUS, at: now,
    })), now);
    skipped += suppressed.length;
  }
  await refundAmounts(db, accountId, credits, agorot, `blocked at release: campaign ${campaignId}`, { type: 'campaign', id: campaignId }, now);
  const queued = await moveCampaignMessages(db, campaignId, 'scheduled', 'queued', { nextAttemptAt: now });
  if (queued === 0) await markCampaignSent(db, campaignId, now);
  return { released: true, queued, skipped };
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
  let service: Service | undefined;

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
