// The operator's alerts as internal operations (`yona admin alerts ...` and /admin/alerts): a threshold per kind
// of alert, its removal, and the operator's webhook with its signing secret (sealed at rest, never shown again).
// Each answers the state before and after; the audit log keeps them (the secret hidden).
import { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { ALERT_KINDS, MAX_ALERT_MINUTES, type AlertRule } from '../domain/alerts.ts';
import { sealAtRest } from '../domain/sealed.ts';
import { statusMessage } from '../domain/status.ts';
import { sealingKey } from '../secret-key.ts';
import { alertWebhook, deleteAlertRule, findAlertRule, putAlertRule, putAlertWebhook } from '../store/alerts.ts';
import type { OperatorOperation } from './types.ts';

const ok = { status: 0, message: statusMessage(0) } as const;
const kind = z.enum(ALERT_KINDS);
const rule = z.object({ kind, percent: z.number().nullable(), minutes: z.number() }).nullable();
const change = z.object({ before: rule, after: rule });

const ruleInput = z.object({
  kind,
  percent: z.number().min(0).max(100).nullable().optional(),
  minutes: z.number().int().min(0).max(MAX_ALERT_MINUTES).optional(),
});

/** Sets the threshold of one kind: delivery-rate needs percent and minutes (the window), carrier-down and queue-age minutes, push-disabled nothing. */
export const setAlertRule: OperatorOperation<typeof ruleInput, typeof change> = {
  names: ['setAlertRule'],
  internal: true,
  input: ruleInput,
  reply: change,
  audit: {
    subject: (i) => `alert ${i.kind}`,
    state: async (db, i) => ({ rule: (await findAlertRule(db, i.kind)) ?? null }),
  },
  async handler(ctx, input) {
    const before = (await findAlertRule(ctx.db, input.kind)) ?? null;
    let after: AlertRule;
    if (input.kind === 'push-disabled') after = { kind: input.kind, percent: null, minutes: 0 };
    else {
      if (input.minutes === undefined || input.minutes < 1)
        throw new ApiError(2, `Invalid value for field minutes: ${input.kind} needs a whole number of minutes from 1`);
      if (input.kind === 'delivery-rate' && (input.percent === undefined || input.percent === null))
        throw new ApiError(2, 'Invalid value for field percent: delivery-rate needs a rate from 0 to 100');
      after = {
        kind: input.kind,
        percent: input.kind === 'delivery-rate' ? (input.percent ?? null) : null,
        minutes: input.minutes,
      };
    }
    await putAlertRule(ctx.db, after, ctx.now);
    return { ...ok, before, after };
  },
};

const removeInput = z.object({ kind });

/** Removes the threshold of a kind: it raises no more (its open alerts clear at the next evaluation). */
export const removeAlertRule: OperatorOperation<typeof removeInput, typeof change> = {
  names: ['removeAlertRule'],
  internal: true,
  input: removeInput,
  reply: change,
  audit: {
    subject: (i) => `alert ${i.kind}`,
    state: async (db, i) => ({ rule: (await findAlertRule(db, i.kind)) ?? null }),
  },
  async handler(ctx, input) {
    const before = (await findAlertRule(ctx.db, input.kind)) ?? null;
    await deleteAlertRule(ctx.db, input.kind);
    return { ...ok, before, after: null };
  },
};

/** The shortest signing secret accepted. */
export const MIN_ALERT_SECRET = 16;

const webhookInput = z.object({ url: z.string().nullable(), secret: z.string().optional() });
const webhookChange = z.object({ before: z.string().nullable(), after: z.string().nullable() });

function webhookUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ApiError(2, `Invalid value for field url: "${text}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ApiError(2, 'Invalid value for field url: the webhook must be an http or https URL');
  return url.toString();
}

/** Sets the operator's webhook URL and its signing secret (url null: no webhook). */
export const setAlertWebhook: OperatorOperation<typeof webhookInput, typeof webhookChange> = {
  names: ['setAlertWebhook'],
  internal: true,
  input: webhookInput,
  reply: webhookChange,
  audit: { subject: () => 'alert webhook', state: async (db) => ({ url: (await alertWebhook(db))?.url ?? null }) },
  async handler(ctx, input) {
    const before = (await alertWebhook(ctx.db))?.url ?? null;
    if (input.url === null || input.url === '') {
      await putAlertWebhook(ctx.db, null, ctx.now);
      return { ...ok, before, after: null };
    }
    const url = webhookUrl(input.url);
    const secret = input.secret ?? '';
    if (secret.length < MIN_ALERT_SECRET)
      throw new ApiError(
        2,
        `Invalid value for field secret: the signing secret needs at least ${MIN_ALERT_SECRET} characters`,
      );
    await putAlertWebhook(ctx.db, { url, sealedSecret: sealAtRest(sealingKey(ctx.config), secret) }, ctx.now);
    return { ...ok, before, after: url };
  },
};
