// Withdrawing a message no carrier has been handed yet (a WhatsApp message whose SMS fallback went in its place),
// in the caller's transaction: cancelled with 104, its charge given back once, its status change recorded (pushed
// on its feed), and its campaign finished when nothing of it is left to send. The update is conditional on the
// message's state, so it cannot race the dispatcher's claim: on PostgreSQL a claim holding the row (FOR UPDATE SKIP
// LOCKED) makes this update wait and then find it 'submitting'; a row this update holds is skipped by the claim,
// and found cancelled once committed. On SQLite the single writer orders the two.
import { NOT_HANDED_OVER_STATES, nextState } from '../domain/lifecycle.ts';
import { finishCampaigns } from './dispatch.ts';
import type { Queryable } from './engine/db.ts';
import { refundMessage } from './messages.ts';
import { recordStatusEvents, type MessageForUpdate } from './status-events.ts';

const WITHDRAWN = nextState({ state: 'queued', status: null }, { kind: 'withdrawn' })!;

/** What a withdrawal did: false when the message was already handed over (or gone); else what it gave back. */
export type Withdrawal = false | { credits: number; agorot: number };

/** Withdraws the message if no carrier has been handed it yet (queued or scheduled). */
export async function withdrawUnsentMessage(
  db: Queryable,
  message: Pick<MessageForUpdate, 'id' | 'account_id' | 'campaign_id' | 'external_id' | 'phone' | 'channel'>,
  now: number,
): Promise<Withdrawal> {
  const res = await db
    .updateTable('messages')
    .set({
      state: WITHDRAWN.state,
      status: WITHDRAWN.status,
      status_at: now,
      lease_until: null,
      error: 'withdrawn: its SMS fallback went in its place',
      sealed: null,
    })
    .where('id', '=', message.id)
    .where('state', 'in', NOT_HANDED_OVER_STATES)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  const refunded = await refundMessage(db, message, WITHDRAWN.refund!, now);
  await recordStatusEvents(
    db,
    [
      {
        messageId: message.id,
        accountId: message.account_id,
        campaignId: message.campaign_id,
        externalId: message.external_id,
        phone: message.phone,
        carrier: null,
        status: WITHDRAWN.status!,
        at: now,
        channel: message.channel,
      },
    ],
    now,
  );
  await finishCampaigns(db, [message.campaign_id], now);
  return refunded;
}
