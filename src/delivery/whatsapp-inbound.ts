// A message a WhatsApp user wrote to a business number: it goes to the account the business number is granted to
// (`yona admin whatsapp-number add`), opens (or resets) the user's 24-hour window, is kept for `incoming` with its
// channel, and is pushed to the account's incoming_whatsapp URL (never to incoming_sms). The user is known by
// phone, or by their business-scoped user id when Meta gives no phone.
import type { InboundMessage } from '../carriers/types.ts';
import { channelOf } from '../domain/channels.ts';
import { whatsappIncomingFields } from '../domain/push-fields.ts';
import type { Queryable } from '../store/engine/db.ts';
import { insertInbound, insertUnrouted } from '../store/inbound.ts';
import { recordPushEvent } from '../store/push.ts';
import { timeZones } from '../store/status-events.ts';
import { openWindow, whatsappNumber } from '../store/whatsapp.ts';

/** Where a WhatsApp message went: the account, or none (no account holds the business number). */
export type WhatsappInboundOutcome = { routed: false } | { routed: true; accountId: number; blocked: false };

/** Stores one WhatsApp message in the caller's transaction. */
export async function storeWhatsappInbound(
  trx: Queryable,
  carrier: string,
  message: InboundMessage & { phone: string; dest: string },
  now: number,
): Promise<WhatsappInboundOutcome> {
  const grant = await whatsappNumber(trx, message.dest);
  if (!grant) {
    await insertUnrouted(trx, {
      phone: message.phone,
      dest: message.dest,
      text: message.text,
      carrier,
      receivedAt: message.at,
    });
    return { routed: false };
  }
  const accountId = grant.accountId;
  await insertInbound(trx, {
    accountId,
    phone: message.phone,
    dest: message.dest,
    text: message.text,
    carrier,
    receivedAt: message.at,
    channel: channelOf('whatsapp').stored,
  });
  await openWindow(trx, { accountId, businessNumber: message.dest, user: message.phone }, message.at);
  const timeZone = (await timeZones(trx, [accountId])).get(accountId) ?? 'Asia/Jerusalem';
  await recordPushEvent(trx, {
    accountId,
    type: 'incoming_whatsapp',
    orderKey: null,
    now,
    fields: whatsappIncomingFields({
      phone: message.phone,
      dest: message.dest,
      message: message.text,
      name: message.name,
      unique: message.carrierMessageId,
      date: message.at,
      timeZone,
    }),
  });
  return { routed: true, accountId, blocked: false };
}
