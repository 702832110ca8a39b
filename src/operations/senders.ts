// verify_phone: asks to verify numbers as senders. A mobile gets an SMS (free) with a one-time link
// `/v/:code`; following it and confirming verifies the sender. A landline is told to call the verification
// number; the operator then runs `yona admin verify-sender`. getVerifiedPhones lists verified senders.
import { z } from 'zod';
import { newPublicCode } from '../domain/codes.ts';
import { DAY_MS } from '../domain/dates.ts';
import { ApiError } from '../domain/errors.ts';
import { normalizePhone, toNational } from '../domain/phone.ts';
import { verifyUrl } from '../domain/sending.ts';
import { requireOpenableLinks } from './send/public-links.ts';
import type { Store } from '../store/engine/db.ts';
import {
  completeSenderVerification,
  countRecentVerifications,
  isVerifiedSender,
  insertSenderVerification,
  listVerifiedSenders,
} from '../store/senders.ts';
import { acceptCampaign } from './send/accept.ts';
import type { Recipient } from './send/destinations.ts';
import { Rejections } from './send/rejections.ts';
import { optText, texts } from './fields.ts';
import { str } from './replies.ts';
import { defineOperation } from './types.ts';

/** Verification requests per number and account in 24 hours (each mobile one is a free SMS to someone). */
export const MAX_VERIFICATIONS_PER_DAY = 3;

/** The verification link `/v/:code` confirmed, in a transaction of its own; false for an unknown, used or expired code. */
export async function confirmSenderVerification(store: Store, code: string, now: number): Promise<boolean> {
  return store.db.transaction().execute((trx) => completeSenderVerification(trx, code, now));
}

export const verifyPhone = defineOperation({
  names: ['verify_phone'],
  reply: z.object({ verify_message: z.array(str()).describe('per number, what happens next') }),
  input: z.object({ phone: texts('The numbers to verify (repeatable), mobile or landline.') }),
  async handler(ctx, input) {
    const given = input.phone;
    if (given.length === 0) throw new ApiError(510, 'Invalid verify_phone request: no phones to verify');
    const settings = ctx.config.sending;
    const messages: string[] = [];
    const sms: Recipient[] = [];
    let accepted = 0;
    for (const raw of given) {
      const n = normalizePhone(raw, { allowInternational: false });
      if (!n.ok || n.international || n.type === 'other') {
        messages.push(`${raw}: not an Israeli mobile or landline number; not accepted`);
        continue;
      }
      const source = toNational(n.e164);
      accepted++;
      if (await isVerifiedSender(ctx.db, ctx.account.id, source)) {
        messages.push(`${source} is already a verified sender`);
        continue;
      }
      if (
        (await countRecentVerifications(ctx.db, ctx.account.id, n.e164, ctx.now - DAY_MS)) >= MAX_VERIFICATIONS_PER_DAY
      ) {
        messages.push(`${source}: too many verification requests in the last 24 hours; try again later`);
        continue;
      }
      const expiresAt = ctx.now + settings.verifyTtlMs;
      if (n.type === 'mobile') {
        if (sms.length === 0) await requireOpenableLinks(ctx, 'the verification link');
        const code = newPublicCode();
        await insertSenderVerification(ctx.db, {
          accountId: ctx.account.id,
          phone: n.e164,
          source,
          kind: 'mobile',
          code,
          now: ctx.now,
          expiresAt,
        });
        const text = `To confirm ${source} as a sender of ${ctx.account.name}, open ${verifyUrl(ctx.config.publicUrl, code)}`;
        sms.push({ phone: n.e164, international: false, externalId: null, source: settings.verifySource, text });
        messages.push(
          `A verification link was sent by SMS to ${source}; open it on that phone and confirm within 48 hours`,
        );
      } else {
        await insertSenderVerification(ctx.db, {
          accountId: ctx.account.id,
          phone: n.e164,
          source,
          kind: 'landline',
          code: null,
          now: ctx.now,
          expiresAt,
        });
        messages.push(
          `To verify the landline ${source}, call ${settings.verifyCallNumber} from it; the number is verified once our operator confirms the call`,
        );
      }
    }
    if (accepted === 0)
      throw new ApiError(933, 'Invalid phone number: none of the numbers can be verified', {
        verify_message: messages,
      });
    if (sms.length > 0) {
      await acceptCampaign(ctx, {
        kind: 'verify',
        name: null,
        source: settings.verifySource,
        scheduledAt: null,
        recipients: [sms],
        rejected: new Rejections(),
        unsubscribe: 'none',
        links: [],
        free: true,
        options: {},
      });
    }
    return { status: 0, message: 'Accepted for verification', verify_message: messages };
  },
});

export const getVerifiedPhones = defineOperation({
  names: ['getVerifiedPhones'],
  reply: z.object({ phones: z.array(str()) }),
  input: z.object({ is_subs: optText() }),
  readOnly: true,
  async handler(ctx, input) {
    const rows = await listVerifiedSenders(ctx.db, ctx.account.id, input.is_subs === '1');
    const phones = [...new Set(rows.map((r) => r.source))];
    return { status: 0, message: `${phones.length} verified sender${phones.length === 1 ? '' : 's'}`, phones };
  },
});
