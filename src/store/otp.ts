// One-time code rows: the current code of a phone and app, its attempts, and the counts the abuse limits read.
import type { Selectable } from 'kysely';
import type { Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import type { OtpCodeTable } from './schema/otp.ts';

export type OtpCode = Selectable<OtpCodeTable>;

export interface NewOtpCode {
  accountId: number;
  appId: number;
  phone: string;
  codeHash: string;
  maxTries: number;
  expiresAt: number;
  campaignId: number;
  now: number;
  /** What carries it (absent: 'sms'). */
  serviceType?: OtpServiceType;
}

/** What carries a one-time code: an SMS (send_otp) or WhatsApp (send-otp-whatsapp). */
export type OtpServiceType = 'sms' | 'whatsapp';

/** Replaces the phone's current code of this app (it can no longer be used) and records the new one. */
export async function insertOtpCode(db: Queryable, c: NewOtpCode): Promise<void> {
  await db
    .updateTable('otp_codes')
    .set({ replaced_at: c.now })
    .where('account_id', '=', c.accountId)
    .where('phone', '=', c.phone)
    .where('app_id', '=', c.appId)
    .where('service_type', '=', c.serviceType ?? 'sms')
    .where('replaced_at', 'is', null)
    .execute();
  await db
    .insertInto('otp_codes')
    .values({
      account_id: c.accountId,
      app_id: c.appId,
      phone: c.phone,
      code_hash: c.codeHash,
      max_tries: c.maxTries,
      expires_at: c.expiresAt,
      created_at: c.now,
      used_at: null,
      replaced_at: null,
      campaign_id: c.campaignId,
      service_type: c.serviceType ?? 'sms',
    })
    .execute();
}

/** The phone's current code of this app, locked for the validation on PostgreSQL (two checks of one code queue). */
export async function currentOtpCode(
  db: Queryable,
  accountId: number,
  phone: string,
  appId: number,
  serviceType: OtpServiceType = 'sms',
): Promise<OtpCode | undefined> {
  const dialect = dialectOf(db);
  const query = db
    .selectFrom('otp_codes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('phone', '=', phone)
    .where('app_id', '=', appId)
    .where('service_type', '=', serviceType)
    .where('replaced_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(1);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  return (
    row && {
      ...row,
      id: Number(row.id),
      attempts: Number(row.attempts),
      expires_at: Number(row.expires_at),
      created_at: Number(row.created_at),
    }
  );
}

/** Counts a validation attempt against a code. */
export async function countOtpAttempt(db: Queryable, id: number): Promise<void> {
  await db
    .updateTable('otp_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** Uses a code up. */
export async function markOtpUsed(db: Queryable, id: number, now: number): Promise<void> {
  await db.updateTable('otp_codes').set({ used_at: now }).where('id', '=', id).execute();
}

/** Codes the account sent since `since`: to one phone, or to anyone. */
export async function countOtpCodesSince(
  db: Queryable,
  accountId: number,
  since: number,
  phone?: string,
): Promise<number> {
  let query = db
    .selectFrom('otp_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('created_at', '>', since);
  if (phone !== undefined) query = query.where('phone', '=', phone);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** When the phone's latest code of this app was sent, if ever. */
export async function lastOtpCodeAt(
  db: Queryable,
  accountId: number,
  phone: string,
  appId: number,
  serviceType: OtpServiceType = 'sms',
): Promise<number | undefined> {
  const row = await db
    .selectFrom('otp_codes')
    .select('created_at')
    .where('account_id', '=', accountId)
    .where('phone', '=', phone)
    .where('app_id', '=', appId)
    .where('service_type', '=', serviceType)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.created_at) : undefined;
}

/** Records a failed validation for the phone (the per-phone limit counts them over all codes). */
export async function recordOtpFailure(db: Queryable, accountId: number, phone: string, now: number): Promise<void> {
  await db.insertInto('otp_failures').values({ account_id: accountId, phone, failed_at: now }).execute();
}

/** Failed validations for the phone since `since`, with the time of the oldest (when the limit frees a slot). */
export async function otpFailuresSince(
  db: Queryable,
  accountId: number,
  phone: string,
  since: number,
): Promise<{ count: number; oldest: number | null }> {
  const row = await db
    .selectFrom('otp_failures')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('failed_at').as('oldest')])
    .where('account_id', '=', accountId)
    .where('phone', '=', phone)
    .where('failed_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) };
}
