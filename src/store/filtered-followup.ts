// Writing what a status-15 receipt (a filtered, "Kosher", handset refused the text) sets off, as the lifecycle
// (domain/lifecycle.ts) decides it: the phone joins the filtered-phone registry, and a voice send's text of type 2
// is followed, once, by a call speaking it (priced by domain/pricing.ts; not placed without the credit).
import { refusesTexts, wantsFollowUpCall } from '../domain/lifecycle.ts';
import { callPrice } from '../domain/pricing.ts';
import type { Queryable } from './engine/db.ts';
import { addFilteredPhones } from './filtered-phones.ts';
import { applyLedgerChange } from './ledger.ts';
import { insertMessages } from './messages.ts';
import type { StatusChange } from './status-events.ts';

/** Records the filtered phones among `changes` and queues the follow-up calls; returns how many calls were queued. */
export async function followFilteredHandsets(db: Queryable, changes: StatusChange[], now: number): Promise<number> {
  const refused = changes.filter((c) => refusesTexts(c.status));
  if (refused.length === 0) return 0;
  await addFilteredPhones(
    db,
    refused.map((c) => c.phone),
    'receipt',
    now,
  );
  let queued = 0;
  for (const change of refused) {
    const row = await db
      .selectFrom('messages as m')
      .innerJoin('campaigns as c', 'c.id', 'm.campaign_id')
      .select(['m.channel', 'm.text', 'm.source', 'm.external_id', 'c.kind', 'c.options'])
      .where('m.id', '=', change.messageId)
      .executeTakeFirst();
    if (!row) continue;
    const options = JSON.parse(row.options) as {
      tts?: { type: number; voice: string; rate: number; repeat: number };
      call_credits_per_minute?: number;
    };
    const message = { channel: row.channel, campaignKind: row.kind, ttsType: options.tts?.type };
    if (!options.tts || !wantsFollowUpCall(change.status, message)) continue;
    const already = await db
      .selectFrom('messages')
      .select('id')
      .where('campaign_id', '=', change.campaignId)
      .where('phone', '=', change.phone)
      .where('channel', '=', 'call')
      .executeTakeFirst();
    if (already) continue;
    const { voice, rate, repeat } = options.tts;
    // Priced on the estimate (a receipt cannot wait for speech to render); it plays at most the minutes paid.
    const { credits, paidSeconds } = callPrice(
      row.text,
      { rate, repeat },
      options.call_credits_per_minute ?? 0,
      undefined,
    );
    const paid = await applyLedgerChange(db, {
      accountId: change.accountId,
      currency: 'credits',
      amount: -credits,
      reason: `send: follow-up call, campaign ${change.campaignId}`,
      refType: 'campaign',
      refId: change.campaignId,
      now,
    });
    if (!paid) continue;
    await insertMessages(
      db,
      { campaignId: change.campaignId, accountId: change.accountId, state: 'queued', nextAttemptAt: now, now },
      [
        {
          phone: change.phone,
          externalId: row.external_id,
          source: row.source,
          text: row.text,
          parts: 1,
          costCredits: credits,
          costAgorot: 0,
          unsubscribeCode: null,
          channel: 'call',
          spoken: JSON.stringify({ voice, rate, repeat, paidSeconds }),
        },
      ],
    );
    queued++;
  }
  return queued;
}
