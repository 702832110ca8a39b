// Send-time suppression, one batch of recipients at a time: numbers on the account's blocklist and, with
// temp_bl, numbers that got a message from the account in the last n days. The tally decides the status of
// a send that keeps no one (all blocked -> 8, the rest skipped by temp_bl -> 715).
import { DAY_MS } from '../../domain/dates.ts';
import { ApiError, missingField } from '../../domain/errors.ts';
import { blockedAmong } from '../../store/blocklist.ts';
import { recentlyMessagedPhones } from '../../store/messages.ts';
import type { OperationContext } from '../types.ts';
import type { Recipient } from './destinations.ts';
import type { Rejections } from './rejections.ts';

/** Counts of a send's recipients as they pass suppression. */
export interface SuppressionTally {
  offered: number;
  blocked: number;
  recent: number;
}

/** An empty tally. */
export function newTally(): SuppressionTally {
  return { offered: 0, blocked: 0, recent: 0 };
}

function dropListed(
  recipients: Recipient[],
  listed: Set<string>,
  reason: 'blocked' | 'temp_bl',
  rejected: Rejections,
): Recipient[] {
  if (listed.size === 0) return recipients;
  const kept: Recipient[] = [];
  for (const r of recipients) {
    if (!listed.has(r.phone)) kept.push(r);
    else rejected.add(r.phone, r.externalId, reason);
  }
  return kept;
}

/** Removes blocked and (with temp_bl) recently messaged recipients of one batch, listing them in `rejected`. */
export async function suppressBatch(
  ctx: OperationContext,
  batch: Recipient[],
  tempBlDays: number | null,
  tally: SuppressionTally,
  rejected: Rejections,
): Promise<Recipient[]> {
  tally.offered += batch.length;
  if (batch.length === 0) return batch;
  const accountId = ctx.account.id;
  const kept = dropListed(
    batch,
    await blockedAmong(
      ctx.db,
      accountId,
      batch.map((r) => r.phone),
    ),
    'blocked',
    rejected,
  );
  tally.blocked += batch.length - kept.length;
  if (tempBlDays === null || kept.length === 0) return kept;
  const since = ctx.now - tempBlDays * DAY_MS;
  const fresh = dropListed(
    kept,
    await recentlyMessagedPhones(
      ctx.db,
      accountId,
      kept.map((r) => r.phone),
      since,
    ),
    'temp_bl',
    rejected,
  );
  tally.recent += kept.length - fresh.length;
  return fresh;
}

/**
 * The error for a send that kept no recipient: 2 when there was no destination at all, 9 or 933 when none was
 * valid, 8 when every valid one is blocked, else 715 (the rest were skipped by temp_bl).
 */
export function nothingToSendError(tally: SuppressionTally, rejected: Rejections, tempBlDays: number | null): ApiError {
  const fields = rejected.replyFields();
  if (tally.offered === 0) {
    if (rejected.total === 0) return missingField('destinations (the contact lists hold no contacts)');
    const status = rejected.noValidDestinationStatus();
    return new ApiError(
      status,
      status === 9
        ? undefined
        : status === 7
          ? 'Outside the 24-hour window: none of these users wrote in the last 24 hours; send a template'
          : 'Invalid phone number: no destination can be sent to',
      fields,
    );
  }
  if (tally.blocked === tally.offered) return new ApiError(8, 'All numbers are on a blocked list', fields);
  return new ApiError(715, `All numbers have been temporarily blocked (temp_bl ${tempBlDays} days)`, fields);
}
