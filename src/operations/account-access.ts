// Internal operations on how an account is reached (not in the API's table): its IP allowlist (addresses and the
// check), its API tokens (minted and deleted) and its push URLs' state and signing secret. The console's forms run
// them for the signed-in account, `yona admin` for the account it names; both through the operation runner.
import { z } from 'zod';
import { parseCidr } from '../domain/ip.ts';
import { PUSH_TYPES, testEventFields } from '../domain/push-fields.ts';
import { generatePushSecret } from '../domain/push-sign.ts';
import { ApiError } from '../domain/errors.ts';
import { statusMessage } from '../domain/status.ts';
import { sealingKey } from '../secret-key.ts';
import { addAllowedIp, allowIp, removeAllowedIp, setIpCheck } from '../store/accounts.ts';
import {
  clearPushSecret,
  deletePushRegistration,
  disablePushRegistration,
  enablePushRegistration,
  findPushRegistration,
  recordPushEvent,
  setPushSecret,
} from '../store/push.ts';
import type { PushType } from '../store/schema/push.ts';
import { deleteToken } from '../store/tokens.ts';
import { mintToken } from './tokens.ts';
import { defineOperation } from './types.ts';

const done = z.object({ done: z.boolean() });
const ok = { status: 0, message: statusMessage(0) } as const;

// An address or CIDR as typed (2 when it is neither), in its canonical form.
function cidrOf(value: string): string {
  const cidr = parseCidr(value.trim());
  if (!cidr) throw new ApiError(2, `Invalid value for field cidr: "${value.slice(0, 60)}" is not an address or CIDR`);
  return cidr;
}

/** Adds an address or CIDR to the allowlist (`checkOn`: and turns the check on); `done` false when already listed. */
export const addAllowedAddress = defineOperation({
  names: ['addAllowedAddress'],
  internal: true,
  input: z.object({ cidr: z.string(), checkOn: z.boolean().optional() }),
  reply: done,
  async handler(ctx, input) {
    const cidr = cidrOf(input.cidr);
    if (input.checkOn) {
      await allowIp(ctx.db, ctx.account.id, cidr, ctx.now);
      return { ...ok, done: true };
    }
    return { ...ok, done: await addAllowedIp(ctx.db, ctx.account.id, cidr, ctx.now) };
  },
});

/** Removes an address or CIDR from the allowlist; `done` false when it was not listed. */
export const removeAllowedAddress = defineOperation({
  names: ['removeAllowedAddress'],
  internal: true,
  input: z.object({ cidr: z.string() }),
  reply: done,
  async handler(ctx, input) {
    return { ...ok, done: await removeAllowedIp(ctx.db, ctx.account.id, input.cidr) };
  },
});

/** Turns the IP allowlist check on or off (the addresses stay). */
export const setAddressCheck = defineOperation({
  names: ['setAddressCheck'],
  internal: true,
  input: z.object({ on: z.boolean() }),
  reply: z.object({}),
  async handler(ctx, input) {
    await setIpCheck(ctx.db, ctx.account.id, input.on);
    return ok;
  },
});

/** Mints an API token (shown once), as getApiToken `new` does: 511 past the active-token limit. */
export const mintApiToken = defineOperation({
  names: ['mintApiToken'],
  internal: true,
  input: z.object({ ttlMs: z.number().int().positive().optional() }),
  reply: z.object({ token: z.string(), name: z.string(), expiresAt: z.number() }),
  async handler(ctx, input) {
    if (ctx.account.closed_at != null) throw new ApiError(511, 'a closed account gets no tokens');
    const minted = await mintToken(ctx.db, ctx.account, ctx.now, input.ttlMs ?? ctx.config.tokenTtlMs);
    return { ...ok, ...minted };
  },
});

/** Deletes the API token of that name (it stops working at once); `done` false when there is none. */
export const deleteApiToken = defineOperation({
  names: ['deleteApiToken'],
  internal: true,
  input: z.object({ name: z.string() }),
  reply: done,
  async handler(ctx, input) {
    return { ...ok, done: input.name !== '' && (await deleteToken(ctx.db, ctx.account.id, input.name)) };
  },
});

const pushType = z.enum(PUSH_TYPES as unknown as [PushType, ...PushType[]]);
const PUSH_STATE = z.object({ outcome: z.string() });

/** Queues a test event for the live registration of a type (`outcome` missing, paused or queued). */
export const testPushUrl = defineOperation({
  names: ['testPushUrl'],
  internal: true,
  input: z.object({ type: pushType }),
  reply: PUSH_STATE,
  async handler(ctx, { type }) {
    const reg = await findPushRegistration(ctx.db, ctx.account.id, type);
    if (!reg) return { ...ok, outcome: 'missing' };
    if (reg.state !== 'registered') return { ...ok, outcome: 'paused' };
    const fields = testEventFields(type, ctx.now, ctx.account.time_zone);
    await recordPushEvent(ctx.db, { accountId: ctx.account.id, type, fields, now: ctx.now });
    ctx.signals.notify('push');
    return { ...ok, outcome: 'queued' };
  },
});

/** Holds deliveries to a type's registration with a reason shown beside it (`outcome` as the store answers). */
export const disablePushUrl = defineOperation({
  names: ['disablePushUrl'],
  internal: true,
  input: z.object({ type: pushType, reason: z.string().max(500) }),
  reply: PUSH_STATE,
  async handler(ctx, { type, reason }) {
    return { ...ok, outcome: await disablePushRegistration(ctx.db, ctx.account.id, type, reason, ctx.now) };
  },
});

/** Resumes deliveries to a type's disabled registration (`outcome` as the store answers). */
export const enablePushUrl = defineOperation({
  names: ['enablePushUrl'],
  internal: true,
  input: z.object({ type: pushType }),
  reply: PUSH_STATE,
  async handler(ctx, { type }) {
    const outcome = await enablePushRegistration(ctx.db, ctx.account.id, type, ctx.now);
    if (outcome === 'enabled') ctx.signals.notify('push');
    return { ...ok, outcome };
  },
});

/** Deletes a type's registration (its pending events are dropped); `done` false when there is none. */
export const deletePushUrl = defineOperation({
  names: ['deletePushUrl'],
  internal: true,
  input: z.object({ type: pushType }),
  reply: done,
  async handler(ctx, { type }) {
    return { ...ok, done: await deletePushRegistration(ctx.db, ctx.account.id, type, ctx.now) };
  },
});

/** Sets a new signing secret for the account's pushes (kept sealed); the clear secret is answered once. */
export const newPushSecret = defineOperation({
  names: ['newPushSecret'],
  internal: true,
  input: z.object({}),
  reply: z.object({ secret: z.string() }),
  async handler(ctx) {
    const secret = generatePushSecret();
    await setPushSecret(ctx.db, sealingKey(ctx.config), ctx.account.id, secret, ctx.now);
    return { ...ok, secret };
  },
});

/** Removes the signing secret: pushes go unsigned again. */
export const clearPushSigning = defineOperation({
  names: ['clearPushSigning'],
  internal: true,
  input: z.object({}),
  reply: done,
  async handler(ctx) {
    return { ...ok, done: await clearPushSecret(ctx.db, ctx.account.id) };
  },
});
