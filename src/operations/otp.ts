// send_otp and validate_otp: a one-time code texted through the normal send path (priced, blocklist, receipts,
// dlr, push) in the dispatcher's priority lane, kept only as a keyed hash, and checked against its attempts and
// expiry. The code is never in a reply, a log or the store in clear: the message row holds `[code]` and the
// code sealed beside it until the carrier took it. Abuse limits (config.otp) refuse with status 5.
import { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import {
  CODE_PLACEHOLDER,
  DEFAULT_APP_ID,
  DEFAULT_OTP_TEXT,
  DEFAULT_TRIES,
  DEFAULT_VALID_MINUTES,
  MAX_TRIES,
  MAX_VALID_MINUTES,
  MIN_TRIES,
  MIN_VALID_MINUTES,
  codeHashKey,
  codeMatches,
  fillCode,
  hashCode,
  newCode,
} from '../domain/otp.ts';
import { normalizePhone, toNational } from '../domain/phone.ts';
import { seal } from '../domain/sealed.ts';
import { sealingKey } from '../secret-key.ts';
import { otpInternationalAllowed } from '../store/accounts.ts';
import {
  countOtpAttempt,
  countOtpCodesSince,
  currentOtpCode,
  insertOtpCode,
  lastOtpCodeAt,
  markOtpUsed,
  otpFailuresSince,
  recordOtpFailure,
  type OtpServiceType,
} from '../store/otp.ts';
import { lockLimitScope } from '../store/limits.ts';
import { optInt, optText, rawText, text } from './fields.ts';
import { acceptCampaign } from './send/accept.ts';
import { requireVerifiedSender } from './send/compose.ts';
import { checkMessage, checkSource } from './send/options.ts';
import { Rejections } from './send/rejections.ts';
import { int, str } from './replies.ts';
import { defineOperation, type OperationContext, type ReplyTo } from './types.ts';

const HOUR_MS = 3_600_000;
const MAX_APP_ID = 2_147_483_647;

/** A whole-number field within its range, else 2 naming the range (never clamped). */
export function inRange(field: string, value: number | undefined, fallback: number, min: number, max: number): number {
  const v = value ?? fallback;
  if (v < min || v > max) throw new ApiError(2, `Invalid value for field ${field}: must be ${min} to ${max}, got ${v}`);
  return v;
}

/** The phone a code goes to: an Israeli mobile, or an international number where the account allows it. */
export function codeDestination(given: string, allowInternational: boolean): { e164: string; international: boolean } {
  const n = normalizePhone(given, { allowInternational });
  if (!n.ok) {
    if (n.reason === 'too_short' || n.reason === 'too_long')
      throw new ApiError(9, `At least one of the destinations is too short or too long: "${given}"`);
    if (n.reason === 'international_not_allowed') {
      throw new ApiError(
        933,
        `Invalid phone number: "${given}" is international, and one-time codes to international numbers are not enabled for this account`,
      );
    }
    throw new ApiError(933, `Invalid phone number: "${given}"`);
  }
  if (!n.international && n.type !== 'mobile')
    throw new ApiError(933, `Invalid phone number: "${given}" is not a mobile number`);
  return n;
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

// Status 5 when the account asks for codes faster than its limits allow (each limit 0 is off).
export async function enforceSendLimits(
  ctx: OperationContext,
  phone: string,
  appId: number,
  serviceType: OtpServiceType = 'sms',
): Promise<void> {
  const { resendSeconds, perPhoneHourly, perAccountHourly } = ctx.config.otp;
  const refuse = (why: string) => new ApiError(5, `No permission to send SMS at this time: ${why}`);
  // The counts below and the code written after them are one step: concurrent requests take turns (the whole
  // account's when it has an hourly limit, else the phone's).
  if (resendSeconds > 0 || perPhoneHourly > 0 || perAccountHourly > 0) {
    const scope = perAccountHourly > 0 ? `otp:${ctx.account.id}` : `otp:${ctx.account.id}:${phone}`;
    await lockLimitScope(ctx.db, scope);
  }
  const last = resendSeconds > 0 ? await lastOtpCodeAt(ctx.db, ctx.account.id, phone, appId, serviceType) : undefined;
  if (last !== undefined && ctx.now - last < resendSeconds * 1000) {
    throw refuse(
      `a code was sent to this phone ${seconds(ctx.now - last)} seconds ago; ask again in ${seconds(last + resendSeconds * 1000 - ctx.now)} seconds`,
    );
  }
  const since = ctx.now - HOUR_MS;
  if (perPhoneHourly > 0 && (await countOtpCodesSince(ctx.db, ctx.account.id, since, phone)) >= perPhoneHourly) {
    throw refuse(`at most ${perPhoneHourly} codes an hour to one phone`);
  }
  if (perAccountHourly > 0 && (await countOtpCodesSince(ctx.db, ctx.account.id, since)) >= perAccountHourly) {
    throw refuse(`at most ${perAccountHourly} codes an hour for this account`);
  }
}

export const sendOtp = defineOperation({
  names: ['send_otp'],
  idempotent: true,
  reply: z.object({
    shipment_id: str(),
    campaign_id: int(),
    credits: int(),
    valid_time: int('minutes'),
    max_tries: int(),
  }),
  input: z.object({
    phone: text(),
    source: text(),
    app_id: optInt(),
    max_tries: optInt(),
    valid_time: optInt(),
    text: rawText().optional(),
  }),
  async handler(ctx, input) {
    const appId = inRange('app_id', input.app_id, DEFAULT_APP_ID, 1, MAX_APP_ID);
    const maxTries = inRange('max_tries', input.max_tries, DEFAULT_TRIES, MIN_TRIES, MAX_TRIES);
    const validMinutes = inRange(
      'valid_time',
      input.valid_time,
      DEFAULT_VALID_MINUTES,
      MIN_VALID_MINUTES,
      MAX_VALID_MINUTES,
    );
    const template = checkMessage(input.text ?? DEFAULT_OTP_TEXT, 'text');
    if (!template.includes(CODE_PLACEHOLDER))
      throw new ApiError(2, `Invalid value for field text: it must contain ${CODE_PLACEHOLDER}, where the code goes`);
    const source = checkSource(input.source);
    await requireVerifiedSender(ctx, source);
    const phone = codeDestination(input.phone, await otpInternationalAllowed(ctx.db, ctx.account.id));
    await enforceSendLimits(ctx, phone.e164, appId);

    const code = newCode(ctx.config.otp.digits);
    const key = sealingKey(ctx.config);
    const acceptance = await acceptCampaign(ctx, {
      kind: 'otp',
      name: null,
      source,
      scheduledAt: null,
      recipients: [
        [
          {
            phone: phone.e164,
            international: phone.international,
            externalId: null,
            source,
            text: fillCode(template, code),
            stored: { text: template, sealed: seal(key, code) },
          },
        ],
      ],
      suppress: { tempBlDays: null },
      rejected: new Rejections(),
      unsubscribe: 'none',
      links: [],
      priority: true,
      options: { app_id: appId, max_tries: maxTries, valid_time: validMinutes },
    });
    await insertOtpCode(ctx.db, {
      accountId: ctx.account.id,
      appId,
      phone: phone.e164,
      codeHash: hashCode(codeHashKey(key), code),
      maxTries,
      expiresAt: ctx.now + validMinutes * 60_000,
      campaignId: acceptance.campaignId,
      now: ctx.now,
    });
    const campaignId = ctx.dryRun ? 0 : acceptance.campaignId;
    return {
      status: 0,
      message: `A one-time code was sent to ${toNational(phone.e164)}; it is valid for ${validMinutes} minutes`,
      shipment_id: String(campaignId),
      campaign_id: campaignId,
      credits: acceptance.credits,
      valid_time: validMinutes,
      max_tries: maxTries,
    };
  },
});

const VALIDATE_REPLY = z.object({});

function unverified(why: string): ReplyTo<typeof VALIDATE_REPLY> {
  return { status: 12, message: `Unverified code: ${why}` };
}

export const validateOtp = defineOperation({
  names: ['validate_otp'],
  reply: VALIDATE_REPLY,
  input: z.object({ phone: text(), code: text(), app_id: optInt(), service_type: optText() }),
  // Status 12 is a reply, not a thrown error: the attempt it counts must be committed.
  async handler(ctx, input) {
    const appId = inRange('app_id', input.app_id, DEFAULT_APP_ID, 1, MAX_APP_ID);
    const phone = codeDestination(input.phone, true).e164;
    const { phoneFailuresHourly } = ctx.config.otp;
    // Wrong guesses at any of the phone's codes are counted against one limit: guesses at the phone take turns.
    await lockLimitScope(ctx.db, `otp-guess:${ctx.account.id}:${phone}`);
    if (phoneFailuresHourly > 0) {
      const failures = await otpFailuresSince(ctx.db, ctx.account.id, phone, ctx.now - HOUR_MS);
      if (failures.count >= phoneFailuresHourly) {
        const wait = Math.ceil(((failures.oldest ?? ctx.now) + HOUR_MS - ctx.now) / 60_000);
        return unverified(
          `too many wrong codes for this phone in the last hour (${phoneFailuresHourly}); try again in ${wait} minutes`,
        );
      }
    }
    const serviceType = (input.service_type ?? 'sms').toLowerCase();
    if (serviceType !== 'sms' && serviceType !== 'whatsapp')
      throw new ApiError(2, `Invalid value for field service_type: sms or whatsapp, got "${input.service_type}"`);
    const current = await currentOtpCode(ctx.db, ctx.account.id, phone, appId, serviceType);
    if (!current) return unverified(`no code was sent to this phone for app_id ${appId}`);
    if (current.used_at !== null) return unverified('this code was already used; request a new one');
    if (current.attempts >= current.max_tries)
      return unverified(`attempts exhausted: ${current.max_tries} wrong codes; request a new one`);
    if (current.expires_at <= ctx.now) return unverified('the code has expired; request a new one');
    // /api/test never compares: its attempt would be rolled back, and it would let codes be tried for free.
    if (ctx.dryRun)
      return { status: 0, message: 'Dry run: a code is pending for this phone; codes are compared only on /api' };
    if (codeMatches(codeHashKey(sealingKey(ctx.config)), current.code_hash, input.code)) {
      await markOtpUsed(ctx.db, current.id, ctx.now);
      return { status: 0, message: 'Code verified' };
    }
    await countOtpAttempt(ctx.db, current.id);
    await recordOtpFailure(ctx.db, ctx.account.id, phone, ctx.now);
    const left = current.max_tries - current.attempts - 1;
    return unverified(
      left > 0
        ? `wrong code (${left} ${left === 1 ? 'attempt' : 'attempts'} left)`
        : 'wrong code; attempts exhausted, request a new one',
    );
  },
});
