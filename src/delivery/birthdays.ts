// The birthday worker: once a campaign's hour has come in its account's time zone, greets every contact
// whose birthday is today and who has not been greeted by it this year. The greeting rows and the send
// (through the normal send path, injected) share one transaction, so a restart or a second process never
// sends twice; a failed send rolls back its rows and is retried on the next run that day.
import { zonedParts } from '../domain/dates.ts';
import { mergeDynamicFields, type DynamicFieldName } from '../domain/templates.ts';
import type { Component } from '../component.ts';
import {
  activeBirthdayCampaigns,
  birthdayCandidates,
  markBirthdayCampaignChecked,
  recordBirthdaySends,
  type ActiveBirthdayCampaign,
  type BirthdaySend,
  type BirthdaySender,
} from '../store/birthdays.ts';

export type { BirthdaySend, BirthdaySender };
import type { Queryable, Store } from '../store/engine/db.ts';

/** What one run did. */
export interface BirthdayRunResult {
  /** Campaigns whose hour had come and that were (re)examined. */
  checked: number;
  /** Contacts greeted. */
  greeted: number;
  /** Campaigns whose send failed (rolled back; retried on the next run). */
  failures: { campaignId: number; error: unknown }[];
}

/** Day and month of a `dd/mm` or `dd/mm/yyyy` value (also d/m, and `.` or `-` separators). */
export function parseDayMonth(value: string | null | undefined): { day: number; month: number } | undefined {
  const m = /^\s*(\d{1,2})[/.-](\d{1,2})(?:[/.-](\d{2}|\d{4}))?\s*$/.exec(value ?? '');
  if (!m) return undefined;
  const day = Number(m[1]);
  const month = Number(m[2]);
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(2000, month, 0)).getUTCDate()) return undefined;
  return { day, month };
}

// How long after a list change the worker keeps re-examining it (longer than any list-writing transaction).
const RECHECK_MARGIN_MS = 10 * 60_000;

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

// Birthdays celebrated on a local date; 29 February is celebrated on the 28th in other years.
function celebratedOn(year: number, month: number, day: number): { day: number; month: number }[] {
  const dates = [{ day, month }];
  if (month === 2 && day === 28 && !isLeap(year)) dates.push({ day: 29, month: 2 });
  return dates;
}

/** Runs every due birthday campaign once at instant `now`; safe to call as often as wanted. */
export async function runBirthdays(store: Store, now: number, sendFn: BirthdaySender): Promise<BirthdayRunResult> {
  const result: BirthdayRunResult = { checked: 0, greeted: 0, failures: [] };
  for (const campaign of await activeBirthdayCampaigns(store.db)) {
    const local = zonedParts(now, campaign.time_zone);
    if (local.hour < campaign.hour) continue;
    const today = local.year * 10_000 + local.month * 100 + local.day;
    // Already done today and the list unchanged since: nothing new can be due. The margin covers list
    // writes whose transaction started before that run and committed after it (unseen, with an older stamp).
    const checkedAt = campaign.checked_at ?? 0;
    if (campaign.checked_day === today && campaign.list_updated_at < checkedAt - RECHECK_MARGIN_MS) continue;
    result.checked++;
    try {
      result.greeted += await store.db.transaction().execute(async (trx) => {
        const greeted = await greet(trx, campaign, local, now, sendFn);
        await markBirthdayCampaignChecked(trx, campaign.id, today, now);
        return greeted;
      });
    } catch (error) {
      result.failures.push({ campaignId: campaign.id, error });
    }
  }
  return result;
}

async function greet(
  db: Queryable,
  campaign: ActiveBirthdayCampaign,
  local: { year: number; month: number; day: number },
  now: number,
  sendFn: BirthdaySender,
): Promise<number> {
  const dates = celebratedOn(local.year, local.month, local.day);
  const field = campaign.dob_field as DynamicFieldName;
  const candidates = await birthdayCandidates(db, campaign, dates, local.year);
  const due = candidates.filter((c) => {
    const dob = parseDayMonth(c[field]);
    return dob !== undefined && dates.some((d) => d.day === dob.day && d.month === dob.month);
  });
  if (due.length === 0) return 0;
  const recorded = await recordBirthdaySends(db, campaign.id, local.year, due, now);
  const byText = new Map<string, string[]>();
  for (const c of due) {
    if (!recorded.has(c.id)) continue;
    const text = mergeDynamicFields(campaign.message, c);
    const phones = byText.get(text);
    if (phones) phones.push(c.phone);
    else byText.set(text, [c.phone]);
  }
  for (const [message, phones] of byText) {
    await sendFn(db, {
      accountId: campaign.account_id,
      source: campaign.source,
      message,
      phones,
      campaignName: campaign.name,
      birthdayCampaignId: campaign.id,
    });
  }
  return recorded.size;
}

/** Runs the birthday worker every `intervalMs` (and once at start), logging failures. */
export function birthdayComponent(sendFn: BirthdaySender, intervalMs = 60_000): Component {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  return {
    name: 'birthdays',
    async start(service) {
      const tick = () => {
        if (running) return; // a slow run is never overlapped by the next tick
        running = runBirthdays(service.store, service.clock(), sendFn)
          .then((r) => {
            for (const f of r.failures)
              service.logger.error(
                { err: f.error, birthdayCampaign: f.campaignId },
                'birthday send failed; retrying next run',
              );
            if (r.greeted) service.logger.info({ greeted: r.greeted }, 'birthday greetings queued');
          })
          .catch((err) => service.logger.error({ err }, 'birthday run failed'))
          .finally(() => (running = undefined));
      };
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
